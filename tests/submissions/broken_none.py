# exercise: bpe-train-encode
"""Forgot the return statements: both functions return None."""


def train_bpe(corpus, num_merges):
    merges = []
    merges.append(("a", "b"))


def encode(word, merges):
    tokens = list(word) + ["</w>"]
