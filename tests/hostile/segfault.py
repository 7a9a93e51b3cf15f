"""Dereferences a null pointer through ctypes."""
import ctypes


def train_bpe(corpus, num_merges):
    return ctypes.string_at(0)
