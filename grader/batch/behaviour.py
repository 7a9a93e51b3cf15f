"""Students whose code goes wrong the same way: pairs that give the same *wrong* answer to the
same input, where few others in the class do, read from a graded class's gradebook.

Text tools miss a copy rewritten line by line; its behaviour stays. Every failing check whose
report holds an input and the answer given (a public case, a first difference of the
generated inputs, each shrunk to its smallest failing input from the course secret) is one
wrong answer. A wrong answer many students share is a common mistake (one tie rule, one
forgotten marker), no evidence of anything; one that only two students give is a lead. A
pair is listed, with the inputs as evidence, when it shares at least :data:`MIN_SHARED` wrong
answer that at most :data:`RARE` students give. Each check reports one input (the smallest
that fails), so two students with one rare bug share about one wrong answer per check.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from grader.batch.gradebook import Gradebook

RARE = 2  # a wrong answer given by at most this many students is evidence
MIN_SHARED = 1


@dataclass(frozen=True)
class WrongAnswer:
    """One input the students answered wrongly, and their (identical) answer."""

    exercise: str
    milestone: str
    input: str
    answer: str


@dataclass(frozen=True)
class SameBehaviour:
    first: str
    second: str
    shared: tuple[WrongAnswer, ...]


def same_behaviour(gradebook: Path, *, rare: int = RARE,
                   min_shared: int = MIN_SHARED) -> list[SameBehaviour]:
    """The pairs of students of ``gradebook`` sharing rare wrong answers, most shared first."""
    givers: dict[WrongAnswer, set[str]] = defaultdict(set)
    with Gradebook(Path(gradebook)) as book:
        for grading in book.latest():
            for wrong in wrong_answers(grading.exercise, grading.report):
                givers[wrong].add(grading.student)
    shared: dict[tuple[str, str], list[WrongAnswer]] = defaultdict(list)
    for wrong, students in givers.items():
        if 2 <= len(students) <= rare:
            for pair in combinations(sorted(students), 2):
                shared[pair].append(wrong)
    found = [SameBehaviour(first, second, tuple(sorted(answers, key=_order)))
             for (first, second), answers in shared.items() if len(answers) >= min_shared]
    found.sort(key=lambda pair: (-len(pair.shared), pair.first, pair.second))
    return found


def wrong_answers(exercise: str, report: dict | None) -> set[WrongAnswer]:
    """Every wrong answer a stored report shows with its input."""
    found: set[WrongAnswer] = set()
    for milestone in (report or {}).get("milestones") or []:
        for check in milestone.get("checks") or []:
            details = check.get("details") or {}
            if check.get("passed") or not isinstance(details, dict):
                continue
            if "input" in details and "actual" in details:
                found.add(WrongAnswer(exercise, str(milestone.get("id")), _text(details["input"]),
                                      _text(details["actual"])))
    return found


def _text(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _order(wrong: WrongAnswer) -> tuple[str, str, str]:
    return wrong.exercise, wrong.milestone, wrong.input
