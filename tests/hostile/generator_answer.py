"""Returns a generator instead of a list."""


def train_bpe(corpus, num_merges):
    return ((c, c) for c in "abc")
