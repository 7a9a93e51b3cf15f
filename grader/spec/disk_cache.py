"""The grader's own files of work kept between runs: where they live, what they are keyed by,
and how they are written and read back.

Two stages keep work on disk: validated exercise specs (:mod:`grader.spec.spec_cache`, in
the ``specs`` folder) and the gradings' prepared work (:mod:`grader.grading.prepared_cache`).
Both are pickles the grader wrote for itself, so the folders are the grader's alone (mode
0700, files 0600): outside what a sandbox can read, and a file another user wrote is never
trusted. Nor is a folder another account could write (as ``ssh`` refuses a group-writable
key): there, that account could swap one kept file for another of the grader's own. The folder
must belong to this account (or root) and be writable by no one else, and every folder above it
must too, unless it is sticky (like ``/tmp``);
otherwise the grader works without it and says so once on standard error. ``GRADE_CACHE_DIR``
moves it; ``GRADE_CACHE_DIR=off`` switches it off. A folder that cannot be written, or a file that
cannot be read back, only costs the time of computing the values again.

Every file is named by a hash of what its values depend on, the grader's own source among
it (:func:`code_fingerprint`), so an edited checkout or another version never reads them.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import stat
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Optional

ENVIRONMENT_VARIABLE = "GRADE_CACHE_DIR"
OFF = "off"
FORMAT = 2
_SOURCE_PACKAGES = ("grader", "reference")
SPECS = "specs"
"""The subfolder of the cache folder that holds the validated specs."""
_GENERATOR = "hypothesis"
"""The library generating inputs: another version may generate other ones."""


def cache_directory() -> Optional[Path]:
    """Where the grader keeps its work, or None when the cache is off or its folder is not
    the grader's alone."""
    chosen = _chosen_directory()
    if chosen is None:
        return None
    problem = untrusted_because(chosen)
    if problem is not None:
        _warn_once(f"grade: not using the cache folder {chosen}: {problem}; working without it")
        return None
    return chosen


def _chosen_directory() -> Optional[Path]:
    chosen = os.environ.get(ENVIRONMENT_VARIABLE)
    if chosen is not None:
        return None if chosen.strip().lower() in {OFF, ""} else Path(chosen)
    if os.geteuid() == 0:
        return Path("/var/cache/bpe-autograder/prepared")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bpe-autograder" / "prepared"


def untrusted_because(folder: Path) -> Optional[str]:
    """Why another account could change what ``folder`` holds, or None when it cannot."""
    real = Path(os.path.realpath(folder))
    me = os.geteuid()
    for kept in (real, real / SPECS):  # the folders holding the files: no one else's
        try:
            info = os.stat(kept)
        except OSError:  # missing, or out of reach: then no file is read from it either
            continue
        if info.st_uid not in (me, 0):  # root could change anything anyway
            return f"{kept} belongs to another account (uid {info.st_uid})"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return f"{kept} is writable by other accounts (mode {stat.S_IMODE(info.st_mode):04o})"
    for above in real.parents:
        try:
            info = os.stat(above)
        except OSError:
            continue
        if info.st_uid not in (me, 0):
            return f"{above} belongs to another account (uid {info.st_uid})"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not info.st_mode & stat.S_ISVTX:
            return f"{above} is writable by other accounts (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        print(message, file=sys.stderr)


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of the grader's and the reference's source (path, size, modification time of
    every file), of Python's version and of the input generator's installed files."""
    digest = hashlib.sha256(f"{FORMAT} {sys.version}".encode())
    here = str(Path(__file__).resolve().parents[2])
    for package in _SOURCE_PACKAGES:
        for parts, size, modified in sorted(_python_files(here, (package,))):
            digest.update(f"{'/'.join(parts)} {size} {modified}\n".encode())
    generator = importlib.util.find_spec(_GENERATOR)  # found, not imported
    if generator is None or not generator.submodule_search_locations:
        digest.update(f"no {_GENERATOR}".encode())
        return digest.hexdigest()
    folder = Path(next(iter(generator.submodule_search_locations)))
    for name in ("__init__.py", "version.py"):
        try:
            status = (folder / name).stat()
        except OSError:
            continue
        digest.update(f"{folder.name}/{name} {status.st_size} {status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _python_files(root: str, folder: tuple[str, ...]) -> list[tuple[tuple[str, ...], int, int]]:
    """(path parts below ``root``, size, modification time) of every ``.py`` file in
    ``folder`` and below it."""
    found = []
    try:
        entries = list(os.scandir(os.path.join(root, *folder)))
    except OSError:
        return found
    for entry in entries:
        try:
            if entry.is_dir():
                found += _python_files(root, (*folder, entry.name))
            elif entry.name.endswith(".py"):
                status = entry.stat()
                found.append(((*folder, entry.name), status.st_size, status.st_mtime_ns))
        except OSError:
            continue
    return found


def load(path: Optional[Path]) -> Any:
    """The value pickled at ``path`` by this grader, or None (no file, another user's file,
    a file that cannot be read back)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as stored:
            if os.fstat(stored.fileno()).st_uid != os.geteuid():
                return None  # only a file this grader wrote is trusted
            return pickle.load(stored)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError,
            IndexError, TypeError, ValueError):
        return None


def store(path: Optional[Path], value: Any) -> None:
    """Pickle ``value`` at ``path``, whole or not at all; silently nothing when the folder
    cannot be written."""
    root = cache_directory()
    if path is None or root is None:
        return
    try:
        for folder in dict.fromkeys((root, path.parent)):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(folder, 0o700)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".writing-")
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return
