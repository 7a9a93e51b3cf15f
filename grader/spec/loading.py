"""Finding and loading exercise specs: by id on a search path, or any spec file by path.

The search path is the ``--exercises-dir`` folders, then ``GRADE_EXERCISES_PATH``
(colon-separated), then the shipped exercises; a spec is found by the ``id`` it declares,
whatever its file name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional, Union

from grader.package_data import data_dir
from grader.spec import spec_cache
from grader.spec.family import FamilyError
from grader.spec.models import ID_PATTERN, Exercise
from grader.spec.registry import derive_family, families, family_named, use_course_dirs
from grader.spec.problems import (
    ExerciseNotFound,
    FamilyUnusable,
    Problem,
    SpecError,
    SpecUnreadable,
    format_loc,
    in_file_order,
)

MAX_SPEC_BYTES = 4_000_000
"""A larger file is refused before it is read: a spec is a few KB (the shipped ones, 12 KB at
most), and a multi-gigabyte file named by mistake must not fill the memory."""

ENV_VAR = "GRADE_EXERCISES_PATH"
"""Colon-separated folders of a course's own specs, searched by id before the shipped ones."""

_extra_dirs: list[Path] = []
_ID_LINE = re.compile(r"^id\s*:\s*['\"]?([^'\"\s#]+)", re.MULTILINE)


def exercises_dir() -> Path:
    """The directory holding the shipped ``*.yaml`` exercise specs."""
    return data_dir("exercises")


def use_exercise_dirs(dirs: Iterable[Union[str, os.PathLike]]) -> None:
    """Search these folders (``--exercises-dir``) for exercises by id, before the others."""
    _extra_dirs[:] = [Path(d) for d in dirs]
    _use_course_families()


def _use_course_families(*more: Path) -> None:
    """Course families are found in the ``families/`` folder of every folder searched for
    specs (and of the folder of a spec loaded by path)."""
    from_env = [Path(part) for part in os.environ.get(ENV_VAR, "").split(os.pathsep) if part]
    use_course_dirs([*more, *_extra_dirs, *from_env])


def search_dirs() -> list[Path]:
    """Where an id is looked up, in order: ``--exercises-dir`` folders, then the folders of
    ``GRADE_EXERCISES_PATH``, then the shipped exercises."""
    from_env = [Path(part) for part in os.environ.get(ENV_VAR, "").split(os.pathsep) if part]
    dirs = [*_extra_dirs, *from_env]
    try:
        dirs.append(exercises_dir())
    except FileNotFoundError:
        if not dirs:
            raise
    unique: list[Path] = []
    for folder in dirs:
        if folder not in unique:
            unique.append(folder)
    return unique


def spec_files(folder: Path) -> list[Path]:
    """The ``*.yaml`` and ``*.yml`` files of ``folder``, sorted; none when it is not a folder."""
    if not folder.is_dir():
        return []
    return sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")])


def declared_id(path: Path) -> Optional[str]:
    """The top-level ``id:`` written in a spec file, read without validating the rest."""
    try:
        match = _ID_LINE.search(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError):
        return None
    return match.group(1) if match else None


def indexed_exercises() -> dict[str, Path]:
    """Id -> spec file over the search path; the first folder naming an id wins.

    A spec is found by the ``id`` it declares, whatever its file name.
    """
    found: dict[str, Path] = {}
    for folder in search_dirs():
        for path in spec_files(folder):
            exercise_id = declared_id(path) or path.stem
            found.setdefault(exercise_id, path)
    return found


def duplicate_ids(paths: list[Path]) -> list[str]:
    """One message per id declared by more than one of ``paths``."""
    by_id: dict[str, list[Path]] = {}
    for path in paths:
        by_id.setdefault(declared_id(path) or path.stem, []).append(path)
    return [
        f"id {exercise_id!r} is declared by {', '.join(p.name for p in found)}; looked up by id, "
        f"only {found[0].name} is found: give each spec its own id"
        for exercise_id, found in by_id.items() if len(found) > 1
    ]


def exercise_paths() -> list[Path]:
    """Every spec file found by id (course folders and shipped), sorted by id."""
    return [path for _, path in sorted(indexed_exercises().items())]


