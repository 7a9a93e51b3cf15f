"""Allocates and touches memory in 16 MiB steps, up to 1 GiB."""


def train_bpe(corpus, num_merges):
    hoard = []
    for _ in range(64):
        hoard.append(bytearray(16 << 20))
    return len(hoard)
