# exercise: bpe-train-encode
"""Right merges, except that every call's last merge carries a fresh random draw: the way an
unseeded random choice leaks into an answer, so two calls with the same input differ. (State
kept between calls is the other way: tests/grading/test_check_properties_across_calls.py.)"""
import random

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
    if merges:
        first, second = merges[-1]
        merges[-1] = (first, second + "#%08x" % random.getrandbits(32))
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
