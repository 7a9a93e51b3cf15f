"""Calls os._exit(0) while being imported."""
import os

os._exit(0)


def train_bpe(corpus, num_merges):
    return []
