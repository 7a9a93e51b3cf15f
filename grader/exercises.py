"""Finding the shipped exercise specs, installed or in a checkout.

Where the folder itself lives, installed or in a checkout, is :mod:`grader.package_data`'s
business.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from .package_data import data_dir
from .spec import SpecError, available_exercises


def exercises_dir() -> Path:
    """The directory holding the shipped ``*.yaml`` exercise specs."""
    return data_dir("exercises")


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
