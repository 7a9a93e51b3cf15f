"""Exercise specs: the validated model of an exercise YAML file, and the family it belongs to.

Stage 1 of the flow (see docs/architecture.md). ``models`` holds the fields every spec has,
as plain records (``records``) checked by the pydantic models ``validators`` derives from
them; the family contract: ``family`` the typed record each exercise family fills, ``hooks``
and ``mistake_book`` the values its hooks take and give, ``family_check`` what is checked of a
record when it loads, ``registry`` how a family is found (each family's own spec fields and
rules live in its folder); ``yaml_lines`` reads YAML
remembering lines, ``problems`` and ``messages`` say what is wrong, ``rules`` holds the
semantic checks pydantic cannot express, ``loading`` finds and loads specs (by id on the
search path: course folders, then the shipped ones), ``spec_cache`` keeps validated specs
on disk (``disk_cache``: the grader's folder of kept work, where ``compiled_methods`` also
keeps the code of the records' methods), ``check`` is ``grade check`` and
``stubs`` renders the student's starting file. Nothing here runs student code.

The names below are imported from their modules on first use, so a module of the stage
(``disk_cache``) can be imported alone, before any record type exists.
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.spec.family import Family, FamilyError, Role
    from grader.spec.registry import family_named, family_of
    from grader.spec.loading import (
        available_exercises,
        display_path,
        exercise_ids,
        exercise_path,
        exercise_paths,
        exercises_dir,
        json_schema,
        load_exercise,
        parse_exercise,
    )
    from grader.spec.models import (
        CHECK_KINDS,
        ID_PATTERN,
        Case,
        Check,
        Exercise,
        FunctionSpec,
        Milestone,
        Pair,
    )
    from grader.spec.problems import ExerciseNotFound, Loc, Problem, SpecError
    from grader.spec.rules import semantic_problems

_HOMES = {
    "grader.spec.family": ("Family", "FamilyError", "Role"),
    "grader.spec.registry": ("family_named", "family_of"),
    "grader.spec.loading": ("available_exercises", "display_path", "exercise_ids",
                            "exercise_path", "exercise_paths", "exercises_dir", "json_schema",
                            "load_exercise", "parse_exercise"),
    "grader.spec.models": ("CHECK_KINDS", "ID_PATTERN", "Case", "Check", "Exercise",
                           "FunctionSpec", "Milestone", "Pair"),
    "grader.spec.problems": ("ExerciseNotFound", "Loc", "Problem", "SpecError"),
    "grader.spec.rules": ("semantic_problems",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """``from grader.spec import Exercise`` imports the module that defines it, on first use."""
    module = _HOME_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'grader.spec' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "CHECK_KINDS", "ID_PATTERN", "Case", "Check", "Exercise", "ExerciseNotFound", "Family",
    "FamilyError", "FunctionSpec", "Loc", "Milestone", "Pair", "Problem", "Role", "SpecError",
    "available_exercises", "display_path", "exercise_ids", "exercise_path", "exercise_paths",
    "exercises_dir", "family_named", "family_of", "json_schema", "load_exercise",
    "parse_exercise", "semantic_problems",
]
