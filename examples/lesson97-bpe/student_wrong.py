# exercise: lesson97-bpe
"""A submission with two mistakes students often make in this lesson.

1. Ties go to the smallest pair, ``min(pairs, key=lambda p: (-pairs[p], p))``, while the
   lesson's rule is the pair met first in the scan.
2. The character-level length counts letters only, forgetting each word's ``</w>``.

Its ``vocab_tradeoff`` is right for its own ``train_bpe``: the tie mistake costs points in
the training milestone only, not again in the trade-off.

Grade it with:  grade submit examples/lesson97-bpe/student_wrong.py
"""

END = "</w>"


def get_stats(vocab):
    pairs = {}
    for word, freq in vocab.items():
        for i in range(len(word) - 1):
            pair = (word[i], word[i + 1])
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs


def merge_word(word, pair):
    a, b = pair
    out, i = [], 0
    while i < len(word):
        if i < len(word) - 1 and word[i] == a and word[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def train_bpe(corpus, num_merges):
    vocab = {tuple(word) + (END,): count for word, count in corpus.items()}
    merges = []
    for _ in range(num_merges):
        pairs = get_stats(vocab)
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))  # mistake 1: the wrong tie rule
        vocab = {merge_word(word, best): freq for word, freq in vocab.items()}
        merges.append((best, best[0] + best[1]))
    return merges


def tokenize(word, merges):
    tokens = tuple(word) + (END,)
    for pair, _token in merges:
        tokens = merge_word(tokens, tuple(pair))
    return list(tokens)


def sequence_lengths(sentence, merges):
    words = sentence.split()
    return {
        "char": sum(len(word) for word in words),  # mistake 2: no </w> counted
        "bpe": sum(len(tokenize(word, merges)) for word in words),
        "word": len(words),
    }


def vocab_tradeoff(corpus, sizes, d_model):
    counts = {}
    for document in corpus:
        for word in document.split():
            counts[word] = counts.get(word, 0) + 1
    base = len({ch for word in counts for ch in word}) + 1
    rows = []
    for size in sizes:
        merges = train_bpe(counts, max(0, size - base))
        total = sum(len(tokenize(word, merges)) for document in corpus for word in document.split())
        rows.append({"size": size, "avg_tokens": total / len(corpus), "params": size * d_model})
    return rows
