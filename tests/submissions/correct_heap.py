# exercise: bpe-train-encode
"""Correct with a heap of (-count, pair) and lazy deletion of stale entries."""
import heapq
from collections import Counter, defaultdict


def train_bpe(corpus, num_merges):
    word_freq = Counter(w for text in corpus for w in text.split())
    words = {w: list(w) + ["</w>"] for w in word_freq}
    counts = Counter()
    index = defaultdict(set)
    for w, symbols in words.items():
        for p in zip(symbols, symbols[1:]):
            counts[p] += word_freq[w]
            index[p].add(w)
    heap = [(-c, p) for p, c in counts.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < num_merges and heap:
        neg, pair = heapq.heappop(heap)
        if counts.get(pair, 0) != -neg or -neg <= 0:
            continue
        merges.append(pair)
        a, b = pair
        touched = set()
        for w in list(index[pair]):
            symbols = words[w]
            for p in zip(symbols, symbols[1:]):
                counts[p] -= word_freq[w]
                touched.add(p)
            out, i = [], 0
            while i < len(symbols):
                if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            words[w] = out
            for p in zip(out, out[1:]):
                counts[p] += word_freq[w]
                index[p].add(w)
                touched.add(p)
        for p in touched:
            if counts[p] > 0:
                heapq.heappush(heap, (-counts[p], p))
    return merges


def encode(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    symbols = list(word) + ["</w>"]
    while len(symbols) > 1:
        best = min(zip(symbols, symbols[1:]), key=lambda p: rank.get(p, float("inf")))
        if best not in rank:
            break
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == best:
                out.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols
