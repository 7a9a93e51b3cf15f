"""A correct BPE trainer (lexicographic ties, "</w>" marker) that prints megabytes of chatter."""
import sys


def train_bpe(corpus, num_merges):
    counts = {}
    texts = corpus.items() if isinstance(corpus, dict) else ((w, 1) for t in corpus for w in t.split())
    for word, count in texts:
        counts[word] = counts.get(word, 0) + count
    words = {tuple(word) + ("</w>",): count for word, count in counts.items()}
    merges = []
    for step in range(num_merges):
        pairs = {}
        for symbols, count in words.items():
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] = pairs.get(pair, 0) + count
        print(f"step {step}: {len(pairs)} pairs " + "." * 2000)
        sys.stderr.write("debug " * 20000 + "\n")
        if not pairs:
            break
        best = min(pairs, key=lambda pair: (-pairs[pair], pair))
        merges.append(best)
        words = {merge(symbols, best): count for symbols, count in words.items()}
    return merges


def merge(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
