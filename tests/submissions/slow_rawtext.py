# exercise: bpe-train-encode
"""Right answers, but every merge rescans the raw text word by word, replaying all merges so far."""


def _apply(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def train_bpe(corpus, num_merges):
    merges = []
    for _ in range(num_merges):
        counts = {}
        for text in corpus:
            for word in text.split():
                symbols = list(word) + ["</w>"]
                for pair in merges:
                    symbols = _apply(symbols, pair)
                for p in zip(symbols, symbols[1:]):
                    counts[p] = counts.get(p, 0) + 1
        if not counts:
            break
        merges.append(min(counts, key=lambda p: (-counts[p], p)))
    return merges


def encode(word, merges):
    symbols = list(word) + ["</w>"]
    for pair in merges:
        symbols = _apply(symbols, pair)
    return symbols
