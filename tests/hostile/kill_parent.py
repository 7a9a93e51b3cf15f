"""Kills its parent process (the worker), then answers."""
import os
import signal
import time


def train_bpe(corpus, num_merges):
    try:
        os.kill(os.getppid(), signal.SIGKILL)
    except OSError:
        pass
    time.sleep(0.2)
    return [("still", "here")]


def ping():
    return "pong"
