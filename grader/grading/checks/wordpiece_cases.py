"""The ``cases`` check's judges for the WordPiece roles, keyed by role.

``train_wordpiece`` is judged like BPE training, against :mod:`reference.wordpiece`, with the
scores at the first differing step as evidence; ``first_divergence`` against the reference's
``(step, bpe_pair, wordpiece_pair)``. A visible failure names every known mistake that
reproduces the student's output.
"""

from __future__ import annotations

from functools import partial

from grader.grading.checks.cases import Verdict
from grader.grading.student_calls import StudentCalls
from grader.grading.wordpiece_feedback import (
    divergence_details,
    divergence_message,
    merges_details,
    wordpiece_difference,
    wordpiece_message,
)
from grader.mistakes.diagnosis import name_mistakes
from grader.spec import Case, Exercise
from grader.spec.expected import reference_divergence, reference_wordpiece


def judge_train_wordpiece(calls: StudentCalls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_wordpiece(exercise, case)
    answer = calls.train_wordpiece(case.corpus, case.num_merges)
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
        diagnose=partial(name_mistakes, exercise, "train_wordpiece", answer.value,
                {"corpus": case.corpus, "num_merges": case.num_merges}),
    )


def judge_first_divergence(calls: StudentCalls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_divergence(exercise, case)
    answer = calls.first_divergence(case.corpus, case.num_merges)
    if answer.ok and answer.value == expected:
        return Verdict(True)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       divergence_details(case.corpus, case.num_merges, expected))
    return Verdict(
        False,
        divergence_message(calls.function_name("first_divergence"), case.corpus,
                           case.num_merges, expected, answer.value),
        divergence_details(case.corpus, case.num_merges, expected, answer.value, answered=True),
        diagnose=partial(name_mistakes, exercise, "first_divergence", answer.value,
                {"corpus": case.corpus, "num_merges": case.num_merges}),
    )


JUDGES = {
    "train_wordpiece": judge_train_wordpiece,
    "first_divergence": judge_first_divergence,
}

TITLES = {
    "train_wordpiece": lambda case: f"train {case.num_merges} WordPiece merges",
    "first_divergence": lambda case: f"first divergence within {case.num_merges} merges",
}


def real_work(exercise: Exercise, role: str, case: Case) -> bool:
    """Whether the case's right answer is not what a do-nothing function returns: merges
    for the trainer, a step where the two methods part for the divergence."""
    if role == "train_wordpiece":
        return bool(reference_wordpiece(exercise, case))
    return reference_divergence(exercise, case) is not None
