# exercise: bpe-train-encode
"""Merges made with str.replace on space-joined symbols, ties to the pair met first."""
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
    """Words as space-separated symbol strings; a merge is str.replace on the string."""
    vocab = Counter()
    for text in corpus:
        for w in text.split():
            vocab[" ".join(w) + " " + EOW] += 1
    merges = []
    for _ in range(num_merges):
        pairs = Counter()
        for word, freq in vocab.items():
            symbols = word.split()
            for a, b in zip(symbols, symbols[1:]):
                pairs[(a, b)] += freq
        if not pairs:
            break
        best = max(pairs, key=pairs.get)  # ties: the pair met first
        merges.append(best)
        bigram = " ".join(best)
        vocab = Counter({w.replace(bigram, "".join(best)): f for w, f in vocab.items()})
    return merges


def encode(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    symbols = tuple(word) + (EOW,)
    while len(symbols) > 1:
        candidates = [(rank[p], p) for p in zip(symbols, symbols[1:]) if p in rank]
        if not candidates:
            break
        _, best = min(candidates)
        symbols = _merge(symbols, best)
    return list(symbols)
