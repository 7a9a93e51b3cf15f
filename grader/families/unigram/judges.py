"""The ``cases`` check's items for the Unigram roles, and the differential check's records.

A case serves a role when it holds that role's inputs (``serves``): a text for
``segment``/``log_likelihood``, a corpus for ``em_step``, a corpus and ``keep`` for
``prune``. Each is one item judged against :mod:`reference.unigram` (floats within the
exercise's tolerance), its observation noted so the milestone names the mistake. The
generated inputs of each role (:mod:`grader.families.unigram.generated`) are judged the same
way; a right answer that a do-nothing function also gives is no evidence of work.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Optional

from grader.families.unigram import generated as inputs
from grader.families.unigram.do_nothing import trivial_answer
from grader.families.unigram.expected import (
    ARGUMENTS,
    EM_STEP,
    LIKELIHOOD,
    PRUNE,
    SEGMENT,
    expected,
    keywords,
    right,
    tolerance,
)
from grader.families.unigram.steps import segment_steps
from grader.families.unigram.feedback import details, json_inputs, message
from grader.families.api import (
    Calls,
    CaseItem,
    CaseLabel,
    Failure,
    Generated,
    Shown,
    StudentAnswer,
    Verdict,
    observed,
)

TITLES = {SEGMENT: "Viterbi segmentation", LIKELIHOOD: "log-likelihood",
          EM_STEP: "one EM step", PRUNE: "pruning"}


def case_inputs(role: str, case: Any) -> tuple:
    """The case's inputs of ``role`` as a tuple in the order of its arguments."""
    pieces = dict(case.pieces)
    if role in (SEGMENT, LIKELIHOOD):
        return (case.text, pieces)
    if role == EM_STEP:
        return (list(case.corpus), pieces)
    return (list(case.corpus), pieces, case.keep)


def serves(role: str) -> Callable[[Any], bool]:
    def served(case: Any) -> bool:
        if role in (SEGMENT, LIKELIHOOD):
            return case.text is not None
        return case.corpus is not None and (role != PRUNE or case.keep is not None)
    return served


def judge(calls: Calls, role: str, given: tuple) -> Verdict:
    want = expected(role, given)
    answer = calls.call(role, *given)
    seen = observed(keywords(role, given), answer)
    if answer.ok and right(calls.exercise, role, given, answer.value):
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, answer.failure or "", details(role, given, want), observation=seen)
    steps = (partial(segment_steps, given[0], given[1], want, answer.value) if role == SEGMENT
             else None)
    return Verdict(False, message(role, given, want, answer.value, tolerance(calls.exercise)),
                   details(role, given, want, answer.value, answered=True), observation=seen,
                   steps=steps)


def real_work(role: str, given: tuple) -> bool:
    return not trivial_answer(role, given, expected(role, given))


def items(role: str) -> Callable[..., list[CaseItem]]:
    def case_items(calls: Calls, case: Any, label: CaseLabel) -> list[CaseItem]:
        given = case_inputs(role, case)
        return [CaseItem(label.check_id, label.title(TITLES[role]), label.visibility,
                         partial(judge, calls, role, given), real_work(role, given))]
    return case_items


# --------------------------------------------------------------------------- generated inputs


NON_FINITE = ("float(-inf)", "float(inf)", "float(nan)")


def _as_crash(answer: StudentAnswer) -> StudentAnswer:
    """A non-finite float is what an underflowing forward pass returns (``log(0.0)`` guarded
    to ``-inf``): taken as the failure it is, so naming can explain it like ``math.log(0.0)``
    raising (the sandbox's kind for a failure that naming reads)."""
    returned = answer.returned
    shown = getattr(returned, "type_name", None)  # the sandbox sends -inf as an opaque float
    if answer.kind == "shape" and ((isinstance(returned, float) and not math.isfinite(returned))
                                   or shown in NON_FINITE):
        return replace(answer, kind="exception")
    return answer


def _judge(role: str) -> Callable[[Calls], Callable[[tuple], Optional[Failure]]]:
    def for_calls(calls: Calls) -> Callable[[tuple], Optional[Failure]]:
        def judge_one(example: tuple) -> Optional[Failure]:
            answer = calls.remembered(role, *example)
            if answer.ok and right(calls.exercise, role, example, answer.value):
                return None
            return Failure(example, _as_crash(answer), expected(role, example))
        return judge_one
    return for_calls


def _shown(role: str) -> Callable[[Calls, Failure], Shown]:
    def shown(calls: Calls, failure: Failure) -> Shown:
        if not failure.answer.ok:
            return Shown(failure.expected)
        return Shown(failure.expected, failure.answer.value,
                     message(role, failure.example, failure.expected, failure.answer.value,
                             tolerance(calls.exercise)))
    return shown


LONG_TEXT_SHOWN = 40
"""A text longer than this many characters is shown by its start and its length."""


def short_argument(value: Any) -> str:
    """``repr(value)``, a long text summarised: its first characters and its length (what
    matters on a long text is that it is long)."""
    if isinstance(value, str) and len(value) > 2 * LONG_TEXT_SHOWN:
        return f"{value[:LONG_TEXT_SHOWN]!r} + ... ({len(value)} characters in all)"
    return repr(value)


def _call_text(role: str) -> Callable[[Calls, Any], str]:
    def call_text(calls: Calls, example: Any) -> str:
        arguments = ", ".join(short_argument(value) for value in example)
        return f"{calls.function_name(role)}({arguments})"
    return call_text


def record(role: str, strategy: Callable[[Any], Any], targeted: str) -> Generated:
    return Generated(
        strategy=strategy,
        targeted=lambda exercise: list(inputs.TARGETED[targeted]),
        count=inputs.count,
        settings=inputs.settings_key,
        judge=_judge(role),
        call_text=_call_text(role),
        given=lambda calls, example: json_inputs(role, example),
        observed=lambda exercise, example: keywords(role, example),
        shown=_shown(role),
        real_work=lambda exercise, example: real_work(role, example),
    )


RECORDS = {
    SEGMENT: record(SEGMENT, inputs.text_example, "text"),
    LIKELIHOOD: record(LIKELIHOOD, inputs.text_example, "text"),
    EM_STEP: record(EM_STEP, inputs.corpus_example, "corpus"),
    PRUNE: record(PRUNE, inputs.prune_example, "prune"),
}
