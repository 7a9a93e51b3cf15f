"""The ``properties`` check: laws every correct answer obeys, checked without the reference.

Each property of the milestone's role (its family's list) is a sub-check worth an equal share
of the check's points, searched with the same bounded, deterministic Hypothesis search as the
differential check, over the first of the same generated inputs; a failure names the property
and the smallest input found. The student's answers are remembered per input, so the checks of
one role share their calls (determinism alone calls a second time, in a batch of its own).
A property earns the share of the inputs it holds on: where the code crashes it cannot hold,
and where a wrong answer breaks it it does not, so a crash never earns more than an answer
there. A property the code never gives one answer for is not checked and earns nothing.

:func:`deterministic` and :func:`inputs_unmodified` are laws of every role, for families to
list: calling again with the same input gives the same answer, and the arguments are not
modified (the sandbox sends back the arguments as each call left them, and they must equal
what was sent).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from grader.grading.checks.differential import costly_search, failure_observations
from grader.grading.shrink import EXPENSIVE_KINDS
from grader.grading.feedback import counterexample_details, graded, json_pairs, timed
from grader.grading.naming import note
from grader.grading.scoring import split_evenly
from grader.grading.search import generated, generated_examples, smallest_failure
from grader.spec.hooks import Failure
from grader.spec.hooks import StudentAnswer
from grader.result import CheckResult
from grader.spec.hooks import CheckContext, Property
from grader.spec.registry import role_of

MIN_EXAMPLES = 10
EXAMPLES_DIVISOR = 3


def property_examples(examples: int) -> int:
    """Inputs judged per property: the first third of the generated ones, at least a few."""
    return min(examples, max(MIN_EXAMPLES, examples // EXAMPLES_DIVISOR))


CHECK_ID = "properties"
TITLE = "Properties"


def run(context: CheckContext) -> list[CheckResult]:
    """One result per property of the milestone's function, the check's points split evenly."""
    calls, points = context.calls, context.points
    role = context.milestone.function
    properties = role_of(calls.exercise, role).properties(calls)
    examples = property_examples(generated(calls.exercise, role).count(calls.exercise))
    shares = split_evenly(points, len(properties))
    try:
        return [
            timed(lambda prop=prop, share=share: _property(context, role, prop, share, examples))
            for prop, share in zip(properties, shares)
        ]
    finally:
        calls.drop_unused_calls()  # second calls made ahead serve this check only


def _property(context: CheckContext, role: str, prop: Property, share: float, examples: int) -> CheckResult:
    """The property searched among the inputs the code does not crash on; crashes said once."""
    calls = context.calls
    check_id = f"property:{prop.id}"
    crashes: list[Failure] = []
    answered: set[str] = set()

    def judge(example: Any) -> Optional[Failure]:
        failure = prop.judge(example)
        if failure is not None and failure.crashed:
            crashes.append(failure)
            return None
        if failure is None:
            answered.add(repr(example))
        return failure

    failure = smallest_failure(calls.exercise, role, judge, judged=examples, seed=calls.seed,
                               calls=calls)
    if failure is None and crashes and not answered:
        return _not_checked(context, role, prop, share, crashes, examples)
    if failure is None and crashes:
        return _held_where_answered(context, role, prop, share, crashes, len(answered))
    if failure is None:
        return graded(check_id, prop.title, share, True,
                      message=f"holds on {examples} generated inputs")
    record = generated(calls.exercise, role)
    explanation = failure.explanation or (failure.answer.failure or "")
    details = counterexample_details(
        prop.id, record.given(calls, failure.example),
        actual=_actual_json(record, failure), explanation=explanation,
    )
    message = (
        f"Property '{prop.title}' fails; smallest input found: "
        f"{record.call_text(calls, failure.example)}. {explanation}"
    )
    costly = any(crash.answer.kind in EXPENSIVE_KINDS for crash in crashes) or costly_search(failure)
    held = 0 if costly else _held_on(calls.exercise, role, prop, examples, calls.seed)
    if held:
        message = (f"{message.strip()} It holds on {held} of {examples} generated inputs, and "
                   "earns their share, as a crash earns where it does not happen.")
    result = graded(check_id, prop.title, share, False, message=message.strip(), details=details)
    result.score = round(share * held / examples, 4) if examples else 0.0
    return note(context, result, role, failure_observations(calls.exercise, record, failure),
                self_verified=True)


def _held_on(exercise: Any, role: str, prop: Property, examples: int, seed: Any) -> int:
    """On how many of the first ``examples`` generated inputs ``prop`` holds, crashes not
    counted (the student's answers are remembered from the search: no call is made again)."""
    inputs = generated_examples(exercise, role, generated(exercise, role).count(exercise), seed)
    return sum(1 for example in inputs[:examples] if prop.judge(example) is None)
def _held_where_answered(context: CheckContext, role: str, prop: Property, share: float,
                         crashes: list[Failure], answered: int) -> CheckResult:
    """The property held wherever the code answered: the share of those inputs, as a wrong
    answer that breaks the property elsewhere earns, and the crash said."""
    calls = context.calls
    record = generated(calls.exercise, role)
    first = min(crashes, key=lambda crash: len(repr(crash.example)))
    inputs = len({repr(crash.example) for crash in crashes})
    charged = any(crash.answer.kind not in NOT_ITS_OWN for crash in crashes)
    what = "crashed" if first.answer.kind == "exception" else "gave no answer"
    message = (
        f"holds on the {answered} generated inputs {calls.function_name(role)} answers"
        + (", and earns their share" if charged else "")
        + f"; on {inputs} others (e.g. {record.call_text(calls, first.example)}) it {what}, "
        + ("so the property could not hold there" if charged else
           "which the cases and the differential check charge")
    )
    result = graded(f"property:{prop.id}", prop.title, share, True, message=message)
    if charged:
        result.score = round(share * answered / (answered + inputs), 4)
    return result


NOT_ITS_OWN = frozenset({"budget", "stuck", "timeout"})
"""Calls that gave no answer for want of time (the submission's budget, a function found stuck,
a loaded machine): not charged to a property, which the time-outs' own messages explain."""


def _not_checked(context: CheckContext, role: str, prop: Property, share: float,
                 crashes: list[Failure], examples: int) -> CheckResult:
    """The code answered none of the inputs: the property could not be checked at all."""
    calls = context.calls
    record = generated(calls.exercise, role)
    first = min(crashes, key=lambda crash: len(repr(crash.example)))
    cause = first.answer.failure or first.answer.kind
    name = calls.function_name(role)
    message = (
        f"not checked: {name} {'crashed' if first.answer.kind == 'exception' else 'gave no answer'} "
        f"on every one of the {examples} generated inputs "
        f"(e.g. {record.call_text(calls, first.example)}). The crash: {cause}"
    )
    details = counterexample_details(prop.id, record.given(calls, first.example),
                                     explanation=cause)
    details["cause"] = cause
    result = graded(f"property:{prop.id}", prop.title, share, False, message=message,
                    details=details)
    return note(context, result, role, failure_observations(calls.exercise, record, first),
                self_verified=True)


# --------------------------------------------------------------------------- laws of every role


def failed_call(example: Any, answer: StudentAnswer) -> Failure:
    """The failure of a call that gave no answer: nothing could be checked on ``example``."""
    return Failure(example, answer, explanation=answer.failure or "", crashed=True)


def deterministic(title: str, first_of: Callable[[Any], StudentAnswer],
                   again_of: Callable[[Any], StudentAnswer]) -> Property:
    """Calling again with the same input (``again_of``) gives the remembered answer."""
    def deterministic(example: Any) -> Optional[Failure]:
        first = first_of(example)
        if not first.ok:
            return failed_call(example, first)
        second = again_of(example)
        if not second.ok:
            return failed_call(example, second)
        if first.value != second.value:
            return Failure(example, second, explanation=(
                f"two calls with the same input returned {first.value!r} and then {second.value!r}"))
        return None

    return Property("deterministic", title, deterministic)


def inputs_unmodified(answer_of: Callable[[Any], StudentAnswer]) -> Property:
    def unmodified(example: Any) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        if answer.modified:
            return Failure(example, answer, explanation=answer.modified)
        return None

    return Property("inputs-unmodified", "the arguments are not modified", unmodified)


# --------------------------------------------------------------------------- reporting


def _actual_json(record: Any, failure: Failure) -> Any:
    if not failure.answer.ok:
        return None
    value = failure.answer.value
    if record.display is not None:
        return record.display(value)
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        return json_pairs(value)
    return value
