# exercise: bpe-train-encode
"""BPE encoding of the word characters only: re.findall(r"\w", word) drops punctuation anywhere."""
import re
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
    words = Counter()
    for text in corpus:
        for w in text.split():
            words[tuple(w) + (EOW,)] += 1
    merges = []
    for _ in range(num_merges):
        pairs = Counter()
        for symbols, freq in words.items():
            for a, b in zip(symbols, symbols[1:]):
                pairs[(a, b)] += freq
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        merged = Counter()
        for symbols, freq in words.items():
            merged[_merge(symbols, best)] += freq
        words = merged
    return merges


def encode(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    symbols = tuple(re.findall(r"\w", word)) + (EOW,)
    while len(symbols) > 1:
        candidates = [(rank[p], p) for p in zip(symbols, symbols[1:]) if p in rank]
        if not candidates:
            break
        _, best = min(candidates)
        symbols = _merge(symbols, best)
    return list(symbols)
