"""Raises an exception whose __str__ itself raises."""


class Sneaky(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")


def train_bpe(corpus, num_merges):
    raise Sneaky()
