"""Writing do-nothing submissions for the tests, as ``grade audit`` does."""

from __future__ import annotations

from pathlib import Path

from grader.families.bpe import do_nothing
from grader.spec import Exercise


def write_do_nothing(exercise: Exercise, directory: Path, kind: str) -> Path:
    """The ``kind`` do-nothing submission to ``exercise``, written to ``directory``."""
    path = Path(directory) / f"do_nothing_{kind}.py"
    path.write_text(do_nothing.source(exercise, kind), encoding="utf-8")
    return path