def exercise_ids() -> list[str]:
    return sorted(indexed_exercises())


def exercise_path(exercise_id: str) -> Optional[Path]:
    """The spec with this id on the search path, or None."""
    for folder in search_dirs():  # the usual case, ID.yaml, without reading every file
        for suffix in (".yaml", ".yml"):
            path = folder / f"{exercise_id}{suffix}"
            if path.is_file() and declared_id(path) in (exercise_id, None):
                return path
    return indexed_exercises().get(exercise_id)


def load_exercise(id_or_path: Union[str, os.PathLike]) -> Exercise:
    """Load an exercise by id (see :func:`search_dirs`), or any spec file by path;
    raise :class:`SpecError`."""
    path = _resolve(id_or_path)
    _use_course_families(path.parent)
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecUnreadable([Problem(display_path(path), None, "", (
                f"is {size:,} bytes; a spec is a YAML text of a few KB (at most "
                f"{MAX_SPEC_BYTES:,} bytes): is this the right file?"))])
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise SpecUnreadable([Problem(display_path(path), None, "", (
            f"cannot read the file: it is not UTF-8 text (byte {error.start}); a spec is a "
            "YAML text file"))]) from None
    except OSError as error:
        raise SpecUnreadable([Problem(display_path(path), None, "", (
            f"cannot read the file: {error.strerror or error}"))]) from None
    shown_as = display_path(path)
    exercise = spec_cache.load(path, shown_as, text)
    if exercise is not None:
        exercise._source = path  # as this caller named it
        return exercise
    exercise = parse_exercise(text, shown_as)
    exercise._source = path
    spec_cache.store(path, shown_as, text, exercise)
    return exercise


def _resolve(id_or_path: Union[str, os.PathLike]) -> Path:
    candidate = Path(id_or_path)
    kind = special_file_kind(candidate)
    if kind is not None and kind != "a folder":
        raise ExerciseNotFound([Problem(str(candidate), None, "", (
            f"is {kind}, not a file: pass a spec file or an id"))])
    if candidate.is_dir():
        raise ExerciseNotFound([Problem(str(candidate), None, "", (
            "is a folder, not an exercise: pass a spec file or an id, or make the folder's "
            f"specs resolvable by id with --exercises-dir {candidate} (or {ENV_VAR})")
        )])
    if candidate.is_file():
        return candidate
    if candidate.suffix in (".yaml", ".yml") or len(candidate.parts) > 1 or (
            candidate.suffix and not re.match(ID_PATTERN, str(candidate))):
        raise ExerciseNotFound([Problem(str(candidate), None, "", "no such file")])
    try:
        found = exercise_path(str(id_or_path))
        ids = exercise_ids()
    except FileNotFoundError as error:
        raise ExerciseNotFound([Problem(str(id_or_path), None, "", str(error))]) from None
    if found is None:
        close = closest_id(str(id_or_path), ids)
        raise ExerciseNotFound([Problem("", None, "", not_found_message(str(id_or_path), ids))],
                               suggestion=close)
    return found


def closest_id(name: str, ids: list[str]) -> Optional[str]:
    """The exercise id nearest to ``name``, when one is near enough to suggest."""
    import difflib  # only here: a lookup that succeeds needs none of this

    close = difflib.get_close_matches(name, ids, n=1)
    return close[0] if close else None


def not_found_message(name: str, ids: list[str]) -> str:
    """No exercise ``name``: the closest id when one is near, else every id, and where else to
    look. The folders searched are named as the user gave them; the install's own is not."""
    close = closest_id(name, ids)
    if close:
        return f"no exercise {name!r}; did you mean {close!r}?"
    course = [display_path(d) for d in search_dirs() if d != _shipped_dir()]
    searched = (f"in {', '.join(course)} or the shipped exercises" if course
                else "among the shipped exercises")
    return (f"no exercise {name!r} {searched} (available: {', '.join(ids) or 'none'}); pass "
            f"the spec file itself, or add its folder with --exercises-dir DIR or {ENV_VAR}")


def _shipped_dir() -> Optional[Path]:
    try:
        return exercises_dir()
    except FileNotFoundError:
        return None


