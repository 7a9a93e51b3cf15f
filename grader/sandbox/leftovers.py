"""The sandbox's temporary directories on the host: removing one (even where the worker, of
the same uid, took permissions away) and those that graders killed before closing left."""

from __future__ import annotations

import functools
import os
import tempfile

from grader.sandbox import cgroups as sandbox_cgroups

TEMP_PREFIX = "bpe-sandbox-"  # then the grader's pid, so leftovers of dead graders are known


def remove_leftovers() -> None:
    """Remove temporary directories and cgroups that graders which died (killed before they
    could close their sandbox) left behind. Safe to call any time: only leftovers of dead
    processes are touched. Runs once per grader process on its first sandbox."""
    sandbox_cgroups.remove_stale()
    remove_leftovers_in(tempfile.gettempdir())


def remove_leftovers_in(directory: str) -> None:
    """Remove the sandbox directories in ``directory`` whose grader has died."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        creator = name[len(TEMP_PREFIX):].split("-", 1)[0]
        path = os.path.join(directory, name)
        if (name.startswith(TEMP_PREFIX) and creator.isdigit()
                and not sandbox_cgroups.process_exists(int(creator))
                and _owned_by_me(path)):
            remove_tree(path)


@functools.lru_cache(maxsize=1)
def remove_leftovers_once() -> None:
    remove_leftovers()


def _owned_by_me(path: str) -> bool:
    try:
        return os.lstat(path).st_uid == os.geteuid()
    except OSError:
        return False


def remove_tree(path: str) -> None:
    """Remove a directory tree, even where the worker (same uid) took away permissions."""
    try:
        os.unlink(path)
        return
    except FileNotFoundError:
        return
    except OSError:
        pass
    try:
        if not os.path.islink(path):
            os.chmod(path, 0o700)
        for name in os.listdir(path):
            remove_tree(os.path.join(path, name))
        os.rmdir(path)
    except OSError:
        pass
