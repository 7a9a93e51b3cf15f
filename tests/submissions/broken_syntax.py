# exercise: bpe-train-encode
"""Does not compile: a missing colon on line 5."""


def train_bpe(corpus, num_merges)
    return []


def encode(word, merges):
    return list(word) + ["</w>"]
