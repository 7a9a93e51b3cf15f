# exercise: bpe-train-encode
"""Correct training, but encode was never written (the student renamed it)."""
from collections import Counter


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
    words = Counter(tuple(w) + ("</w>",) for text in corpus for w in text.split())
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
    return merges


def encode_word(word, merges):
    return list(word) + ["</w>"]
