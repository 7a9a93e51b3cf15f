"""The ``cases`` check's items for the WordPiece roles: one per case, for each role.

``train_wordpiece`` is judged like BPE training, against :mod:`reference.wordpiece`, with the
scores at the first differing step as evidence; ``first_divergence`` against the reference's
``(step, bpe_pair, wordpiece_pair)``. Every call is noted as an observation, so the
milestone's mistakes are named from all its inputs at once, as for every family.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from grader.families.bpe.feedback import merges_details
from grader.families.bpe.spec import BpeCase as Case
from grader.families.wordpiece.steps import training_steps
from grader.families.wordpiece.do_nothing import trivial_answer
from grader.families.wordpiece.expected import reference_divergence, reference_wordpiece
from grader.families.wordpiece.feedback import (
    divergence_details,
    divergence_message,
    wordpiece_difference,
    wordpiece_message,
)
from grader.families.api import Calls, CaseItem, CaseLabel, Exercise, Verdict, observed

TRAIN, DIVERGENCE = "train_wordpiece", "first_divergence"


def judge_train_wordpiece(calls: Calls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_wordpiece(exercise, case)
    answer = calls.call(TRAIN, case.corpus, case.num_merges)
    seen = observed(_inputs(case), answer)
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       merges_details(case.corpus, case.num_merges, expected, None, None),
                       observation=seen)
    difference = wordpiece_difference(exercise, case.corpus, case.num_merges, expected, answer.value)
    return Verdict(
        False,
        wordpiece_message(difference, case.num_merges) if difference else "",
        merges_details(case.corpus, case.num_merges, expected, answer.value, difference),
        observation=seen,
        steps=partial(training_steps, exercise, case.corpus, expected, answer.value),
    )


def judge_first_divergence(calls: Calls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_divergence(exercise, case)
    answer = calls.call(DIVERGENCE, case.corpus, case.num_merges)
    seen = observed(_inputs(case), answer)
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       divergence_details(case.corpus, case.num_merges, expected),
                       observation=seen)
    return Verdict(
        False,
        divergence_message(calls.function_name(DIVERGENCE), case.corpus,
                           case.num_merges, expected, answer.value),
        divergence_details(case.corpus, case.num_merges, expected, answer.value, answered=True),
        observation=seen,
    )


def _inputs(case: Case) -> dict[str, Any]:
    """A case's inputs as keyword arguments of the roles' mistakes."""
    return {"corpus": case.corpus, "num_merges": case.num_merges}


def real_work(exercise: Exercise, role: str, case: Case) -> bool:
    """Whether the case's right answer is not what a do-nothing function returns
    (:mod:`grader.families.wordpiece.do_nothing`)."""
    expected = (reference_wordpiece(exercise, case) if role == TRAIN
                else reference_divergence(exercise, case))
    return not trivial_answer(exercise, role, (case.corpus, case.num_merges), expected)


def train_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    return [CaseItem(label.check_id, label.title(f"train {case.num_merges} WordPiece merges"),
                     label.visibility, partial(judge_train_wordpiece, calls, case),
                     real_work(calls.exercise, TRAIN, case))]


def divergence_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    return [CaseItem(label.check_id,
                     label.title(f"first divergence within {case.num_merges} merges"),
                     label.visibility, partial(judge_first_divergence, calls, case),
                     real_work(calls.exercise, DIVERGENCE, case))]
