"""Validated exercise specs kept on disk, so a spec is parsed and validated once per version.

Loading a spec (YAML, then the shape checked by pydantic, then the rules of its meaning) costs
a grading more than any of its own work but the student's. A spec that loads without a
problem is kept as its validated records, in a file named by a hash of everything its
validation depends on: the text of the file, where it lives and how messages name it, the
families defined besides the shipped ones, and the grader's own source
(:func:`grader.spec.disk_cache.code_fingerprint`, which covers every shipped family). The
next load of the same file reads it back and imports neither YAML nor pydantic; any edit to
the spec or to the grader is another name, so it is validated again.

Specs of a course's own family are not kept: their validation depends on code outside the
grader. Where the folder lives and who may read it is :mod:`grader.spec.disk_cache`'s.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Optional

from grader.spec import disk_cache
from grader.spec.registry import additions
from grader.spec.models import Exercise

SHIPPED_PACKAGE = "grader."
"""Where the models of the families whose validation the code fingerprint covers live."""


def file_for(path: Path, shown_as: str, text: str) -> Optional[Path]:
    """The file keeping the spec ``text`` read from ``path``, or None when the cache is off."""
    directory = disk_cache.cache_directory()
    if directory is None:
        return None
    digest = hashlib.sha256(disk_cache.code_fingerprint().encode())
    for part in (str(path.resolve()), shown_as, additions(), text):
        digest.update(b"\0" + part.encode("utf-8", "surrogatepass"))
    return directory / disk_cache.SPECS / f"{digest.hexdigest()[:32]}.pickle"


def load(path: Path, shown_as: str, text: str) -> Optional[Exercise]:
    """The exercise validated from this very text before, or None."""
    kept = disk_cache.load(file_for(path, shown_as, text))
    if not (isinstance(kept, tuple) and len(kept) == 2 and isinstance(kept[1], str)):
        return None
    exercise, fingerprint = kept
    if not isinstance(exercise, Exercise):
        return None
    exercise.keep_fingerprint(fingerprint)
    return exercise


def store(path: Path, shown_as: str, text: str, exercise: Exercise) -> None:
    """Keep ``exercise``, validated without a problem from ``text``, for later loads."""
    if type(exercise).__module__.startswith(SHIPPED_PACKAGE):
        disk_cache.store(file_for(path, shown_as, text), (exercise, exercise.fingerprint))
