"""Finding and loading exercise specs: shipped ones by id, any other by path."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

import yaml
from pydantic import ValidationError

from grader.package_data import data_dir
from grader.spec.messages import pydantic_problems
from grader.spec.models import Exercise
from grader.spec.problems import (
    ExerciseNotFound,
    Problem,
    SpecError,
    format_loc,
    in_file_order,
)
from grader.spec.rules import semantic_problems
from grader.spec.yaml_lines import parse_yaml


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



def load_exercise(id_or_path: Union[str, os.PathLike]) -> Exercise:
    """Load a shipped exercise by id, or any spec file by path; raise :class:`SpecError`."""
    path = _resolve(id_or_path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SpecError([Problem(display_path(path), None, "", f"cannot read the file: {error}")])
    exercise = parse_exercise(text, display_path(path), expected_id=path.stem)
    exercise._source = path
    return exercise


def _resolve(id_or_path: Union[str, os.PathLike]) -> Path:
    candidate = Path(id_or_path)
    if candidate.is_file():
        return candidate
    if candidate.suffix in (".yaml", ".yml") or len(candidate.parts) > 1:
        raise ExerciseNotFound([Problem(str(candidate), None, "", "no such file")])
    try:
        found = exercise_path(str(id_or_path))
        known = ", ".join(exercise_ids()) or "none"
    except FileNotFoundError as error:
        raise ExerciseNotFound([Problem(str(id_or_path), None, "", str(error))]) from None
    if found is None:
        raise ExerciseNotFound(
            [Problem(str(id_or_path), None, "", f"no exercise with this id; available: {known}")]
        )
    return found


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def parse_exercise(text: str, file: str = "<spec>", *, expected_id: Optional[str] = None) -> Exercise:
    """Validate the YAML ``text`` of a spec; ``file`` names it in messages."""
    try:
        data, document = parse_yaml(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        reason = error.problem or error.context or "invalid YAML"
        raise SpecError([Problem(file, line, "", f"YAML syntax error: {reason}")]) from None
    except yaml.YAMLError as error:
        raise SpecError([Problem(file, None, "", f"YAML error: {error}")]) from None

    problems = [
        Problem(file, second, format_loc(loc), f"duplicate key (first written on line {first})")
        for loc, first, second in document.duplicates
    ]
    if not isinstance(data, dict):
        what = "empty" if data is None else f"a {type(data).__name__}"
        problems.append(
            Problem(file, document.line_of(()), "", f"the spec is {what}; it must be a mapping "
                    "with id, title, lesson, instructions, conventions, functions, milestones, cases")
        )
        raise SpecError(problems)

    try:
        exercise = Exercise.model_validate(data)
    except ValidationError as error:
        problems += [
            Problem(file, document.line_of(loc), format_loc(loc), message)
            for loc, message in pydantic_problems(error)
        ]
        raise SpecError(in_file_order(problems)) from None

    problems += [
        Problem(file, document.line_of(loc), format_loc(loc), message)
        for loc, message in semantic_problems(exercise, expected_id=expected_id)
    ]
    if problems:
        raise SpecError(in_file_order(problems))
    exercise._file = file
    exercise._document = document
    return exercise


def available_exercises() -> list[Exercise]:
    """Every shipped exercise, loaded and validated (a broken one raises :class:`SpecError`)."""
    try:
        paths = exercise_paths()
    except FileNotFoundError as error:
        raise ExerciseNotFound([Problem("exercises", None, "", str(error))]) from None
    return [load_exercise(path) for path in paths]
