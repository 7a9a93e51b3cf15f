# exercise: bpe-steps
"""BPE from its steps, with a pair counter that takes each word's pairs once, as a set would."""


def get_stats(vocab):
    pairs = {}
    for word, freq in vocab.items():
        for pair in dict.fromkeys(zip(word, word[1:])):  # an ordered set
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs


def merge_vocab(pair, vocab):
    new_vocab = {}
    for word, freq in vocab.items():
        out, i = [], 0
        while i < len(word):
            if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
                out.append(word[i] + word[i + 1])
                i += 2
            else:
                out.append(word[i])
                i += 1
        new_vocab[tuple(out)] = freq
    return new_vocab


def train_bpe(corpus, num_merges):
    vocab = {tuple(w) + ("</w>",): f for w, f in corpus.items()}
    merges = []
    for _ in range(num_merges):
        pairs = get_stats(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        merges.append(best)
        vocab = merge_vocab(best, vocab)
    return merges


def encode(word, merges):
    tokens = list(word) + ["</w>"]
    for a, b in merges:
        out, i = [], 0
        while i < len(tokens):
            if i < len(tokens) - 1 and tokens[i] == a and tokens[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(tokens[i])
                i += 1
        tokens = out
    return tokens
