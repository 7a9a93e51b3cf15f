"""Writes 32 MB to stdout and stderr, then answers."""
import sys


def train_bpe(corpus, num_merges):
    line = "flood " * 170 + "\n"
    for _ in range(16 << 10):
        sys.stdout.write(line)
        sys.stderr.write(line)
    return [("flood", "ed")]
