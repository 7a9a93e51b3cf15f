"""A uid of its own for every sandbox open at the same time on one machine.

When the grader is root, student code runs as an unprivileged uid. Two sandboxes sharing one
uid could signal, trace or cap each other (RLIMIT_NPROC counts every task of a uid), and read
each other's shared-memory files. So each open :class:`~grader.sandbox.api.Sandbox` leases a
uid from a pool for as long as it is open: an exclusive ``flock`` on one lock file per uid in a
directory only root may write, released when the sandbox closes or its process dies.

The pool is the 64 uids below ``nobody`` (65470-65533: Debian reserves 65000-65533 and
allocates none of them), minus any uid that names an account on this system;
``GRADE_SANDBOX_UIDS=FIRST-LAST`` sets another range. ``nobody`` itself is never leased, as
other software runs as it. A leased uid is the sandbox's alone, so its worker may signal every
process of that uid (all of them the call's) where it cannot list them.
``GRADE_SANDBOX_UID`` pins one uid for every sandbox (one grading at a time per uid). When
every uid of the pool is leased the next sandbox waits for one, up to :data:`WAIT_SECONDS`,
then shares ``nobody``.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import signal
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass

NOBODY = 65534
PINNED_VARIABLE = "GRADE_SANDBOX_UID"
RANGE_VARIABLE = "GRADE_SANDBOX_UIDS"
POOL_SIZE = 64
LOCK_DIRECTORIES = ("/run/bpe-autograder/sandbox-uids", "/var/lock/bpe-autograder-sandbox-uids")
WAIT_SECONDS = 60.0


@dataclass
class UidLease:
    """The uid a sandbox runs student code as; ``own`` when no other sandbox may use it."""

    uid: int
    own: bool
    _fd: int | None = None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the file drops the flock
            self._fd = None


def pinned_uid() -> int | None:
    """The uid ``GRADE_SANDBOX_UID`` pins, if it names a valid unprivileged one."""
    value = os.environ.get(PINNED_VARIABLE, "")
    if value.isdigit() and 0 < int(value) < (1 << 31):
        return int(value)
    return None


def pool() -> list[int]:
    """The uids sandboxes may lease, highest first."""
    return [uid for uid in _configured_range() if not _has_account(uid)]


def _configured_range() -> list[int]:
    """The uids of the pool's range, highest first, accounts or not (``nobody`` never)."""
    first, last = NOBODY - POOL_SIZE, NOBODY - 1
    configured = os.environ.get(RANGE_VARIABLE, "").split("-")
    if len(configured) == 2 and all(part.isdigit() for part in configured):
        low, high = sorted(int(part) for part in configured)
        if 0 < low and high < (1 << 31):
            first, last = low, min(high, low + 4095)
    return [uid for uid in range(last, first - 1, -1) if uid != NOBODY]


def lease(wait_seconds: float = WAIT_SECONDS) -> UidLease:
    """A uid no other sandbox on this machine holds, or a shared one when none is free."""
    pinned = pinned_uid()
    if pinned is not None:
        return UidLease(pinned, own=False)
    directory = _lock_directory()
    candidates = _configured_range()  # an account is looked up only for a uid about to be taken
    if directory is None or not candidates:
        return UidLease(NOBODY, own=False)
    deadline = time.monotonic() + wait_seconds
    # Start at a place of our own, so that parallel graders do not all race for the first uid.
    start = os.getpid() % len(candidates)
    ordered = candidates[start:] + candidates[:start]
    while ordered:
        for uid in list(ordered):
            held = _try_lock(directory, uid)
            if held is not None and _has_account(uid):
                os.close(held)
                ordered.remove(uid)  # an account's uid is never leased
            elif held is not None:
                return UidLease(uid, own=True, _fd=held)
        if ordered and time.monotonic() < deadline:
            time.sleep(0.05)
        else:
            break
    return UidLease(NOBODY, own=False)


def processes_of(uid: int) -> Iterator[tuple[int, dict[str, str]]]:
    """(pid, fields of ``/proc/PID/status``) of every process whose real uid is ``uid``.
    Read from ``status``: the sandbox's processes are not dumpable, so their ``/proc``
    entries belong to root."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                text = handle.read()
            start = text.index("\nUid:") + len("\nUid:")
            if int(text[start:start + 32].split(None, 1)[0]) != uid:
                continue  # most processes: the rest of their status is never parsed
            fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
            yield int(entry), fields
        except (OSError, ValueError, IndexError):
            continue


def kill_processes_of(held: UidLease) -> None:
    """SIGKILL every process of a uid leased to one sandbox (all of them its own), stopped or
    orphaned ones too: the last word once its worker is gone."""
    if not held.own:
        return
    for _ in range(50):
        found = [pid for pid, _ in processes_of(held.uid)]
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def _lock_directory() -> str | None:
    """A directory only root can write for the lock files, made if need be; None if none."""
    for directory in LOCK_DIRECTORIES:
        try:
            os.makedirs(directory, mode=0o700, exist_ok=True)
            info = os.lstat(directory)
        except OSError:
            continue
        if (stat.S_ISDIR(info.st_mode) and info.st_uid == 0
                and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
            return directory
    return None


def _try_lock(directory: str, uid: int) -> int | None:
    try:
        fd = os.open(os.path.join(directory, f"{uid}.lock"),
                     os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd
