"""Finding the shipped exercise specs, installed or in a checkout.

An installed wheel carries them beside this module in ``grader/exercises/`` (pyproject.toml maps
the top-level ``exercises/`` there); a checkout keeps them in ``exercises/`` at the top level.
The installed location is tried first. The directory must not get an ``__init__.py``: that
would make ``grader/exercises/`` a package that hides this module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .spec import SpecError, available_exercises

_GRADER_DIR = Path(__file__).resolve().parent
_CHECKOUT_DIR = _GRADER_DIR.parent


def _first_existing(name: str) -> Path:
    candidates = (_GRADER_DIR / name, _CHECKOUT_DIR / name)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"the shipped {name}/ directory is missing (looked in "
        f"{', '.join(str(c) for c in candidates)}); reinstall bpe-autograder"
    )


def exercises_dir() -> Path:
    """The directory holding the shipped ``*.yaml`` exercise specs."""
    return _first_existing("exercises")


def exercise_paths() -> list[Path]:
    """Every shipped spec file, sorted by id."""
    return sorted(exercises_dir().glob("*.yaml"))


def exercise_ids() -> list[str]:
    return [path.stem for path in exercise_paths()]


def exercise_path(exercise_id: str) -> Optional[Path]:
    """The shipped spec with this id, or None."""
    path = exercises_dir() / f"{exercise_id}.yaml"
    return path if path.is_file() and exercise_id in exercise_ids() else None


__all__ = [
    "SpecError",
    "available_exercises",
    "exercise_ids",
    "exercise_path",
    "exercise_paths",
    "exercises_dir",
]
