"""Returns an iterator that never ends."""
import itertools


def train_bpe(corpus, num_merges):
    return itertools.repeat(("a", "b"))
