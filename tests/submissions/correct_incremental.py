# exercise: bpe-train-encode
"""Correct with an incremental pair index: only words containing the merged pair are updated."""
from collections import defaultdict


def _pairs(symbols):
    return list(zip(symbols, symbols[1:]))


def _merge(symbols, a, b):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def train_bpe(corpus, num_merges):
    freq = defaultdict(int)
    for text in corpus:
        for w in text.split():
            freq[w] += 1
    words = [list(w) + ["</w>"] for w in freq]
    counts = [freq[w] for w in freq]
    pair_count = defaultdict(int)
    where = defaultdict(set)
    for idx, symbols in enumerate(words):
        for p in _pairs(symbols):
            pair_count[p] += counts[idx]
            where[p].add(idx)
    merges = []
    for _ in range(num_merges):
        live = [(c, p) for p, c in pair_count.items() if c > 0]
        if not live:
            break
        best = min(live, key=lambda cp: (-cp[0], cp[1]))[1]
        merges.append(best)
        for idx in list(where[best]):
            old = words[idx]
            for p in _pairs(old):
                pair_count[p] -= counts[idx]
            new = _merge(old, *best)
            words[idx] = new
            for p in _pairs(new):
                pair_count[p] += counts[idx]
                where[p].add(idx)
        where.pop(best, None)
        pair_count.pop(best, None)
    return merges


def encode(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    symbols = list(word) + ["</w>"]
    while True:
        ranked = [(rank[p], p) for p in _pairs(symbols) if p in rank]
        if not ranked:
            return symbols
        symbols = _merge(symbols, *min(ranked)[1])
