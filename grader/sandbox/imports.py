"""Third-party modules an exercise lets students import, copied where the worker can read them.

The worker runs with the standard library only (``-I -S``; Landlock and the private root show
no installed packages). A spec's ``allowed_imports`` names the exceptions: each module is
found in the grader's own environment and its files are copied beside the worker, in an
``imports`` folder the worker puts on its path. Nothing else installed becomes importable.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterable, Iterator


class ImportNotInstalled(ValueError):
    """An allowed module is not installed beside the grader; the message says how to fix it."""


def module_files(modules: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(host file, path relative to the imports folder) of every file of ``modules``."""
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin in (None, "built-in", "frozen"):
            raise ImportNotInstalled(
                f"the exercise lets students import {name!r}, but it is not installed beside "
                f"the grader: install it (pip install {name}) where bpe-autograder is installed")
        if spec.submodule_search_locations:  # a package: its whole folder
            for folder in spec.submodule_search_locations:
                yield from _tree(folder, os.path.basename(folder))
        else:
            yield spec.origin, os.path.basename(spec.origin)


FOLDER = "imports"  # beside the worker script; the worker puts it on its path


def copy_files(files: Iterable[tuple[str, str]], worker_folder: str) -> None:
    """Copy ``files`` (from :func:`module_files`) beside the worker, readable by any uid."""
    for host_file, relative in files:
        target = os.path.join(worker_folder, FOLDER, relative)
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        shutil.copyfile(host_file, target)
        os.chmod(target, 0o644)


def root_copies(files: Iterable[tuple[str, str]], worker_folder: str,
                inside_folder: str) -> tuple[tuple[str, str, bool], ...]:
    """The files copied by :func:`copy_files`, as copies into a private root whose worker
    script lives in ``inside_folder``."""
    return tuple((os.path.join(worker_folder, FOLDER, relative),
                  os.path.join(inside_folder, FOLDER, relative), False) for _, relative in files)


def _tree(folder: str, prefix: str) -> Iterator[tuple[str, str]]:
    for directory, subfolders, files in os.walk(folder):
        subfolders[:] = [s for s in subfolders if s != "__pycache__"]
        for file in files:
            if file.endswith(".pyc"):
                continue
            path = os.path.join(directory, file)
            yield path, os.path.join(prefix, os.path.relpath(path, folder))
