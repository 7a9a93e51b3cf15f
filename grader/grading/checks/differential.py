"""The ``differential`` check: on generated inputs the student's output equals the reference's.

The inputs come from :mod:`grader.grading.generated_inputs`. Encoding and sequence lengths are
checked with merge lists that training produced (the reference's): the two readings of
"apply merges in rank order" agree only on those. A failure reports Hypothesis's *shrunk*
smallest counterexample, with the first differing step and every known mistake that
reproduces the student's output on it (and on the unshrunk input the search started from).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from grader.grading.checks import CheckContext
from grader.grading.evidence import generated_real_work
from grader.grading.feedback import (
    counterexample_details,
    first_difference,
    graded,
    json_corpus,
    json_pairs,
    merges_message,
    merges_text,
    student_merges,
    timed,
)
from grader.grading.follow_through import own_lengths
from grader.grading.generated_inputs import (
    CORPUS_ROLES,
    Failure,
    reference_merges,
    smallest_failure,
)
from grader.grading.naming import note, observed
from grader.grading.student_calls import StudentCalls
from grader.grading.wordpiece_feedback import wordpiece_difference, wordpiece_message
from grader.mistakes.narrowing import Observation
from grader.result import CheckResult
from grader.spec import Exercise
from grader.spec.expected import divergence, wordpiece_merges
from reference import encode as reference_encode
from reference.sequence_lengths import sequence_lengths as reference_lengths

CHECK_ID = "differential"
TITLE = "Agrees with the reference on generated inputs"


def run(context: CheckContext) -> list[CheckResult]:
    """One result: pass when no generated input tells the student's code from the reference."""
    result = timed(lambda: _differential(context))
    result.real_work = generated_real_work(context.exercise, context.milestone.function,
                                           context.calls.seed)
    return [result]


def _differential(context: CheckContext) -> CheckResult:
    calls, milestone, points = context.calls, context.milestone, context.points
    role = milestone.function
    exercise = calls.exercise
    examples = exercise.properties.examples
    check_id, title = CHECK_ID, TITLE
    judge = {"train": _train_judge, "encode": _encode_judge, "sequence_lengths": _lengths_judge,
             "train_wordpiece": _other_judge("train_wordpiece", wordpiece_merges),
             "first_divergence": _other_judge("first_divergence", divergence)}[role]
    failure = smallest_failure(exercise, role, judge(calls), seed=calls.seed)
    if failure is None:
        return graded(check_id, title, points, True,
                      message=f"agrees with the reference on {examples} generated inputs")
    message, details = _report(calls, role, failure)
    seen = failure_observations(exercise, role, failure)
    if not failure.answer.ok:
        # A crash hides any other difference: look for one among the inputs that do not crash.
        wrong = smallest_failure(exercise, role, _without_crashes(judge(calls)), seed=calls.seed)
        if wrong is not None:
            also, _ = _report(calls, role, wrong)
            message += (". On the inputs where it does not crash it differs too: "
                        + also.replace(_LEAD, "the smallest found is ", 1))
            details.pop("cause", None)  # more than the crash: not to be folded into it
            seen += failure_observations(exercise, role, wrong)
    result = graded(check_id, title, points, False, message=message, details=details)
    return note(context, result, role, seen)


def _without_crashes(judge: Callable[[Any], Optional[Failure]]) -> Callable[[Any], Optional[Failure]]:
    def judge_values(example: Any) -> Optional[Failure]:
        failure = judge(example)
        return failure if failure is None or failure.answer.ok else None

    return judge_values


def _train_judge(calls: StudentCalls) -> Callable[[tuple[Any, int]], Optional[Failure]]:
    def judge(example: tuple[Any, int]) -> Optional[Failure]:
        corpus, num_merges = example
        expected = reference_merges(calls.exercise, corpus, num_merges)
        answer = calls.remembered("train", corpus, num_merges)
        if answer.ok and answer.value == expected:
            return None
        return Failure(example, answer, expected)

    return judge


def _other_judge(role: str, reference: Callable[[Exercise, Any, int], Any]) -> Callable[
        [StudentCalls], Callable[[tuple[Any, int]], Optional[Failure]]]:
    """A judge for a role trained on ``(corpus, num_merges)`` against ``reference``."""
    def for_calls(calls: StudentCalls) -> Callable[[tuple[Any, int]], Optional[Failure]]:
        def judge(example: tuple[Any, int]) -> Optional[Failure]:
            corpus, num_merges = example
            expected = reference(calls.exercise, corpus, num_merges)
            answer = calls.remembered(role, corpus, num_merges)
            if answer.ok and answer.value == expected:
                return None
            return Failure(example, answer, expected)

        return judge

    return for_calls


