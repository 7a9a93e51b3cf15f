"""Leaves a detached process behind that outlives the call (it sleeps 42.2718 s)."""
import os


def train_bpe(corpus, num_merges):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            try:
                os.execv("/bin/sleep", ["sleep", "42.2718"])
            finally:
                os._exit(0)
        os._exit(0)
    return [("a", "b")]
