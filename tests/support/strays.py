"""The processes a run left behind: while :func:`adopting` is in force this process is a child
subreaper (Linux), so whatever a run it starts orphans becomes its child instead of init's;
:meth:`Adopted.strays` lists, kills and reaps the children that were not there when adopting
began (a daemon an earlier test started, already this process's child, is not a stray).

    with adopting() as adopted:
        subprocess.run(argv)
        assert adopted.strays() == []

Standard library only: ``grade_in_sequence.py`` uses it inside the environments it runs in.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from collections.abc import Iterator

PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37


def _set_subreaper(on: bool) -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def _is_subreaper() -> bool:
    flag = ctypes.c_int(0)
    ctypes.CDLL(None).prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    return bool(flag.value)


class Adopted:
    """The children this process had when adopting began; :meth:`strays` is every other one."""

    def __init__(self) -> None:
        self.before = set(_children())

    def strays(self, patience: float = 3.0) -> list[str]:
        """Children (pid and start time) that were not there before and are still running
        after ``patience`` seconds, as ``"pid: command line"``: killed and reaped."""
        deadline = time.monotonic() + patience
        while True:
            left = [child for child in _children()
                    if child not in self.before and not _zombie(child[0])]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        described = [f"{pid}: {_cmdline(pid)}" for pid, _ in left]
        for pid, _ in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _reap({child[0] for child in _children() if child not in self.before})
        return described


@contextlib.contextmanager
def adopting() -> Iterator[Adopted]:
    """This process is a child subreaper inside the block (and as before after it)."""
    was = _is_subreaper()
    _set_subreaper(True)
    try:
        yield Adopted()
    finally:
        if not was:
            _set_subreaper(False)


def _children() -> list[tuple[int, str]]:
    """This process's children, each as (pid, start time) so a reused pid is a new child."""
    found = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                pids = [int(part) for part in handle.read().split()]
        except OSError:
            continue
        found += [(pid, _started(pid)) for pid in pids]
    return found


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat") as handle:
        return handle.read().rsplit(")", 1)[1].split()


def _started(pid: int) -> str:
    try:
        return _stat(pid)[19]
    except (OSError, IndexError):
        return "?"


def _zombie(pid: int) -> bool:
    try:
        return _stat(pid)[0] == "Z"
    except (OSError, IndexError):
        return True


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"


def _reap(pids: set[int]) -> None:
    """Wait for each of ``pids`` (killed or exited), leaving other children alone."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
