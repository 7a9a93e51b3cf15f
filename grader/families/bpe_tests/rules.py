"""The semantic checks of a test-writing exercise: its milestones, checks and groups."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from grader.families.api import Exercise, Loc

VALID, CATCHES = "valid", "catches"


def spec_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    if exercise.roles():
        yield ("functions",), ("a tests exercise serves train_bpe and encode itself: leave "
                               "functions out")
    if exercise.cases:
        yield ("cases",), "a tests exercise is graded on the catalogued mistakes: leave cases out"
    module = exercise.tests.module
    if module in sys.stdlib_module_names:
        yield ("tests", "module"), (f"{module!r} is a standard-library module; the tests import "
                                    "the served functions from a module of another name")
    if module == Path(exercise.student_file).stem:
        yield ("tests", "module"), (f"{module!r} is the name of the students' own file "
                                    f"({exercise.student_file}); serve another module name")
    graded: dict[str, int] = {}
    for index, milestone in enumerate(exercise.milestones):
        loc: Loc = ("milestones", index)
        if milestone.function is not None:
            yield loc + ("function",), ("a tests milestone grades the student's tests, not a "
                                        "function")
        kinds = [check.kind for check in milestone.checks]
        for check_index, kind in enumerate(kinds):
            if kind not in (VALID, CATCHES):
                yield loc + ("checks", check_index, "kind"), (
                    f"{kind!r} checks a function; a tests milestone has one check: valid or "
                    "catches")
        if len(kinds) != 1:
            yield loc + ("checks",), "a tests milestone has exactly one check: valid or catches"
        if CATCHES in kinds and not milestone.groups:
            yield loc + ("groups",), "name the groups of mistakes this catches check grades"
        if VALID in kinds and milestone.groups:
            yield loc + ("groups",), "a valid check grades the tests themselves: leave groups out"
        for group_id in milestone.groups:
            if group_id in graded:
                yield loc + ("groups",), (
                    f"group {group_id!r} is already graded by milestones[{graded[group_id]}]")
            graded[group_id] = index
