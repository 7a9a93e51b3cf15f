"""The ``cases`` check's items for the WordPiece roles: one per case, for each role.

``train_wordpiece`` is judged like BPE training, against :mod:`reference.wordpiece`, with the
scores at the first differing step as evidence; ``first_divergence`` against the reference's
``(step, bpe_pair, wordpiece_pair)``. A visible failure names every known mistake that
reproduces the student's output.
"""

from __future__ import annotations

from functools import partial

from grader.families.bpe.feedback import merges_details
from grader.families.bpe.spec import BpeCase as Case
from grader.families.wordpiece.expected import reference_divergence, reference_wordpiece
from grader.families.wordpiece.feedback import (
    divergence_details,
    divergence_message,
    wordpiece_difference,
    wordpiece_message,
)
from grader.grading.checks.items import CaseItem, CaseLabel, Verdict
from grader.grading.student_calls import StudentCalls
from grader.mistakes.diagnosis import name_mistakes
from grader.spec import Exercise

TRAIN, DIVERGENCE = "train_wordpiece", "first_divergence"


def judge_train_wordpiece(calls: StudentCalls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_wordpiece(exercise, case)
    answer = calls.call(TRAIN, case.corpus, case.num_merges)
    if answer.ok and answer.value == expected:
        return Verdict(True)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       merges_details(case.corpus, case.num_merges, expected, None, None))
    difference = wordpiece_difference(exercise, case.corpus, case.num_merges, expected, answer.value)
    return Verdict(
        False,
        wordpiece_message(difference, case.num_merges) if difference else "",
        merges_details(case.corpus, case.num_merges, expected, answer.value, difference),
        diagnose=partial(name_mistakes, exercise, TRAIN, answer.value,
                {"corpus": case.corpus, "num_merges": case.num_merges}),
    )


def judge_first_divergence(calls: StudentCalls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_divergence(exercise, case)
    answer = calls.call(DIVERGENCE, case.corpus, case.num_merges)
    if answer.ok and answer.value == expected:
        return Verdict(True)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       divergence_details(case.corpus, case.num_merges, expected))
    return Verdict(
        False,
        divergence_message(calls.function_name(DIVERGENCE), case.corpus,
                           case.num_merges, expected, answer.value),
        divergence_details(case.corpus, case.num_merges, expected, answer.value, answered=True),
        diagnose=partial(name_mistakes, exercise, DIVERGENCE, answer.value,
                {"corpus": case.corpus, "num_merges": case.num_merges}),
    )


def real_work(exercise: Exercise, role: str, case: Case) -> bool:
    """Whether the case's right answer is not what a do-nothing function returns: merges
    for the trainer, a step where the two methods part for the divergence."""
    if role == TRAIN:
        return bool(reference_wordpiece(exercise, case))
    return reference_divergence(exercise, case) is not None


def train_items(calls: StudentCalls, case: Case, label: CaseLabel) -> list[CaseItem]:
    return [CaseItem(label.check_id, label.title(f"train {case.num_merges} WordPiece merges"),
                     label.visibility, partial(judge_train_wordpiece, calls, case),
                     real_work(calls.exercise, TRAIN, case))]


def divergence_items(calls: StudentCalls, case: Case, label: CaseLabel) -> list[CaseItem]:
    return [CaseItem(label.check_id,
                     label.title(f"first divergence within {case.num_merges} merges"),
                     label.visibility, partial(judge_first_divergence, calls, case),
                     real_work(calls.exercise, DIVERGENCE, case))]
