"""The ``cases`` check: the student's output on each case of the spec equals the reference's.

One result per graded item: a case's merge list (train), each word of a case (encode) or a
case's sentence (sequence_lengths); the check's points are split evenly over them. Encoding
and sequence lengths use the *reference's* merges for the case, written in the exercise's
merge form, so a training mistake does not also fail the encode milestone. A failed visible
item shows its input, expected and actual values, the first difference and every known
mistake that reproduces the student's output; a hidden item shows pass/fail only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .expected import case_encodings, case_lengths, reference_pairs
from .feedback import (
    diagnose,
    first_difference,
    graded,
    lengths_details,
    lengths_message,
    merges_details,
    merges_message,
    tokens_details,
    timed,
    tokens_message,
)
from .result import CheckResult
from .scoring import split_evenly
from .spec import Case, Milestone
from .student_calls import StudentCalls


@dataclass(frozen=True)
class CaseItem:
    """One graded input of a case; ``run`` grades it given its share of the points."""

    check_id: str
    title: str
    hidden: bool
    run: Callable[[str, str, float, bool], CheckResult]


def run_cases(calls: StudentCalls, milestone: Milestone, points: float) -> list[CheckResult]:
    """Grade every case input for the milestone's function, ``points`` split evenly."""
    items = case_items(calls, milestone.function)
    shares = split_evenly(points, len(items))
    return [
        timed(lambda item=item, share=share: item.run(item.check_id, item.title, share, item.hidden))
        for item, share in zip(items, shares)
    ]


def case_items(calls: StudentCalls, role: str) -> list[CaseItem]:
    items: list[CaseItem] = []
    hidden_numbers = {id(case): number for number, case in enumerate(calls.exercise.hidden_cases, 1)}
    for case in calls.exercise.cases_for(role):
        hidden_number = hidden_numbers.get(id(case), 0)
        label = case.id if case.public else f"hidden-{hidden_number}"
        name = f"{case.id}" if case.public else f"Hidden case {hidden_number}"
        if role == "train":
            title = f"{name}: train {_merges_count(case.num_merges)}" if case.public else name
            items.append(CaseItem(f"cases:{label}", title, not case.public, _train_grader(calls, case)))
        elif role == "encode":
            for number, (item, expected) in enumerate(case_encodings(calls.exercise, case), 1):
                title = f"{name}: encode {item.word!r}" if case.public else f"{name}, word {number}"
                items.append(
                    CaseItem(f"cases:{label}:{number}", title, not case.public,
                             _encode_grader(calls, case, item.word, expected))
                )
        elif role == "sequence_lengths":
            title = f"{name}: sequence lengths of {case.sentence!r}" if case.public else name
            items.append(CaseItem(f"cases:{label}", title, not case.public, _lengths_grader(calls, case)))
    return items


def _visibility(hidden: bool) -> str:
    return "hidden" if hidden else "visible"


def _train_grader(calls: StudentCalls, case: Case) -> Callable[[str, str, float, bool], CheckResult]:
    def run(check_id: str, title: str, share: float, hidden: bool) -> CheckResult:
        exercise = calls.exercise
        expected = reference_pairs(exercise, case)
        answer = calls.train(case.corpus, case.num_merges)
        if answer.ok and answer.value == expected:
            return graded(check_id, title, share, True, visibility=_visibility(hidden))
        if not answer.ok:
            details = merges_details(case.corpus, case.num_merges, expected, None, None)
            return graded(check_id, title, share, False, visibility=_visibility(hidden),
                          message=answer.failure, details=details)
        difference = first_difference(exercise, case.corpus, case.num_merges, expected, answer.value)
        found = [] if hidden else diagnose(
            exercise, "train", answer.value, {"corpus": case.corpus, "num_merges": case.num_merges}
        )
        return graded(
            check_id, title, share, False, visibility=_visibility(hidden),
            message=merges_message(difference, case.num_merges),
            details=merges_details(case.corpus, case.num_merges, expected, answer.value, difference),
            diagnoses=found,
        )

    return run


def _encode_grader(
    calls: StudentCalls, case: Case, word: str, expected: list[str]
) -> Callable[[str, str, float, bool], CheckResult]:
    def run(check_id: str, title: str, share: float, hidden: bool) -> CheckResult:
        exercise = calls.exercise
        merges = reference_pairs(exercise, case)
        answer = calls.encode(word, merges)
        if answer.ok and answer.value == expected:
            return graded(check_id, title, share, True, visibility=_visibility(hidden))
        actual = answer.value if answer.ok else None
        details = tokens_details(word, expected, actual, merges)
        if not answer.ok:
            return graded(check_id, title, share, False, visibility=_visibility(hidden),
                          message=answer.failure, details=details)
        found = [] if hidden else diagnose(
            exercise, "encode", actual, {"word": word, "merges": merges}
        )
        message = tokens_message(calls.function_name("encode"), word, expected, actual)
        return graded(check_id, title, share, False, visibility=_visibility(hidden),
                      message=message, details=details, diagnoses=found)

    return run


def _lengths_grader(calls: StudentCalls, case: Case) -> Callable[[str, str, float, bool], CheckResult]:
    def run(check_id: str, title: str, share: float, hidden: bool) -> CheckResult:
        exercise = calls.exercise
        sentence = case.sentence or ""
        merges = reference_pairs(exercise, case)
        expected = case_lengths(exercise, case) or {}
        answer = calls.sequence_lengths(sentence, merges)
        if answer.ok and answer.value == expected:
            return graded(check_id, title, share, True, visibility=_visibility(hidden))
        actual = answer.value if answer.ok else None
        details = lengths_details(sentence, expected, actual, merges)
        if not answer.ok:
            return graded(check_id, title, share, False, visibility=_visibility(hidden),
                          message=answer.failure, details=details)
        found = [] if hidden else diagnose(
            exercise, "sequence_lengths", actual, {"sentence": sentence, "merges": merges}
        )
        message = lengths_message(calls.function_name("sequence_lengths"), sentence, expected, actual)
        return graded(check_id, title, share, False, visibility=_visibility(hidden),
                      message=message, details=details, diagnoses=found)

    return run


def _merges_count(count: int) -> str:
    return f"{count} merge" if count == 1 else f"{count} merges"
