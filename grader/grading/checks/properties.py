"""The ``properties`` check: laws every correct answer obeys, checked without the reference.

Each property is a sub-check worth an equal share of the check's points, searched with the
same bounded, deterministic Hypothesis search as the differential check, over the first of
the same generated inputs; a failure names the property and the smallest input found. The
student's answers are remembered per input, so the checks of one role share their calls
(determinism alone calls a second time). Encode and sequence-lengths inputs use merge lists that the reference's training
produced, as a student's own ``train_bpe`` would hand them over.

Properties: train is deterministic, ``train(c, k)`` is a prefix of ``train(c, k + 1)``, and
returns at most ``k`` merges; encode is deterministic, its tokens join back to the word plus
the end-of-word marker, and every token is a character of the word, the marker or a merge
product; sequence lengths are deterministic, ordered ``char >= bpe >= word``, ``bpe``
equals ``char`` when there are no merges, and a sentence's counts are the sums of its
words' (its first word's plus the rest's).

Every role also checks that its inputs are not modified: the sandbox sends back the
arguments as each call left them, and they must equal what was sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from grader.grading.checks import CheckContext
from grader.grading.checks.differential import failure_observations
from grader.grading.feedback import (
    counterexample_details,
    graded,
    json_corpus,
    json_pairs,
    merges_text,
    student_merges,
    timed,
)
from grader.grading.generated_inputs import Failure, reference_merges, smallest_failure
from grader.grading.follow_through import own_lengths
from grader.grading.naming import note
from grader.grading.scoring import split_evenly
from grader.grading.student_calls import StudentAnswer, StudentCalls
from grader.result import CheckResult

Pair = tuple[str, str]
# A property judge returns None when the property holds on the example, else why it fails.
Judge = Callable[[Any], Optional[Failure]]

MIN_EXAMPLES = 10
EXAMPLES_DIVISOR = 3


@dataclass(frozen=True)
class Property:
    id: str
    title: str
    judge: Judge


def property_examples(examples: int) -> int:
    """Inputs judged per property: the first third of the generated ones, at least a few."""
    return min(examples, max(MIN_EXAMPLES, examples // EXAMPLES_DIVISOR))


CHECK_ID = "properties"
TITLE = "Properties"


def run(context: CheckContext) -> list[CheckResult]:
    """One result per property of the milestone's function, the check's points split evenly."""
    calls, points = context.calls, context.points
    role = context.milestone.function
    properties = _properties_for(role, calls)
    examples = property_examples(calls.exercise.properties.examples)
    shares = split_evenly(points, len(properties))
    return [
        timed(lambda prop=prop, share=share: _property(context, role, prop, share, examples))
        for prop, share in zip(properties, shares)
    ]


def _property(context: CheckContext, role: str, prop: Property, share: float, examples: int) -> CheckResult:
    """The property searched among the inputs the code does not crash on; crashes said once."""
    calls = context.calls
    check_id = f"property:{prop.id}"
    crashes: list[Failure] = []

    def judge(example: Any) -> Optional[Failure]:
        failure = prop.judge(example)
        if failure is not None and failure.crashed:
            crashes.append(failure)
            return None
        return failure

    failure = smallest_failure(calls.exercise, role, judge, judged=examples, seed=calls.seed)
    if failure is None and crashes:
        return _not_checked(context, role, prop, share, crashes, examples)
    if failure is None:
        return graded(check_id, prop.title, share, True,
                      message=f"holds on {examples} generated inputs")
    explanation = failure.explanation or (failure.answer.failure or "")
    details = counterexample_details(
        prop.id, _input_json(role, failure.example, calls),
        actual=_actual_json(failure), explanation=explanation,
    )
    message = (
        f"Property '{prop.title}' fails; smallest input found: "
        f"{_call_text(role, failure.example, calls)}. {explanation}"
    )
    result = graded(check_id, prop.title, share, False, message=message.strip(), details=details)
    return note(context, result, role, failure_observations(calls.exercise, role, failure))


def _not_checked(context: CheckContext, role: str, prop: Property, share: float,
                 crashes: list[Failure], examples: int) -> CheckResult:
    """The property held wherever the code answered; where it crashed it could not be checked."""
    calls = context.calls
    first = min(crashes, key=lambda crash: len(repr(crash.example)))
    cause = first.answer.failure or first.answer.kind
    name = calls.function_name(role)
    inputs = len({repr(crash.example) for crash in crashes})
    message = (
        f"not checked: {name} {'crashed' if first.answer.kind == 'exception' else 'gave no answer'} "
        f"on {inputs} of the {examples} generated inputs "
        f"(e.g. {_call_text(role, first.example, calls)}), and the property holds on the others. "
        f"The crash: {cause}"
    )
    details = counterexample_details(prop.id, _input_json(role, first.example, calls),
                                     explanation=cause)
    details["cause"] = cause
    result = graded(f"property:{prop.id}", prop.title, share, False, message=message,
                    details=details)
    return note(context, result, role, failure_observations(calls.exercise, role, first))


# --------------------------------------------------------------------------- per role


def _properties_for(role: str, calls: StudentCalls) -> list[Property]:
    if role == "train":
        return _train_properties(calls)
    if role == "encode":
        return _encode_properties(calls)
    return _lengths_properties(calls)


def _failed_call(example: Any, answer: StudentAnswer) -> Failure:
    return Failure(example, answer, explanation=answer.failure or "", crashed=True)


def _train_properties(calls: StudentCalls) -> list[Property]:
    def prefix_stable(example: tuple[Any, int]) -> Optional[Failure]:
        corpus, k = example
        shorter = calls.remembered("train", corpus, k)
        if not shorter.ok:
            return _failed_call(example, shorter)
        longer = calls.remembered("train", corpus, k + 1)
        if not longer.ok:
            return _failed_call(example, longer)
        if longer.value[: len(shorter.value)] != shorter.value:
            return Failure(example, shorter, explanation=(
                f"train(corpus, {k}) returned {shorter.value!r}, which is not the start of "
                f"train(corpus, {k + 1}) = {longer.value!r}: merges must not change when more are asked for"))
        return None

    def at_most_k(example: tuple[Any, int]) -> Optional[Failure]:
        corpus, k = example
        answer = calls.remembered("train", corpus, k)
        if not answer.ok:
            return _failed_call(example, answer)
        if len(answer.value) > k:
            return Failure(example, answer, explanation=(
                f"asked for {k} merges, returned {len(answer.value)}"))
        return None

    return [
        _deterministic("same input, same merges",
                       lambda example: calls.remembered("train", *example),
                       lambda example: calls.answer("train", *example)),
        Property("prefix-stable", "train(c, k) is a prefix of train(c, k+1)", prefix_stable),
        Property("at-most-k", "at most k merges", at_most_k),
        _inputs_unmodified(lambda example: calls.remembered("train", *example)),
    ]


def _encode_properties(calls: StudentCalls) -> list[Property]:
    exercise = calls.exercise
    marker = exercise.conventions.end_of_word

    def tokens_of(example: tuple[Any, int, str]) -> tuple[list[Pair], StudentAnswer]:
        corpus, k, word = example
        merges = reference_merges(exercise, corpus, k)
        return merges, calls.remembered("encode", word, merges)

    def round_trip(example: tuple[Any, int, str]) -> Optional[Failure]:
        _, answer = tokens_of(example)
        if not answer.ok:
            return _failed_call(example, answer)
        word = example[2]
        if "".join(answer.value) != word + marker:
            return Failure(example, answer, explanation=(
                f"the tokens join to {''.join(answer.value)!r}, not the word plus the marker "
                f"{word + marker!r}"))
        return None

    def known_tokens(example: tuple[Any, int, str]) -> Optional[Failure]:
        merges, answer = tokens_of(example)
        if not answer.ok:
            return _failed_call(example, answer)
        allowed = set(example[2]) | {marker} | {a + b for a, b in merges}
        unknown = [token for token in answer.value if token not in allowed]
        if unknown:
            return Failure(example, answer, explanation=(
                f"{unknown[0]!r} is neither a character of the word, the marker {marker!r}, "
                "nor the product of a merge"))
        return None

    return [
        _deterministic("same input, same tokens",
                       lambda example: tokens_of(example)[1],
                       lambda example: calls.answer("encode", example[2], tokens_of(example)[0])),
        Property("round-trip", "tokens join back to the word plus the marker", round_trip),
        Property("known-tokens", "every token is a character, the marker or a merge product",
                 known_tokens),
        _inputs_unmodified(lambda example: tokens_of(example)[1]),
    ]


def _lengths_properties(calls: StudentCalls) -> list[Property]:
    exercise = calls.exercise

    def lengths_of(example: tuple[Any, int, str]) -> tuple[list[Pair], StudentAnswer]:
        corpus, k, sentence = example
        merges = reference_merges(exercise, corpus, k)
        return merges, calls.remembered("sequence_lengths", sentence, merges)

    def ordered(example: tuple[Any, int, str]) -> Optional[Failure]:
        _, answer = lengths_of(example)
        if not answer.ok:
            return _failed_call(example, answer)
        value = answer.value
        if not value["char"] >= value["bpe"] >= value["word"]:
            return Failure(example, answer, explanation=(
                f"expected char >= bpe >= word, got {value!r}"))
        return None

    def no_merges_is_char(example: tuple[Any, int, str]) -> Optional[Failure]:
        sentence = example[2]
        answer = calls.remembered("sequence_lengths", sentence, [])
        if not answer.ok:
            return _failed_call(example, answer)
        value = answer.value
        own = own_lengths(calls, sentence, [], {**value, "bpe": value["char"]})
        if value["bpe"] != value["char"] and not (own and value == own.expected):
            return Failure(example, answer, inputs={"sentence": sentence, "merges": []}, explanation=(
                f"with no merges BPE is character-level, so bpe should equal char; got {value!r}"))
        return None

    def additive(example: tuple[Any, int, str]) -> Optional[Failure]:
        merges, whole = lengths_of(example)
        words = example[2].split()
        if len(words) < 2:
            return None
        if not whole.ok:
            return _failed_call(example, whole)
        head, rest = words[0], " ".join(words[1:])
        parts = [calls.remembered("sequence_lengths", part, merges) for part in (head, rest)]
        for part in parts:
            if not part.ok:
                return _failed_call(example, part)
        summed = {key: parts[0].value[key] + parts[1].value[key] for key in whole.value}
        if whole.value != summed:
            return Failure(example, whole, explanation=(
                f"every count is a sum over the words, so the counts of {example[2]!r} should be "
                f"those of {head!r} plus those of {rest!r}: {summed!r}, but they are {whole.value!r}"))
        return None

    return [
        _deterministic("same input, same lengths",
                       lambda example: lengths_of(example)[1],
                       lambda example: calls.answer("sequence_lengths", example[2],
                                                    lengths_of(example)[0])),
        Property("ordered", "char >= bpe >= word", ordered),
        Property("no-merges-is-char", "without merges, bpe equals char", no_merges_is_char),
        Property("additive", "a sentence's counts are the sums of its words'", additive),
        _inputs_unmodified(lambda example: lengths_of(example)[1]),
    ]


def _deterministic(title: str, first_of: Callable[[Any], StudentAnswer],
                   again_of: Callable[[Any], StudentAnswer]) -> Property:
    """Calling again with the same input (``again_of``) gives the remembered answer."""
    def deterministic(example: Any) -> Optional[Failure]:
        first = first_of(example)
        if not first.ok:
            return _failed_call(example, first)
        second = again_of(example)
        if not second.ok:
            return _failed_call(example, second)
        if first.value != second.value:
            return Failure(example, second, explanation=(
                f"two calls with the same input returned {first.value!r} and then {second.value!r}"))
        return None

    return Property("deterministic", title, deterministic)


def _inputs_unmodified(answer_of: Callable[[Any], StudentAnswer]) -> Property:
    def unmodified(example: Any) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return _failed_call(example, answer)
        if answer.modified:
            return Failure(example, answer, explanation=answer.modified)
        return None

    return Property("inputs-unmodified", "the arguments are not modified", unmodified)


# --------------------------------------------------------------------------- reporting


def _input_json(role: str, example: Any, calls: StudentCalls) -> dict[str, Any]:
    if role == "train":
        corpus, k = example
        return {"corpus": json_corpus(corpus), "num_merges": k}
    corpus, k, text = example
    key = "word" if role == "encode" else "sentence"
    merges = reference_merges(calls.exercise, corpus, k)
    return {"corpus": json_corpus(corpus), "num_merges": k, key: text,
            "merges": student_merges(calls.exercise, merges)}


def _call_text(role: str, example: Any, calls: StudentCalls) -> str:
    name = calls.function_name(role)
    if role == "train":
        return f"{name}({example[0]!r}, {example[1]})"
    corpus, k, text = example
    merges = reference_merges(calls.exercise, corpus, k)
    return (f"{name}({text!r}, {merges_text(calls.exercise, merges)}), the merges learned from "
            f"{corpus!r} with num_merges={k}")


def _actual_json(failure: Failure) -> Any:
    if not failure.answer.ok:
        return None
    value = failure.answer.value
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        return json_pairs(value)
    return value
