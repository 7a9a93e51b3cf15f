"""The grading's prepared work kept on disk, so only the first grading of an exercise computes it.

What :mod:`grader.grading.prepared` lists (generated inputs with the reference's values on
them, the efficiency check's corpus) depends only on the exercise, the seed secret and the
code that computes it. The first grading under one such key stores it in a file; later
gradings, in any process, load it in milliseconds instead of running Hypothesis and the
reference again. The values are exactly the ones the checks would compute, so a report does
not depend on whether the file existed (durations aside).

The file is named by a hash of everything the values depend on: the exercise as validated,
the secret and the code (:func:`grader.spec.disk_cache.code_fingerprint`); nothing in the name tells
the secret or the inputs. It holds hidden inputs; where it lives and who may read it is
:mod:`grader.spec.disk_cache`'s.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Optional

from grader.spec import disk_cache
from grader.spec.disk_cache import ENVIRONMENT_VARIABLE, OFF, cache_directory, code_fingerprint
from grader.spec import Exercise

__all__ = ["ENVIRONMENT_VARIABLE", "OFF", "cache_directory", "code_fingerprint", "file_for",
           "load", "store"]


def file_for(exercise: Exercise, secret: Optional[str]) -> Optional[Path]:
    directory = cache_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(code_fingerprint().encode())
    digest.update(exercise.fingerprint.encode())
    digest.update(b"\0" + (b"public" if secret is None else b"secret:" + secret.encode()))
    return directory / f"{exercise.id}-{digest.hexdigest()[:32]}.pickle"


def load(exercise: Exercise, secret: Optional[str]) -> dict[tuple, Any]:
    """The stored prepared values of ``exercise`` under ``secret`` by piece key; {} when none."""
    values = disk_cache.load(file_for(exercise, secret))
    return values if isinstance(values, dict) else {}


def store(exercise: Exercise, secret: Optional[str], values: dict[tuple, Any]) -> None:
    """Keep ``values`` for later gradings; silently nothing when the folder cannot be written."""
    if values:
        disk_cache.store(file_for(exercise, secret), values)
