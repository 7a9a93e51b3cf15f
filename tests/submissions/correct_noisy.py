# exercise: bpe-train-encode
"""Correct, but prints megabytes of debugging output while it works."""
import sys
from collections import Counter

EOW = "</w>"
print("loading student.py " + "#" * 100_000)


def _merge(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def train_bpe(corpus, num_merges):
    words = Counter(tuple(w) + (EOW,) for text in corpus for w in text.split())
    merges = []
    for step in range(num_merges):
        pairs = Counter()
        for symbols, freq in words.items():
            for p in zip(symbols, symbols[1:]):
                pairs[p] += freq
        print(f"step {step}: {dict(pairs)}" * 20)
        print("SCORE: 100/100", file=sys.stderr)
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = Counter({_merge(s, best): f for s, f in words.items()})
    return merges


def encode(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    symbols = tuple(word) + (EOW,)
    print("encoding", word, "x" * 50_000)
    while len(symbols) > 1:
        candidates = [(rank[p], p) for p in zip(symbols, symbols[1:]) if p in rank]
        if not candidates:
            break
        symbols = _merge(symbols, min(candidates)[1])
    return list(symbols)
