"""Removing a directory tree whatever shape the sandbox user gave it: any depth, any name
length, any permissions its owner may set.

The walk holds one directory descriptor at a time (a call's rlimit on open files may be small,
and a tree deeper than it) and names every entry relative to it, so no path is ever longer
than one name. It keeps an explicit stack of the directories above instead of recursing, and
checks, on the way back up through ``..``, that it returns to the very directory it came
from (its device and inode), so a directory moved meanwhile cannot lead it elsewhere. A
directory its owner locked (mode 000) is given back its permissions before it is entered.
Symbolic links are removed, never followed.

:func:`grader.sandbox.worker.remove_tree` is the same walk on the untrusted side (the worker
imports nothing from the grader); change both together.
"""

from __future__ import annotations

import os
import stat

DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OWNER_ALL = stat.S_IRWXU
OPEN_LEVELS = 8


class TreeNotRemoved(OSError):
    """A tree could not be removed entirely: what is left may leak to a later call."""


def remove_tree(path: str) -> None:
    """Remove ``path`` (a file, a link or a whole directory tree); nothing if it is missing.
    Raises :class:`TreeNotRemoved` when something under it cannot be removed."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        parent_fd = os.open(parent, DIRECTORY_FLAGS & ~os.O_NOFOLLOW)
    except FileNotFoundError:
        return
    except OSError as error:
        raise TreeNotRemoved(f"cannot open {parent}: {error.strerror}") from None
    try:
        remove_entry(parent_fd, name)
    except TreeNotRemoved as error:
        raise TreeNotRemoved(f"cannot remove everything under {path}: {error}") from None
    finally:
        os.close(parent_fd)


def remove_entry(parent_fd: int, name: str) -> None:
    """Remove the entry ``name`` of the directory open as ``parent_fd``, whatever it holds."""
    if _unlinked(parent_fd, name):
        return
    fd = _enter(parent_fd, name)
    if fd is None:
        return
    levels = [_Level(name, fd)]  # the directories from ``name`` down to the one being emptied
    try:
        while levels:
            level = levels[-1]
            if not level.pending:
                # Listed again once emptied: removed when nothing new is found there.
                level.pending = _subdirectories(level.fd)
                if not level.pending:
                    levels.pop()
                    above = _reopened(levels[-1], level) if levels else parent_fd
                    os.close(level.fd)
                    level.fd = -1
                    _rmdir(above, level.name)
                    continue
            child = level.pending.pop()
            fd = _enter(level.fd, child)
            if fd is None:
                continue
            levels.append(_Level(child, fd))
            if len(levels) > OPEN_LEVELS:  # few descriptors: the far ones are reopened by ".."
                levels[-OPEN_LEVELS - 1].close()
    except TreeNotRemoved:
        raise
    except OSError as error:
        raise TreeNotRemoved(error.strerror or str(error)) from None
    finally:
        for level in levels:
            level.close()


class _Level:
    """One directory on the way down: its name in its parent, its descriptor (-1 once closed),
    its identity, and the subdirectories still to remove."""

    def __init__(self, name: str, fd: int) -> None:
        info = os.fstat(fd)
        self.name, self.fd, self.identity = name, fd, (info.st_dev, info.st_ino)
        self.pending: list[str] = []

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _reopened(level: _Level, below: _Level) -> int:
    """``level``'s descriptor, reopened as the parent of ``below`` if it was closed."""
    if level.fd < 0:
        fd = os.open("..", DIRECTORY_FLAGS & ~os.O_NOFOLLOW, dir_fd=below.fd)
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != level.identity:
            os.close(fd)
            raise TreeNotRemoved("a directory was moved while its tree was being removed")
        level.fd = fd
    return level.fd


def _unlinked(dir_fd: int, name: str) -> bool:
    """Unlink ``name`` unless it is a directory; whether nothing is left of it."""
    try:
        os.unlink(name, dir_fd=dir_fd)
        return True
    except FileNotFoundError:
        return True
    except OSError as error:  # a directory: EISDIR on Linux, EPERM on macOS
        failure = error
    try:
        if stat.S_ISDIR(os.lstat(name, dir_fd=dir_fd).st_mode):
            return False
    except FileNotFoundError:
        return True
    raise TreeNotRemoved(f"cannot remove {name[:80]!r}: {failure.strerror}")


def _enter(dir_fd: int, name: str) -> int | None:
    """A descriptor of the directory ``name`` with its owner's permissions restored; None
    when it is gone."""
    try:
        fd = os.open(name, DIRECTORY_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except PermissionError:
        # Locked by its owner, who may give the permissions back; root never gets here.
        before = os.lstat(name, dir_fd=dir_fd)
        if not stat.S_ISDIR(before.st_mode):
            raise TreeNotRemoved(f"{name[:80]!r} is not a directory") from None
        os.chmod(name, OWNER_ALL, dir_fd=dir_fd)
        fd = os.open(name, DIRECTORY_FLAGS, dir_fd=dir_fd)
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
            os.close(fd)
            raise TreeNotRemoved(f"{name[:80]!r} was replaced while being removed") from None
    try:
        info = os.fstat(fd)
        if info.st_mode & OWNER_ALL != OWNER_ALL and info.st_uid == os.geteuid():
            os.fchmod(fd, stat.S_IMODE(info.st_mode) | OWNER_ALL)
    except OSError:
        os.close(fd)
        raise
    return fd


def _subdirectories(dir_fd: int) -> list[str]:
    """Unlink every entry of the directory that is not a directory; the names of the rest."""
    found = []
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) or not _unlinked(dir_fd, entry.name):
                found.append(entry.name)
    return found


def _rmdir(dir_fd: int, name: str) -> None:
    try:
        os.rmdir(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass
