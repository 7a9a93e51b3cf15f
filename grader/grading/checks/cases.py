"""The ``cases`` check: the student's output on each case of the spec equals the reference's.

One result per graded item: a case's merge list (train), each word of a case (encode) or a
case's sentence (sequence_lengths); the check's points are split evenly over them. Encoding
and sequence lengths use the *reference's* merges for the case, written in the exercise's
merge form, so a training mistake does not also fail the encode milestone. A failed visible
item shows its input, expected and actual values, the first difference and every known
mistake that reproduces the student's output; a hidden item shows pass/fail only. Sequence
lengths are judged against the student's own encoder when it departs from the reference's
(:mod:`grader.grading.follow_through`), and every input is shown in the form the student's
function takes.
An item whose right answer is not a do-nothing one is marked as real work
(:mod:`grader.grading.evidence`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Optional

from grader.grading.checks import CheckContext
from grader.grading.evidence import trivial_answer
from grader.grading.feedback import (
    first_difference,
    graded,
    lengths_details,
    lengths_message,
    merges_details,
    merges_message,
    student_merges,
    timed,
    tokens_details,
    tokens_message,
)
from grader.grading.scoring import split_evenly
from grader.grading.student_calls import StudentCalls
from grader.grading.follow_through import own_lengths
from grader.grading.naming import note, observed
from grader.mistakes.narrowing import Observation
from grader.result import CheckResult, Diagnosis, Visibility
from grader.spec import Case
from grader.spec.expected import case_encodings, case_lengths, reference_pairs


@dataclass(frozen=True)
class Verdict:
    """How one item went; ``observation`` is what a failing call did, for naming its mistake."""

    passed: bool
    message: str = ""
    details: Optional[dict[str, Any]] = None
    observation: Optional[Observation] = None
    diagnose: Optional[Callable[[], list[Diagnosis]]] = None  # families named item by item
    trivial: bool = False  # passed only against an answer a do-nothing function gives


@dataclass(frozen=True)
class CaseItem:
    """One graded input of a case."""

    check_id: str
    title: str
    visibility: Visibility
    judge: Callable[[], Verdict]
    real_work: bool = False  # its right answer is not what a do-nothing function returns


CHECK_ID = "cases"
TITLE = "Cases"


def run(context: CheckContext) -> list[CheckResult]:
    """Grade every case input for the milestone's function, the check's points split evenly."""
    calls, milestone, points = context.calls, context.milestone, context.points
    items = case_items(calls, milestone.function)
    shares = split_evenly(points, len(items))
    return [
        timed(lambda item=item, share=share: _grade(context, item, share))
        for item, share in zip(items, shares)
    ]


def _grade(context: CheckContext, item: CaseItem, share: float) -> CheckResult:
    if item.visibility == "visible":
        with context.calls.output.visible_inputs():
            verdict = item.judge()
    else:
        verdict = item.judge()
    # Families without milestone-wide naming name the mistake of each failing item.
    named = (verdict.diagnose() if verdict.diagnose is not None and not verdict.passed
             and item.visibility == "visible" else [])
    result = graded(
        item.check_id, item.title, share, verdict.passed, visibility=item.visibility,
        message=verdict.message, details=verdict.details, diagnoses=named,
    )
    result.real_work = item.real_work
    result.trivial_pass = verdict.trivial
    seen = [verdict.observation] if verdict.observation is not None else []
    return note(context, result, context.milestone.function, seen)


def case_items(calls: StudentCalls, role: str) -> list[CaseItem]:
    """The graded items of every case serving ``role``, hidden ones numbered exercise-wide."""
    exercise = calls.exercise
    hidden_numbers = {id(case): number for number, case in enumerate(exercise.hidden_cases, 1)}
    items: list[CaseItem] = []
    for case in exercise.cases_for(role):
        visibility: Visibility = "visible" if case.public else "hidden"
        label = case.id if case.public else f"hidden-{hidden_numbers[id(case)]}"
        name = case.id if case.public else f"Hidden case {hidden_numbers[id(case)]}"
        if role == "train":
            title = f"{name}: train {_merges_count(case.num_merges)}" if case.public else name
            work = not trivial_answer(exercise, role, (case.corpus, case.num_merges),
                                    reference_pairs(exercise, case))
            items.append(CaseItem(f"cases:{label}", title, visibility,
                                  partial(_judge_train, calls, case), work))
        elif role == "encode":
            for number, (item, expected) in enumerate(case_encodings(exercise, case), 1):
                title = f"{name}: encode {item.word!r}" if case.public else f"{name}, word {number}"
                work = not trivial_answer(exercise, role, (item.word,), expected)
                items.append(CaseItem(f"cases:{label}:{number}", title, visibility,
                                      partial(_judge_encode, calls, case, item.word, expected), work))
        elif role == "sequence_lengths":
            title = f"{name}: sequence lengths of {case.sentence!r}" if case.public else name
            work = not trivial_answer(exercise, role, (case.sentence or "",), case_lengths(exercise, case))
            items.append(CaseItem(f"cases:{label}", title, visibility,
                                  partial(_judge_lengths, calls, case), work))
        else:
            items.extend(_other_family_items(calls, case, role, name, label, visibility))
    return items


def _other_family_items(calls: StudentCalls, case: Case, role: str, name: str, label: str,
                        visibility: Visibility) -> list[CaseItem]:
    """The items of a byte-level or WordPiece case (their modules load only when needed)."""
    from grader.grading.checks import byte_cases, wordpiece_cases

    if role in byte_cases.ROLES:
        return byte_cases.case_items(calls, case, role, name, label, visibility)
    if role in wordpiece_cases.JUDGES:
        title = f"{name}: {wordpiece_cases.TITLES[role](case)}" if case.public else name
        return [CaseItem(f"cases:{label}", title, visibility,
                         partial(wordpiece_cases.JUDGES[role], calls, case),
                         wordpiece_cases.real_work(calls.exercise, role, case))]
    return []


def _judge_train(calls: StudentCalls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_pairs(exercise, case)
    answer = calls.train(case.corpus, case.num_merges)
    given = {"corpus": case.corpus, "num_merges": case.num_merges}
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=observed(given, answer))
    if not answer.ok:
        details = merges_details(case.corpus, case.num_merges, expected, None, None)
        return Verdict(False, answer.failure or "", details, observed(given, answer))
    difference = first_difference(exercise, case.corpus, case.num_merges, expected, answer.value)
    return Verdict(
        False,
        merges_message(difference, case.num_merges) if difference else "",
        merges_details(case.corpus, case.num_merges, expected, answer.value, difference),
        observed(given, answer),
    )


def _judge_encode(calls: StudentCalls, case: Case, word: str, expected: list[str]) -> Verdict:
    exercise = calls.exercise
    merges = reference_pairs(exercise, case)
    answer = calls.encode(word, merges)
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=observed({"word": word, "merges": merges}, answer))
    shown = student_merges(exercise, merges)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       tokens_details(word, expected, None, merges, shown_merges=shown))
    return Verdict(
        False,
        tokens_message(calls.function_name("encode"), word, expected, answer.value),
        tokens_details(word, expected, answer.value, merges, shown_merges=shown),
        observed({"word": word, "merges": merges}, answer),
    )


def _judge_lengths(calls: StudentCalls, case: Case) -> Verdict:
    exercise = calls.exercise
    sentence = case.sentence or ""
    merges = reference_pairs(exercise, case)
    reference = case_lengths(exercise, case) or {}
    answer = calls.sequence_lengths(sentence, merges)
    if answer.ok and answer.value == reference:
        return Verdict(True, observation=observed({"sentence": sentence, "merges": merges}, answer))
    own = own_lengths(calls, sentence, merges, reference)  # follow-through: their own tokenize
    expected = own.expected if own else reference
    if answer.ok and answer.value == expected and own:
        # Right for their own tokenize; no evidence of work when that tokenize does nothing.
        return Verdict(True, own.passed_note(calls),
                       trivial=trivial_answer(exercise, "sequence_lengths", (sentence,), expected))
    shown = student_merges(exercise, merges)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       lengths_details(sentence, expected, None, merges, shown_merges=shown))
    note_own = f" {own.failed_note(calls, reference)}" if own else ""
    return Verdict(
        False,
        lengths_message(calls.function_name("sequence_lengths"), sentence, expected, answer.value)
        + note_own,
        lengths_details(sentence, expected, answer.value, merges, shown_merges=shown),
        observed({"sentence": sentence, "merges": merges}, answer),
    )


def _merges_count(count: int) -> str:
    return f"{count} merge" if count == 1 else f"{count} merges"
