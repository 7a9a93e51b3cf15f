# exercise: bpe-train-encode
"""A correct submission, written the way the lessons teach it.

Grade it with:  grade submit examples/bpe-train-encode/student_correct.py
"""

END = "</w>"


def get_vocab(corpus):
    """Every distinct word as a tuple of symbols (its letters, then the end marker) -> count."""
    vocab = {}
    for text in corpus:
        for word in text.split():
            symbols = tuple(word) + (END,)
            vocab[symbols] = vocab.get(symbols, 0) + 1
    return vocab


def get_stats(vocab):
    """Adjacent-pair counts, each word contributing its frequency."""
    pairs = {}
    for symbols, freq in vocab.items():
        for i in range(len(symbols) - 1):
            pair = (symbols[i], symbols[i + 1])
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs


def merge_symbols(symbols, pair):
    """Replace every occurrence of pair, left to right, without overlaps."""
    out, i = [], 0
    while i < len(symbols):
        if i < len(symbols) - 1 and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def train_bpe(corpus, num_merges):
    vocab = get_vocab(corpus)
    merges = []
    for _ in range(num_merges):
        pairs = get_stats(vocab)
        if not pairs:
            break
        # the most frequent pair; among equal counts the smallest (a, b)
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        vocab = {merge_symbols(symbols, best): freq for symbols, freq in vocab.items()}
    return merges


def encode(word, merges):
    rank = {pair: i for i, pair in reversed(list(enumerate(merges)))}
    symbols = tuple(word) + (END,)
    while True:
        ranked = [rank[p] for p in zip(symbols, symbols[1:]) if p in rank]
        if not ranked:
            return list(symbols)
        symbols = merge_symbols(symbols, merges[min(ranked)])
