# exercise: bpe-train-encode
"""Right merges on every other call only: a counter kept in a file makes each call differ
from the one before, the way hidden global state does."""
import os

from collections import Counter

EOW = "</w>"


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


def _call_number():
    count = int(open("calls.txt").read()) + 1 if os.path.exists("calls.txt") else 1
    with open("calls.txt", "w") as handle:
        handle.write(str(count))
    return count


def train_bpe(corpus, num_merges):
    words = Counter(tuple(w) + (EOW,) for text in corpus for w in text.split())
    merges = []
    for _ in range(num_merges):
        pairs = Counter()
        for symbols, freq in words.items():
            for p in zip(symbols, symbols[1:]):
                pairs[p] += freq
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = Counter({_merge(s, best): f for s, f in words.items()})
    if _call_number() % 2 == 0:
        merges = merges[:-1]
    return merges


def encode(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    symbols = tuple(word) + (EOW,)
    while len(symbols) > 1:
        candidates = [(rank[p], p) for p in zip(symbols, symbols[1:]) if p in rank]
        if not candidates:
            break
        symbols = _merge(symbols, min(candidates)[1])
    return list(symbols)
