# Counts pairs in a dict and takes max() by count: ties go to the pair seen first.

def pair_counts(vocab):
    counts = {}
    for word, freq in vocab.items():
        syms = word.split(" ")
        for x, y in zip(syms, syms[1:]):
            counts[(x, y)] = counts.get((x, y), 0) + freq
    return counts


def apply_merge(vocab, pair):
    a, b = pair
    new_vocab = {}
    for word, freq in vocab.items():
        syms = word.split(" ")
        res = []
        i = 0
        while i < len(syms):
            if i + 1 < len(syms) and syms[i] == a and syms[i + 1] == b:
                res.append(a + b)
                i += 2
            else:
                res.append(syms[i])
                i += 1
        new_vocab[" ".join(res)] = freq
    return new_vocab


def train_bpe(corpus, num_merges):
    vocab = {}
    for sentence in corpus:
        for w in sentence.split():
            key = " ".join(list(w) + ["</w>"])
            vocab[key] = vocab.get(key, 0) + 1
    merges = []
    for step in range(num_merges):
        counts = pair_counts(vocab)
        if len(counts) == 0:
            break
        best = max(counts, key=counts.get)
        merges.append(best)
        vocab = apply_merge(vocab, best)
    return merges


def encode(word, merges):
    vocab = {" ".join(list(word) + ["</w>"]): 1}
    for m in merges:
        vocab = apply_merge(vocab, tuple(m))
    return next(iter(vocab)).split(" ")
