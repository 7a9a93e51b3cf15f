"""The ``differential`` check: on generated inputs the student's output equals the reference's.

The inputs, the judge that compares the student with the reference on one of them, and how a
failure reads all come from the role's :class:`~grader.spec.hooks.Generated` record. A
failure reports Hypothesis's *shrunk* smallest counterexample, with what differs (for merges,
the first differing step) and every known mistake that reproduces the student's output on it
(and on the unshrunk input the search started from). A crash hides any other difference, so
the inputs where the code does not crash are searched too; when they all agree with the
reference, the crash costs only the inputs where it happens: the check fails, and earns the
share of the generated inputs answered right. A wrong answer is charged the same way, so that
a crash never earns more than an answer: the check earns the share of the generated inputs
answered right.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from grader.spec.hooks import CheckContext
from grader.grading.feedback import counterexample_details, graded, timed
from grader.grading.naming import note, observed
from grader.grading.search import generated, generated_examples, smallest_failure
from grader.grading.shrink import EXPENSIVE_KINDS
from grader.spec.hooks import Failure, Generated
from grader.grading.student_calls import StudentCalls
from grader.spec.mistake_book import Observation
from grader.result import CheckResult
from grader.spec import Exercise

CHECK_ID = "differential"
TITLE = "Agrees with the reference on generated inputs"
_LEAD = "Differs from the reference on generated input; the smallest found is "


def run(context: CheckContext) -> list[CheckResult]:
    """One result: pass when no generated input tells the student's code from the reference."""
    result = timed(lambda: _differential(context))
    result.real_work = generated_real_work(context.exercise, context.milestone.function,
                                           context.calls.seed)
    return [result]


def generated_real_work(exercise: Exercise, role: str, seed: Optional[int]) -> bool:
    """Whether some generated input of ``role`` has a right answer beyond a do-nothing one."""
    record = generated(exercise, role)
    return any(record.real_work(exercise, example)
               for example in generated_examples(exercise, role, record.count(exercise), seed))


def _differential(context: CheckContext) -> CheckResult:
    calls, milestone, points = context.calls, context.milestone, context.points
    role = milestone.function
    exercise = calls.exercise
    record = generated(exercise, role)
    judge = record.judge(calls)
    failure = smallest_failure(exercise, role, judge, seed=calls.seed, calls=calls)
    if failure is None:
        followed = getattr(judge, "followed_note", None)  # a judge that followed through
        followed_text = followed() if followed is not None else None
        if followed_text:
            return graded(CHECK_ID, TITLE, points, True,
                          message=f"right on {record.count(exercise)} generated inputs: {followed_text}")
        return graded(CHECK_ID, TITLE, points, True,
                      message=f"agrees with the reference on {record.count(exercise)} generated inputs")
    message, details = report(calls, record, failure)
    seen = failure_observations(exercise, record, failure)
    earned = 0.0
    if not failure.answer.ok:
        # A crash hides any other difference: look for one among the inputs that do not crash.
        answered: set[str] = set()
        crashed: set[str] = set()
        wrong = smallest_failure(exercise, role, _without_crashes(judge, answered, crashed),
                                 seed=calls.seed)
        if wrong is not None:
            also, _ = report(calls, record, wrong)
            message = _then(message, ". On the inputs where it does not crash it differs too: "
                            + also.replace(_LEAD, "the smallest found is ", 1))
            details.pop("cause", None)  # more than the crash: not to be folded into it
            seen += failure_observations(exercise, record, wrong)
            if not costly_search(wrong):
                earned, share = _share_answered_right(exercise, role, judge, calls.seed, points)
                message = _then(message, share)
        elif answered:
            # One bug costs once: a crash costs the inputs where it happens, not the check.
            tried = len(answered | crashed)
            earned = round(points * len(answered) / tried, 4)
            message = _then(message, f". On the {len(answered)} of {tried} generated inputs "
                            "where it does not crash it agrees with the reference, and earns "
                            "their share")
    elif not costly_search(failure):
        # A wrong answer costs the inputs where it is wrong, never more than a crash there.
        earned, share = _share_answered_right(exercise, role, judge, calls.seed, points)
        message = _then(message, share)
    result = graded(CHECK_ID, TITLE, points, False, message=message, details=details)
    result.score = earned
    return note(context, result, role, seen)


def _then(message: str, sentence: str) -> str:
    """``message`` followed by ``sentence`` (which starts with ". "), one full stop between."""
    if sentence and message.endswith("."):
        message = message[:-1]
    return message + sentence


def costly_search(failure: Failure) -> bool:
    """Whether the search met a call that gave no answer for want of time or memory: inputs
    after it may not have been run, and running them to count would cost the submission's
    time budget, so no share is counted (the check earns nothing, as before it was counted)."""
    first = failure.first or failure
    return any(seen.answer.kind in EXPENSIVE_KINDS
               for seen in (failure, first, *first.others) if seen is not None)


def _share_answered_right(exercise: Exercise, role: str, judge: Callable[[Any], Optional[Failure]],
                          seed: Optional[int], points: float) -> tuple[float, str]:
    """The share of ``points`` of the generated inputs ``judge`` passes (answers remembered
    from the search: no call is made again), and the sentence saying so ("" for none)."""
    examples = generated_examples(exercise, role, generated(exercise, role).count(exercise), seed)
    right = sum(1 for example in examples if judge(example) is None)
    if not right or not examples:
        return 0.0, ""
    return (round(points * right / len(examples), 4),
            f". It agrees with the reference on {right} of {len(examples)} generated inputs, "
            "and earns their share")


def _without_crashes(judge: Callable[[Any], Optional[Failure]], answered: set[str],
                     crashed: set[str]) -> Callable[[Any], Optional[Failure]]:
    """``judge`` with crashes passed over, noting which inputs were answered right and which
    crashed."""
    def judge_values(example: Any) -> Optional[Failure]:
        failure = judge(example)
        if failure is None:
            answered.add(repr(example))
        elif not failure.answer.ok:
            crashed.add(repr(example))
        return failure if failure is None or failure.answer.ok else None

    return judge_values


def report(calls: StudentCalls, record: Generated, failure: Failure) -> tuple[str, dict]:
    """Message and counterexample details for the smallest failing input."""
    answer = failure.answer
    lead = f"{_LEAD}{record.call_text(calls, failure.example)}"
    given = record.given(calls, failure.example)
    if not answer.ok:
        shown = record.shown(calls, failure)
        details = counterexample_details("agrees-with-reference", given, expected=shown.expected,
                                         explanation=answer.failure or "")
        details["cause"] = answer.failure or ""
        return f"{lead}: {answer.failure}", details
    shown = record.shown(calls, failure)
    details = counterexample_details("agrees-with-reference", given, expected=shown.expected,
                                     actual=shown.actual, difference=shown.difference)
    return f"{lead}. {shown.what}", details


def failure_observations(exercise: Exercise, record: Generated, failure: Failure) -> list[Observation]:
    """What the student's code did on the smallest failing input, the unshrunk one and the
    other failing generated inputs.

    A shrunk input is tiny, and on a tiny input unrelated mistakes often coincide (on
    ``["aa"]`` a wrong tie rule and a missing marker both merge ``(a, a)`` first); the
    larger inputs tell them apart, and show a second mistake the smallest one hides.
    """
    first = failure.first or failure
    return [
        observed(seen.inputs or record.observed(exercise, seen.example), seen.answer)
        for seen in (failure, failure.first, *first.others)
        if seen is not None and (seen.answer.ok or seen.answer.kind == "exception")
    ]
