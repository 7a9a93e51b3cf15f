"""Writing do-nothing submissions for the tests, as ``grade audit`` does."""

from __future__ import annotations

from pathlib import Path

from grader.spec import Exercise
from grader.spec.registry import family_of


def write_do_nothing(exercise: Exercise, directory: Path, kind: str) -> Path:
    """The ``kind`` do-nothing submission of ``exercise``'s family, written to ``directory``."""
    path = Path(directory) / f"do_nothing_{kind}.py"
    path.write_text(family_of(exercise).do_nothing(exercise)[kind], encoding="utf-8")
    return path
