# exercise: bpe-train-encode
"""Greedy longest match against the vocabulary, left to right, instead of replaying merges."""
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
    """Greedy longest match against the vocabulary, left to right."""
    vocab = {a + b for a, b in merges}
    text = list(word) + [EOW]
    tokens, i = [], 0
    while i < len(text):
        for j in range(len(text), i, -1):
            piece = "".join(text[i:j])
            if j == i + 1 or piece in vocab:
                tokens.append(piece)
                i = j
                break
    return tokens
