"""Work of a grading that does not depend on the student's code, done ahead of the checks.

The generated inputs of the differential and property checks, the reference's values on them,
and the efficiency check's input depend only on the exercise and the seed secret
(:mod:`grader.grading.prepared` lists that work). :func:`prepare` computes them into the
caches the checks read (``grade batch`` and ``grade audit`` call it once, before forking their
gradings). :func:`start_helper` computes them in a
process forked at the start of one grading, so that it runs on another core while the sandbox
runs the student's code; a check takes each result when it first needs it (:func:`collect`,
waiting if it is not ready yet) and computes it itself when the helper has none. Generated
inputs also arrive one by one, as the helper finds them (:func:`arriving`), so the checks
judge the first ones while the rest are generated. Only the
grader's own code runs in the helper, before any sandbox exists, and the values are the ones
the checks would compute: a report does not depend on whether a helper ran (its durations
aside).

The reference's time on the corpus is measured per grading, never ahead: the helper times it
only when the efficiency check says go (:func:`go`), right as the student's trainer starts on
the other core, so both CPU times are taken side by side under the same load.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from grader.spec import Exercise

WAIT_SECONDS = 300.0
"""How long a check waits for the helper before computing a value itself."""

Key = tuple
Work = list[tuple[Key, Callable[..., Any]]]
"""Pieces of work ``(key, compute)`` in the order a grading needs them; ``compute(progress)``
may give ``progress`` parts of its value before returning it (:mod:`grader.grading.prepared`)."""


def generated_key(role: str, seed: Optional[int]) -> Key:
    return "generated", role, seed


def corpus_key(exercise: Exercise, secret: Optional[str]) -> Key:
    """The key of the timed input: the whole exercise is part of it, since two specs may share
    an id (a loaded value must never serve another spec)."""
    return "corpus", exercise.id, exercise.fingerprint, secret_digest(secret)


def secret_digest(secret: Optional[str]) -> Optional[str]:
    """The secret as a key may hold it: a key can be written to disk."""
    return None if secret is None else hashlib.sha256(secret.encode()).hexdigest()


def timing_key(exercise: Exercise, secret: Optional[str]) -> Key:
    """The key of the reference's timing: computed only once the check says go."""
    return "timing", exercise.id, secret


def prepare(pieces: Work) -> None:
    """Fill this process's caches with the values of ``pieces`` (none of them timed)."""
    for key, compute in pieces:
        if key[0] != "timing":
            compute()


# --------------------------------------------------------------------------- the helper


@dataclass
class Helper:
    """The parent's end of a helper process: what it will deliver, and what it has."""

    process: Any
    reader: Any
    pending: set = field(default_factory=set)
    received: dict = field(default_factory=dict)
    parts: dict = field(default_factory=dict)

    def go(self, key: Key) -> bool:
        if key not in self.pending:
            return False
        try:
            self.reader.send(key)
        except OSError:
            self.pending.clear()
            return False
        return True

    def collect(self, key: Key) -> Optional[Any]:
        while key not in self.received and key in self.pending:
            if not self._receive():
                break
        self.parts.pop(key, None)
        return self.received.pop(key, None)

    def arriving(self, key: Key) -> Iterator[Any]:
        """The parts of ``key``'s value as they arrive, until the value is complete (or the
        helper is gone); :meth:`collect` then gives the value itself."""
        index = 0
        while True:
            parts = self.parts.get(key, ())
            if index < len(parts):
                index += 1
                yield parts[index - 1]
            elif key in self.received or key not in self.pending or not self._receive():
                return

    def _receive(self) -> bool:
        """Take one message from the helper; False when it is gone (every check then
        computes its own values)."""
        try:
            if not self.reader.poll(WAIT_SECONDS):
                raise EOFError
            key, value, complete = self.reader.recv()
        except (EOFError, OSError):
            self.pending.clear()
            return False
        if complete:
            self.pending.discard(key)
            self.received[key] = value
        else:
            self.parts.setdefault(key, []).append(value)
        return True

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.reader.close()


_HELPER: list[Optional[Helper]] = [None]
_LOADED: dict[Key, Any] = {}
"""Values loaded from the cache of prepared work (:mod:`grader.grading.prepared_cache`)."""


def preload(values: dict[Key, Any]) -> None:
    """Make ``values`` (by key) what :func:`collect` gives, with or without a helper."""
    _LOADED.update(values)


def collect(key: Key) -> Optional[Any]:
    """The value for ``key``: loaded, or the helper's (waiting for it); None when neither."""
    if key in _LOADED:
        return _LOADED[key]
    helper = _HELPER[0]
    return helper.collect(key) if helper is not None else None


def arriving(key: Key) -> Iterator[Any]:
    """The helper's parts of ``key`` as they arrive; none when no helper computes it or the
    value is loaded."""
    helper = _HELPER[0]
    return helper.arriving(key) if helper is not None and key not in _LOADED else iter(())


def go(key: Key) -> bool:
    """Tell the helper to compute ``key`` now; False when no helper will."""
    helper = _HELPER[0]
    return helper.go(key) if helper is not None else False


def start_helper(pieces: Work) -> Optional[Helper]:
    """Fork a helper computing the grading's work, unless there is none or no second core."""
    if not pieces or free_cores() < 2:
        return None
    context = multiprocessing.get_context("fork")
    try:
        reader, writer = context.Pipe(duplex=True)
        process = context.Process(target=_helper_main, args=(pieces, writer), daemon=True)
        process.start()
    except OSError:  # no process to spare (a process cap): the checks compute it all
        return None
    writer.close()
    helper = Helper(process, reader, pending={key for key, _ in pieces})
    _HELPER[0] = helper
    return helper


def stop_helper(helper: Optional[Helper]) -> None:
    if helper is None:
        return
    if _HELPER[0] is helper:
        _HELPER[0] = None
    helper.stop()


def _helper_main(pieces: list[tuple[Key, Callable[[], Any]]], writer: Any) -> None:
    """The helper's whole life: it never writes to the terminal (not even what the grading
    process had buffered when it forked), leaves Ctrl-C to the grading process, which stops
    it, and ends quietly when that process is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdout = sys.stderr = open(os.devnull, "w")
    try:
        for key, compute in pieces:
            if key[0] == "timing" and writer.recv() != key:  # wait for the check's go
                break
            try:
                value = compute(_part_sender(writer, key))
            except Exception:  # noqa: BLE001 - the check computes it again and reports why
                value = None
            writer.send((key, value, True))
        writer.close()
    except (OSError, EOFError):
        pass
    os._exit(0)


def _part_sender(writer: Any, key: Key) -> Callable[[Any], None]:
    """Sends one part of ``key``'s value; a grading process that is gone is noticed when
    the value itself is sent."""
    def send(part: Any) -> None:
        try:
            writer.send((key, part, False))
        except (OSError, ValueError):
            pass

    return send


def free_cores() -> int:
    """Cores this process may run on, as far as its affinity and a cgroup v2 quota allow."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cores = min(cores, int(int(quota) / int(period)))
    except (OSError, ValueError):
        pass
    return cores
