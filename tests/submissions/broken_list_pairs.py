# exercise: bpe-train-encode
"""Right merges, but each one is a list ["e", "s"] rather than a tuple ("e", "s")."""
from collections import Counter


def _merge(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and [symbols[i], symbols[i + 1]] == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def train_bpe(corpus, num_merges):
    words = Counter(tuple(w) + ("</w>",) for text in corpus for w in text.split())
    merges = []
    for _ in range(num_merges):
        pairs = Counter()
        for symbols, freq in words.items():
            for p in zip(symbols, symbols[1:]):
                pairs[p] += freq
        if not pairs:
            break
        best = list(min(pairs, key=lambda p: (-pairs[p], p)))
        merges.append(best)
        words = Counter({_merge(s, best): f for s, f in words.items()})
    return merges


def encode(word, merges):
    symbols = list(word) + ["</w>"]
    for a, b in merges:
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols
