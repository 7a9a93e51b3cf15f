"""Loops while ignoring every catchable signal (bounded to 30 s in case nothing stops it)."""
import signal
import time

for name in ("SIGTERM", "SIGINT", "SIGHUP", "SIGALRM", "SIGXCPU", "SIGUSR1"):
    signal.signal(getattr(signal, name), signal.SIG_IGN)


def train_bpe(corpus, num_merges):
    end = time.monotonic() + 30
    while time.monotonic() < end:
        pass
    return []