def special_file_kind(path: Path) -> Optional[str]:
    """What ``path`` is when it exists but is no regular file ("a named pipe (FIFO)", "a
    folder", ...), told without opening it (opening a FIFO waits for a writer); else None."""
    import stat

    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def parse_exercise(text: str, file: str = "<spec>", *, expected_id: Optional[str] = None) -> Exercise:
    """Validate the YAML ``text`` of a spec; ``file`` names it in messages."""
    # Only here: a kept spec (grader.spec.spec_cache) is loaded without YAML, pydantic or rules.
    import yaml
    from pydantic import ValidationError

    from grader.spec.messages import pydantic_problems
    from grader.spec.rules import semantic_problems
    from grader.spec.validators import validated, validator_of
    from grader.spec.yaml_lines import parse_yaml

    try:
        data, document = parse_yaml(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else None
        reason = error.problem or error.context or "invalid YAML"
        hint = yaml_hint(text, line, reason)
        raise SpecUnreadable([Problem(file, line, "", f"YAML syntax error: {reason}{hint}")]) from None
    except yaml.YAMLError as error:
        raise SpecUnreadable([Problem(file, None, "", f"YAML error: {error}")]) from None

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
        raise SpecUnreadable(problems)

    try:
        model = exercise_model(data)
    except FamilyError as error:
        loc = ("family",) if "family" in data else ()
        problems.append(Problem(file, document.line_of(loc), format_loc(loc), str(error)))
        raise FamilyUnusable(in_file_order(problems)) from None
    try:
        exercise = validated(model, data)
    except ValidationError as error:
        shape = pydantic_problems(error, validator_of(model))
        problems += [
            Problem(file, document.line_of(loc), format_loc(loc), message)
            for loc, message in shape + meaning_beside_shape(model, data, [loc for loc, _ in shape])
        ]
        raise SpecError(in_file_order(problems)) from None

    problems += [
        Problem(file, document.line_of(loc), format_loc(loc), message)
        for loc, message in semantic_problems(exercise, expected_id=expected_id)
    ]
    exercise._file = file
    exercise._document = document
    if problems:
        error = SpecError(in_file_order(problems))
        error.exercise = exercise  # valid in shape: grade check goes on to its other checks
        raise error
    return exercise


def yaml_hint(text: str, line: Optional[int], reason: str) -> str:
    """A plain-words hint for the YAML mistakes authors make most: tabs and indentation."""
    lines = text.splitlines()
    nearby = lines[max(0, (line or 1) - 2): (line or 0) + 1] if line else lines
    if "\t" in reason or any(item[: len(item) - len(item.lstrip())].count("\t") for item in nearby):
        return (" (hint: a tab is used for indentation near this line; YAML indents with "
                "spaces only, so replace the tab with spaces)")
    if "mapping values are not allowed" in reason or "expected <block end>" in reason or \
            "could not find expected ':'" in reason or "did not find expected key" in reason:
        return (" (hint: check the indentation: keys of one mapping must line up, a list item's "
                "keys sit two spaces right of its '-', and a value holding ': ' must be quoted)")
    return ""


def exercise_model(data: dict) -> type[Exercise]:
    """The spec model of the family ``data`` belongs to (:class:`FamilyError` when unknown)."""
    return family_named(derive_family(data)).exercise


PLACEHOLDER_TEXT = {"id": "placeholder", "title": "placeholder", "lesson": "placeholder",
                    "instructions": "placeholder"}
UNJUDGED = ("conventions", "functions", "family", "kind")
"""Top-level fields without which no other rule can be judged."""


def meaning_beside_shape(model: type[Exercise], data: dict,
                         shape_locs: list[tuple]) -> list[tuple[tuple, str]]:
    """The semantic problems of a spec that pydantic rejected, so one round reports both.

    Each case or milestone with a shape error is stood in for by a valid placeholder, each bad
    top-level text or settings block by a placeholder or its default, and the rules run on the
    result; problems about stood-in parts are left out. When the conventions or functions are
    malformed nothing can be judged and the list is empty.
    """
    import copy

    from pydantic import ValidationError

    from grader.spec.rules import semantic_problems
    from grader.spec.validators import validated, validator_of

    fields = validator_of(model).model_fields
    family = family_named(derive_family(data))
    repaired = copy.deepcopy(data)
    replaced: set[tuple] = set()
    for loc in shape_locs:
        head = loc[0] if loc else None
        if head in ("cases", "milestones") and len(loc) >= 2 and isinstance(loc[1], int) \
                and isinstance(repaired.get(head), list) and loc[1] < len(repaired[head]):
            replaced.add((head, loc[1]))
        elif head in PLACEHOLDER_TEXT:
            repaired[head] = PLACEHOLDER_TEXT[head]
            replaced.add((head,))
        elif head == "student_file":
            repaired.pop(head, None)
            replaced.add((head,))
        elif len(loc) >= 1 and head not in UNJUDGED and head not in ("cases", "milestones") \
                and head in fields and not fields[head].is_required():
            repaired.pop(head, None)
            replaced.add((head,))
        elif len(loc) == 1 and head not in UNJUDGED and head not in ("cases", "milestones"):
            repaired.pop(head, None)
            replaced.add((head,))
        else:
            return []
    for head, *index in sorted(replaced, key=str):
        if not index:
            continue
        stand_in = (
            {"id": f"placeholder-{index[0]}", **family.placeholder_case(repaired)}
            if head == "cases" else _placeholder_milestone(family, repaired, index[0])
        )
        repaired[head][index[0]] = stand_in
    try:
        exercise = validated(model, repaired)
    except ValidationError:
        return []
    milestones_replaced = any(r[0] == "milestones" for r in replaced)
    kept = []
    for loc, message in semantic_problems(exercise):
        if any(loc[: len(r)] == r for r in replaced):
            continue
        if milestones_replaced and loc[0] == "cases" and "milestone" in message:
            continue
        if any(r[0] == "cases" for r in replaced) and "no case gives input" in message:
            continue
        kept.append((loc, message))
    return kept


def _placeholder_milestone(family: Any, data: dict, index: int) -> dict[str, Any]:
    functions = data.get("functions") if isinstance(data.get("functions"), dict) else {}
    role = next((name for name in functions if family.has_role(name)), None)
    # a kind that makes no case count as graded, so the stand-in changes no other verdict
    takes = family.role(role).checks if role is not None else frozenset(family.check_kinds)
    kind = next(k for k in ("properties", "differential", "efficiency", "cases",
                            *sorted(family.check_kinds)) if k in takes)
    stand_in: dict[str, Any] = {"id": f"placeholder-{index}", "title": "placeholder",
                                "points": 1, "checks": [{"kind": kind}]}
    if role is not None:
        stand_in["function"] = role
    return stand_in


def available_exercises() -> list[Exercise]:
    """Every exercise on the search path, loaded and validated (a broken one raises
    :class:`SpecError`)."""
    try:
        paths = exercise_paths()
    except FileNotFoundError as error:
        raise ExerciseNotFound([Problem("exercises", None, "", str(error))]) from None
    return [load_exercise(path) for path in paths]


def loadable_exercises() -> tuple[list[Exercise], list[SpecError]]:
    """Every exercise on the search path that loads, and the error of each one that does not
    (a course's work-in-progress spec hides none of the others)."""
    try:
        paths = exercise_paths()
    except FileNotFoundError as error:
        raise ExerciseNotFound([Problem("exercises", None, "", str(error))]) from None
    loaded: list[Exercise] = []
    broken: list[SpecError] = []
    for path in paths:
        try:
            loaded.append(load_exercise(path))
        except SpecError as error:
            broken.append(error)
    return loaded, broken


def json_schema() -> dict[str, Any]:
    """The spec format as a JSON Schema (draft 2020-12): one branch per family's model."""
    from pydantic import TypeAdapter

    from grader.spec.attribute_docs import DocumentedSchema
    from grader.spec.validators import validator_of

    models = [validator_of(family.exercise) for family in families()]
    union: Any = models[0] if len(models) == 1 else Union[tuple(models)]  # type: ignore[valid-type]
    schema = TypeAdapter(union).json_schema(schema_generator=DocumentedSchema)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "bpe-autograder exercise",
            "description": "An exercise spec; its family decides which fields it takes, so "
                           "a spec matches the branch of its family.",
            **{key: value for key, value in schema.items() if key != "$schema"}}
