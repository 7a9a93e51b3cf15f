"""Hangs while being imported (bounded to 30 s in case nothing stops it)."""
import time

end = time.monotonic() + 30
while time.monotonic() < end:
    pass


def train_bpe(corpus, num_merges):
    return []
