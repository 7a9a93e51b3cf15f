# exercise: bpe-train-encode
"""Correct with plain dicts and lists only; encode replays each merge in order (one pass per rule)."""


def train_bpe(corpus, num_merges):
    vocab = {}
    for text in corpus:
        for word in text.split():
            key = " ".join(list(word) + ["</w>"])
            vocab[key] = vocab.get(key, 0) + 1
    words = [(key.split(" "), count) for key, count in vocab.items()]
    merges = []
    while len(merges) < num_merges:
        counts = {}
        for symbols, count in words:
            for i in range(len(symbols) - 1):
                pair = (symbols[i], symbols[i + 1])
                counts[pair] = counts.get(pair, 0) + count
        if len(counts) == 0:
            break
        top = max(counts.values())
        best = sorted(p for p, c in counts.items() if c == top)[0]
        merges.append(best)
        new_words = []
        for symbols, count in words:
            out = []
            i = 0
            while i < len(symbols):
                if i < len(symbols) - 1 and symbols[i] == best[0] and symbols[i + 1] == best[1]:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(symbols[i])
                    i += 1
            new_words.append((out, count))
        words = new_words
    return merges


def encode(word, merges):
    tokens = list(word) + ["</w>"]
    for a, b in merges:
        out = []
        i = 0
        while i < len(tokens):
            if i < len(tokens) - 1 and tokens[i] == a and tokens[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(tokens[i])
                i += 1
        tokens = out
    return tokens
