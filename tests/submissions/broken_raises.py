# exercise: bpe-train-encode
"""Training raises KeyError on every input: it looks up a key it never stored."""


def train_bpe(corpus, num_merges):
    counts = {}
    for text in corpus:
        for word in text.split():
            counts[word] = counts.get(word, 0) + 1
    return [counts["the merge list"]]


def encode(word, merges):
    return list(word) + ["</w>"]
