# exercise: lesson97-bpe
"""Correct, in the lesson deck's own style (first-seen ties via max over an insertion-ordered dict)."""


def get_stats(vocab):
    pairs = {}
    for word, freq in vocab.items():
        for i in range(len(word) - 1):
            pair = (word[i], word[i + 1])
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs


def merge_vocab(pair, vocab):
    a, b = pair
    new_vocab = {}
    for word, freq in vocab.items():
        out, i = [], 0
        while i < len(word):
            if i < len(word) - 1 and word[i] == a and word[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(word[i])
                i += 1
        new_vocab[tuple(out)] = freq
    return new_vocab


def train_bpe(corpus, num_merges):
    vocab = {tuple(list(w) + ["</w>"]): f for w, f in corpus.items()}
    merges = []
    for _ in range(num_merges):
        pairs = get_stats(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        vocab = merge_vocab(best, vocab)
        merges.append((best, best[0] + best[1]))
    return merges


def tokenize(word, merges):
    toks = list(word) + ["</w>"]
    for (a, b), _token in merges:
        out, i = [], 0
        while i < len(toks):
            if i < len(toks) - 1 and toks[i] == a and toks[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(toks[i])
                i += 1
        toks = out
    return toks


def sequence_lengths(sentence, merges):
    words = sentence.split()
    return {
        "char": sum(len(w) + 1 for w in words),
        "bpe": sum(len(tokenize(w, merges)) for w in words),
        "word": len(words),
    }


def vocab_tradeoff(corpus, sizes, d_model):
    from collections import Counter

    counts = Counter(w for doc in corpus for w in doc.split())
    base = len(set("".join(counts))) + 1
    rows = []
    for size in sizes:
        merges = train_bpe(dict(counts), max(0, size - base))
        tokens = [len(tokenize(w, merges)) for doc in corpus for w in doc.split()]
        rows.append({"size": size, "avg_tokens": sum(tokens) / len(corpus), "params": size * d_model})
    return rows
