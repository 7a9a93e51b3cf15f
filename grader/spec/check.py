"""``grade check``: validate a spec and verify every expected value it states against the reference.

The spec is loaded (every shape and rule problem in one round), its texts are checked against
its conventions (``Family.prose_problems``), and its family verifies the expected values an
author wrote (``Family.verify``: a :class:`Verification`); a family that verifies none has
every expected value computed by its reference. Allowed imports that are not installed are
warned about.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Optional, Union

from grader.spec.registry import family_of
from grader.spec.hooks import Verification
from grader.spec.loading import load_exercise
from grader.spec.models import Exercise
from grader.spec.problems import (
    ExerciseNotFound,
    FamilyUnusable,
    Problem,
    SpecError,
    SpecUnreadable,
    in_file_order,
)


@dataclass
class CheckReport:
    """What ``grade check`` found: the problems, and how many expected values it looked at."""

    target: str
    exercise: Optional[Exercise] = None
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    verified: int = 0
    computed: int = 0
    not_found: bool = False
    family_unusable: bool = False
    """The spec's family cannot be used: an input error of the course, like a missing file."""
    """The target names no file and no exercise on the search path (an input error)."""
    unreadable: bool = False
    """The file cannot be read, or is not YAML holding a mapping (an input error, not a verdict)."""
    clean_summary: Optional[str] = None

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        if self.exercise is None:
            return f"{self.target}: {len(self.problems)} problem(s); the spec did not load"
        source = self.exercise.source
        where = str(source) if source is not None else self.target
        if self.ok and self.clean_summary:
            return f"{where}: ok: exercise {self.exercise.id!r}, {self.clean_summary}"
        if self.ok:
            warned = f", {len(self.warnings)} warning(s)" if self.warnings else ""
            return (
                f"{where}: ok: exercise {self.exercise.id!r}, {len(self.exercise.cases)} cases, "
                f"{self.verified} expected values verified, {self.computed} computed "
                f"by the reference{warned}"
            )
        return f"{where}: {len(self.problems)} problem(s)"


def check_spec(id_or_path: Union[str, os.PathLike]) -> CheckReport:
    """Load the spec and verify its expected values; never raises for a bad spec."""
    report = CheckReport(str(id_or_path))
    try:
        exercise = load_exercise(id_or_path)
    except SpecError as error:
        report.problems = list(error.problems)
        report.not_found = isinstance(error, ExerciseNotFound)
        report.family_unusable = isinstance(error, FamilyUnusable)
        report.unreadable = isinstance(error, SpecUnreadable)
        report.unreadable = isinstance(error, SpecUnreadable)
        if isinstance(error.exercise, Exercise):  # report the prose in the same round
            shaped = error.exercise
            report.problems = in_file_order(report.problems + [
                shaped.problem(loc, message)
                for loc, message in family_of(shaped).prose_problems(shaped)])
        return report
    family = family_of(exercise)
    report.exercise = exercise
    report.problems += [exercise.problem(loc, message)
                        for loc, message in family.prose_problems(exercise)]
    if family.verify is None:  # its reference computes every expected value
        report.computed = len(exercise.cases)
    else:
        found = family.verify(exercise)
        report.problems = in_file_order(report.problems + found.problems)
        report.warnings += found.warnings
        report.verified, report.computed = found.verified, found.computed
        report.clean_summary = found.summary
    report.warnings += _import_warnings(exercise)
    return report


def _import_warnings(exercise: Exercise) -> list[Problem]:
    """A warning for each allowed import that is not installed beside the grader."""
    import importlib.util

    return [
        exercise.problem(("allowed_imports", index), (
            f"warning: {module!r} is allowed but not installed beside the grader, so students' "
            f"imports of it fail; pip install it where grading runs"))
        for index, module in enumerate(exercise.allowed_imports)
        if importlib.util.find_spec(module) is None
    ]


def iter_report_lines(report: CheckReport) -> Iterator[str]:
    """The lines ``grade check`` prints: every problem, then the summary."""
    for problem in report.problems:
        yield str(problem)
    for warning in report.warnings:
        yield str(warning)
    yield report.summary()


__all__ = ["CheckReport", "Verification", "check_spec", "iter_report_lines"]
