"""The sandbox's temporary directories that graders killed before closing left on the host,
removed by the first sandbox of every grader (:mod:`grader.sandbox.tree_removal` removes
them, whatever their shape)."""

from __future__ import annotations

import functools
import os
import tempfile

from grader.sandbox import cgroups as sandbox_cgroups
from grader.sandbox.tree_removal import TreeNotRemoved, remove_tree

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
            try:
                remove_tree(path)
            except TreeNotRemoved:
                continue  # the next grader tries again; a sandbox of its own is elsewhere


@functools.lru_cache(maxsize=1)
def remove_leftovers_once() -> None:
    remove_leftovers()


def _owned_by_me(path: str) -> bool:
    try:
        return os.lstat(path).st_uid == os.geteuid()
    except OSError:
        return False
