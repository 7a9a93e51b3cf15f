"""The grading's prepared work kept on disk, so only the first grading of an exercise computes it.

What :mod:`grader.grading.prepared` lists (generated inputs with the reference's values on
them, the efficiency check's corpus) depends only on the exercise, the seed secret and the
code that computes it. The first grading under one such key stores it in a file; later
gradings, in any process, load it in milliseconds instead of running Hypothesis and the
reference again. The values are exactly the ones the checks would compute, so a report does
not depend on whether the file existed (durations aside).

The file is named by a hash of everything the values depend on: the exercise as validated,
the secret, the grader's and the reference's source files (path, size, modification time),
and the versions of Python and Hypothesis; nothing in the name tells the secret or the inputs.
It holds hidden inputs, so the folder is the grader's alone (mode 0700, files 0600) and lies
outside what a sandbox can read. ``GRADE_CACHE_DIR`` moves it; ``GRADE_CACHE_DIR=off``
switches the cache off. A folder that cannot be written, or a file that cannot be read back,
only costs the time of computing the values again.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
import tempfile
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any, Optional

from grader.spec import Exercise

ENVIRONMENT_VARIABLE = "GRADE_CACHE_DIR"
OFF = "off"
FORMAT = 1
_SOURCE_PACKAGES = ("grader", "reference")


def cache_directory() -> Optional[Path]:
    """Where prepared work is kept, or None when the cache is off."""
    chosen = os.environ.get(ENVIRONMENT_VARIABLE)
    if chosen is not None:
        return None if chosen.strip().lower() in {OFF, ""} else Path(chosen)
    if os.geteuid() == 0:
        return Path("/var/cache/bpe-autograder/prepared")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bpe-autograder" / "prepared"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of the source the prepared values come from, and of what generates inputs."""
    digest = hashlib.sha256(f"{FORMAT} {sys.version}".encode())
    try:
        digest.update(metadata.version("hypothesis").encode())
    except metadata.PackageNotFoundError:
        digest.update(b"no hypothesis")
    here = Path(__file__).resolve().parents[2]
    for package in _SOURCE_PACKAGES:
        for path in sorted((here / package).rglob("*.py")):
            try:
                status = path.stat()
            except OSError:
                continue
            digest.update(f"{path.relative_to(here)} {status.st_size} {status.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def file_for(exercise: Exercise, secret: Optional[str]) -> Optional[Path]:
    directory = cache_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(code_fingerprint().encode())
    digest.update(exercise.model_dump_json().encode())
    digest.update(b"\0" + (b"public" if secret is None else b"secret:" + secret.encode()))
    return directory / f"{exercise.id}-{digest.hexdigest()[:32]}.pickle"


def load(exercise: Exercise, secret: Optional[str]) -> dict[tuple, Any]:
    """The stored prepared values of ``exercise`` under ``secret`` by piece key; {} when none."""
    path = file_for(exercise, secret)
    if path is None:
        return {}
    try:
        with open(path, "rb") as stored:
            if os.fstat(stored.fileno()).st_uid != os.geteuid():
                return {}  # only a file this grader wrote is trusted
            values = pickle.load(stored)
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError,
            IndexError, TypeError, ValueError):
        return {}
    return values if isinstance(values, dict) else {}


def store(exercise: Exercise, secret: Optional[str], values: dict[tuple, Any]) -> None:
    """Keep ``values`` for later gradings; silently nothing when the folder cannot be written."""
    path = file_for(exercise, secret)
    if path is None or not values:
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".writing-")
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump(values, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        return
