"""Lifts the recursion limit and overflows the C stack with the repr of a deeply nested list."""
import sys


def train_bpe(corpus, num_merges):
    sys.setrecursionlimit(10**8)
    nested = []
    for _ in range(300_000):
        nested = [nested]
    return repr(nested)