def _encode_judge(calls: StudentCalls) -> Callable[[tuple[Any, int, str]], Optional[Failure]]:
    def judge(example: tuple[Any, int, str]) -> Optional[Failure]:
        corpus, num_merges, word = example
        merges = reference_merges(calls.exercise, corpus, num_merges)
        expected = reference_encode(word, merges, end_of_word=calls.exercise.conventions.end_of_word)
        answer = calls.remembered("encode", word, merges)
        if answer.ok and answer.value == expected:
            return None
        return Failure(example, answer, expected)

    return judge


def _lengths_judge(calls: StudentCalls) -> Callable[[tuple[Any, int, str]], Optional[Failure]]:
    def judge(example: tuple[Any, int, str]) -> Optional[Failure]:
        corpus, num_merges, sentence = example
        merges = reference_merges(calls.exercise, corpus, num_merges)
        expected = reference_lengths(
            sentence, merges, end_of_word=calls.exercise.conventions.end_of_word
        )
        answer = calls.remembered("sequence_lengths", sentence, merges)
        if answer.ok and answer.value == expected:
            return None
        own = own_lengths(calls, sentence, merges, expected)  # right for their own tokenize?
        if answer.ok and own is not None and answer.value == own.expected:
            return None
        return Failure(example, answer, own.expected if own else expected)

    return judge


def _report(calls: StudentCalls, role: str, failure: Failure) -> tuple[str, dict]:
    """Message and counterexample details for the smallest failing input."""
    exercise = calls.exercise
    answer = failure.answer
    name = calls.function_name(role)
    if role in CORPUS_ROLES:
        corpus, num_merges = failure.example
        given: dict[str, Any] = {"corpus": json_corpus(corpus), "num_merges": num_merges}
        call_text = f"{name}({corpus!r}, {num_merges})"
        expected_json: Any = (failure.expected if role == "first_divergence"
                              else json_pairs(failure.expected))
    else:
        corpus, num_merges, text = failure.example
        merges = reference_merges(exercise, corpus, num_merges)
        given = {"corpus": json_corpus(corpus), "num_merges": num_merges,
                 _TEXT_KEY[role]: text, "merges": student_merges(exercise, merges)}
        call_text = (f"{name}({text!r}, {merges_text(exercise, merges)}), the merges learned "
                     f"from {corpus!r} with num_merges={num_merges}")
        expected_json = failure.expected
    lead = f"{_LEAD}{call_text}"
    if not answer.ok:
        details = counterexample_details("agrees-with-reference", given, expected=expected_json,
                                         explanation=answer.failure or "")
        details["cause"] = answer.failure or ""
        return f"{lead}: {answer.failure}", details
    difference = None
    if role == "train":
        difference = first_difference(exercise, corpus, num_merges, failure.expected, answer.value)
        what = merges_message(difference, num_merges) if difference else ""
        actual_json: Any = json_pairs(answer.value)
    elif role == "train_wordpiece":
        difference = wordpiece_difference(exercise, corpus, num_merges, failure.expected, answer.value)
        what = wordpiece_message(difference, num_merges) if difference else ""
        actual_json = json_pairs(answer.value)
    else:
        what = f"expected {failure.expected!r}, got {answer.value!r}."
        actual_json = answer.value
    details = counterexample_details("agrees-with-reference", given, expected=expected_json,
                                     actual=actual_json, difference=difference)
    return f"{lead}. {what}", details


_TEXT_KEY = {"encode": "word", "sequence_lengths": "sentence"}
_LEAD = "Differs from the reference on generated input; the smallest found is "


def failure_observations(exercise: Exercise, role: str, failure: Failure) -> list[Observation]:
    """What the student's code did on the smallest failing input, the unshrunk one and the
    other failing generated inputs.

    A shrunk input is tiny, and on a tiny input unrelated mistakes often coincide (on
    ``["aa"]`` a wrong tie rule and a missing marker both merge ``(a, a)`` first); the
    larger inputs tell them apart, and show a second mistake the smallest one hides.
    """
    first = failure.first or failure
    return [
        observed(seen.inputs or _diagnosis_input(exercise, role, seen.example), seen.answer)
        for seen in (failure, failure.first, *first.others)
        if seen is not None and (seen.answer.ok or seen.answer.kind == "exception")
    ]


def _diagnosis_input(exercise: Exercise, role: str, example: Any) -> dict[str, Any]:
    if role in CORPUS_ROLES:
        corpus, num_merges = example
        return {"corpus": corpus, "num_merges": num_merges}
    corpus, num_merges, text = example
    return {_TEXT_KEY[role]: text, "merges": reference_merges(exercise, corpus, num_merges)}
