"""Hermetic calls: nothing one call writes, starts or keeps in memory is there for a later
call, whichever mechanism provides it.

Each channel is tried twice: within one call, where it must work (so the test can fail), and
from one call to the next, where it must carry nothing. Every test runs with the layers this
host has, and again as in a default container on a cgroup-v2-only host (no namespaces, no
cgroups: the dedicated uid, Landlock, seccomp, rlimits and the fork server only).
"""

from __future__ import annotations

import functools
import secrets
import textwrap
import time
from pathlib import Path

import pytest

from grader.sandbox.api import Sandbox, SandboxLimits, probe_layers

LAYERS = probe_layers()
LIMITS = SandboxLimits(call_seconds=2.0, memory_mib=256, total_seconds=60.0)
CONTAINER_LIKE = {"network-namespace": False, "pid-namespace": False, "mount-isolation": False,
                  "pids-cgroup": False, "memory-cgroup": False}

CHANNELS = '''
import functools
import gc
import os
import random
import re
import sys
import threading
import time

DRAWN_AT_IMPORT = random.random()
SEEN = []
TICKS = [0]


def _tick():
    while True:
        TICKS[0] += 1
        time.sleep(0.005)


threading.Thread(target=_tick, daemon=True).start()  # started at import


def ticks():
    return TICKS[0]


def _spy(function):
    def spy(*args, **kwargs):
        SEEN.append(repr(args)[:10000])
        return function(*args, **kwargs)
    return spy


# Wrap every function of the process that imports this module (the worker, whichever it is),
# so that arguments passing through them are remembered in memory.
_main = sys.modules.get("__main__")
if _main is not None:
    for _name, _value in list(vars(_main).items()):
        if type(_value).__name__ == "function" and not _name.startswith("__"):
            setattr(_main, _name, _spy(_value))


def _places():
    here = os.getcwd()
    return [here, os.environ["HOME"], os.environ["TMPDIR"], os.path.dirname(here), "/tmp"]


def stash(secret):
    """Write the secret wherever this call can; report where it could."""
    written = []
    for place in _places():
        try:
            with open(os.path.join(place, "bpe-stash-" + secret), "w") as handle:
                handle.write(secret)
            written.append(place)
        except OSError:
            pass
    return written


def find_stash(_):
    found = []
    for place in _places():
        try:
            names = os.listdir(place)
        except OSError:
            continue
        found += [name for name in names if name.startswith("bpe-stash-")]
    return sorted(set(found))


def stash_and_find(secret):
    return [stash(secret), find_stash(None)]


def remember(secret):
    return "kept"


def recall(secret):
    """Every secret-looking string this process can find in its memory."""
    found = [text for text in SEEN if "SECRET-" in text]
    for value in gc.get_objects():
        if type(value) in (list, tuple, dict):
            items = value.values() if type(value) is dict else value
            found += [item for item in items if type(item) is str and item.startswith("SECRET-")]
    return sorted(set(match for text in found for match in re.findall("SECRET-[0-9a-z]+", text)))


def start_beat(_):
    """Start a thread that keeps writing a counter to this call's home; it runs meanwhile."""
    path = os.path.join(os.environ["HOME"], "beat")

    def beat():
        count = 0
        while True:
            count += 1
            for target in (path, "/tmp/bpe-beat"):
                try:
                    with open(target, "w") as handle:
                        handle.write(str(count))
                except OSError:
                    pass
            time.sleep(0.005)

    threading.Thread(target=beat).start()
    time.sleep(0.1)
    return [path, _read(path) is not None, threading.active_count()]


def beat_seen(path):
    """Whether a counter written by a thread is still moving, and how many threads run here."""
    moving = []
    for target in (path, "/tmp/bpe-beat"):
        first = _read(target)
        time.sleep(0.1)
        moving.append(first is not None and _read(target) != first)
    return [moving, threading.active_count()]


def _read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return None


@functools.lru_cache(maxsize=None)
def cached_draw(key):
    return random.random()


def spin_ticks(seconds):
    start = TICKS[0]
    time.sleep(seconds)
    return TICKS[0] - start


def draws(key):
    """A random tie-break drawn at import, and one cached per key: the same in one call."""
    return [DRAWN_AT_IMPORT, cached_draw(key), cached_draw(key)]
'''


@pytest.fixture(params=["as-probed", "container-like", "container-like-unmeasured"])
def box(request, tmp_path: Path):
    """The sandbox; "unmeasured": calls as the checks make them, without their CPU time, so
    that (with no cgroup to measure it) the answer comes before the call's processes are
    reaped."""
    container_like = request.param.startswith("container-like")
    if container_like and not (LAYERS["landlock"] or LAYERS["mount-isolation"]):
        pytest.skip("neither Landlock nor mount isolation here: writes are not confined")
    path = tmp_path / "student.py"
    path.write_text(textwrap.dedent(CHANNELS))
    with Sandbox(path, limits=LIMITS) as opened:
        if container_like:
            opened.layers = {**opened.layers, **CONTAINER_LIKE}
        if request.param.endswith("unmeasured"):
            opened.call = functools.partial(opened.call, measure_cpu=False)
        assert opened.load().ok
        yield opened


def test_files_written_by_one_call_are_gone_for_the_next(box):
    secret = "SECRET-" + secrets.token_hex(4)
    written = box.call("stash", [secret]).value
    assert written, "the call could not write anywhere"
    assert box.call("find_stash", [None]).value == []


def test_a_file_written_in_a_call_is_there_within_that_call(box):
    # The control for the test above: the call's private directory is writable and readable.
    written, found = box.call("stash_and_find", ["SECRET-control"]).value
    assert len(written) >= 3  # its directory, which is also its HOME and TMPDIR
    assert found == ["bpe-stash-SECRET-control"]


def test_memory_of_one_call_is_not_in_the_next(box):
    secret = "SECRET-" + secrets.token_hex(8)
    within = box.call("recall", [secret]).value
    assert secret in within, "the spy saw nothing even within the call"
    assert box.call("remember", [secret]).value == "kept"
    later = box.call("recall", ["SECRET-later"]).value
    assert secret not in later
    assert later == ["SECRET-later"]


def test_a_thread_started_in_one_call_is_gone_before_the_next(box):
    path, beating, threads = box.call("start_beat", [None]).value
    assert beating and threads >= 2, "the thread did not run within its call"
    moving, threads_now = box.call("beat_seen", [path]).value
    assert moving == [False, False]
    assert threads_now == threads - 1  # only this call's own import-time thread


def test_a_thread_started_at_import_does_not_run_between_calls(box):
    box.call("ticks", [])
    time.sleep(0.5)  # a thread that lived on between calls would tick about 100 times here
    assert box.call("ticks", []).value < 40
    within = box.call("spin_ticks", [0.3]).value
    assert within >= 20, "the import-time thread did not run even within a call"


def test_random_draws_and_caches_do_not_carry_from_call_to_call(box):
    first = box.call("draws", ["key"]).value
    second = box.call("draws", ["key"]).value
    assert first[1] == first[2] and second[1] == second[2]  # the cache works within a call
    assert first[0] != second[0], "the value drawn at import is the same in every call"
    assert first[1] != second[1], "the cache carried a draw to the next call"
