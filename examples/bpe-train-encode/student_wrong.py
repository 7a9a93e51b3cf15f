# exercise: bpe-train-encode
"""A submission with two classic mistakes, to show what the feedback looks like.

1. Ties: ``max(pairs, key=pairs.get)`` returns the tied pair met *first*, not the smallest
   pair the exercise asks for.
2. Encoding: it grabs the longest known token at each position instead of applying the
   merges by rank.

Grade it with:  grade submit examples/bpe-train-encode/student_wrong.py
"""

END = "</w>"


def get_vocab(corpus):
    vocab = {}
    for text in corpus:
        for word in text.split():
            symbols = tuple(word) + (END,)
            vocab[symbols] = vocab.get(symbols, 0) + 1
    return vocab


def get_stats(vocab):
    pairs = {}
    for symbols, freq in vocab.items():
        for i in range(len(symbols) - 1):
            pair = (symbols[i], symbols[i + 1])
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs


def merge_symbols(symbols, pair):
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
        best = max(pairs, key=pairs.get)  # mistake 1: a tie goes to the pair met first
        merges.append(best)
        vocab = {merge_symbols(symbols, best): freq for symbols, freq in vocab.items()}
    return merges


def encode(word, merges):
    vocab = {a + b for a, b in merges}
    symbols = list(word) + [END]
    tokens, i = [], 0
    while i < len(symbols):
        # mistake 2: the longest run of symbols that is a known token, ignoring merge order
        end = len(symbols)
        while end > i + 1 and "".join(symbols[i:end]) not in vocab:
            end -= 1
        tokens.append("".join(symbols[i:end]))
        i = end
    return tokens
