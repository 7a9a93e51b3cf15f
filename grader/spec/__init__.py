"""Exercise specs: the validated model of an exercise YAML file and everything derived from it.

Stage 1 of the flow (see docs/architecture.md). ``models`` is the pydantic model, ``yaml_lines``
reads YAML remembering lines, ``problems`` and ``messages`` say what is wrong, ``rules`` holds
the semantic checks pydantic cannot express, ``loading`` finds and loads specs (by id on the
search path: course folders, then the shipped ones), ``expected`` computes expected values with
the reference, ``prose`` generates convention texts from the declared values and finds author
texts that contradict them, ``check`` is ``grade check``, ``new_spec`` is ``grade new`` and
``stubs`` renders the student's starting file. Nothing here runs student code.
"""

from grader.spec.loading import (
    available_exercises,
    display_path,
    exercise_ids,
    exercise_path,
    exercise_paths,
    exercises_dir,
    load_exercise,
    parse_exercise,
)
from grader.spec.models import (
    CHECK_KINDS,
    CORPUS_FORMS,
    ID_PATTERN,
    MERGE_FORMS,
    ROLES,
    Case,
    Check,
    Conventions,
    EfficiencySettings,
    EncodeItem,
    Exercise,
    Functions,
    FunctionSpec,
    Milestone,
    Pair,
    bare_pair,
    case_serves,
    json_schema,
)
from grader.spec.problems import ExerciseNotFound, Loc, Problem, SpecError
from grader.spec.rules import semantic_problems

__all__ = [
    "CHECK_KINDS", "CORPUS_FORMS", "ID_PATTERN", "MERGE_FORMS", "ROLES", "Case", "Check",
    "Conventions", "EfficiencySettings", "EncodeItem", "Exercise", "ExerciseNotFound",
    "FunctionSpec", "Functions", "Loc", "Milestone", "Pair", "Problem", "SpecError",
    "available_exercises", "bare_pair", "case_serves", "display_path", "exercise_ids",
    "exercise_path", "exercise_paths", "exercises_dir", "json_schema", "load_exercise",
    "parse_exercise", "semantic_problems",
]
