"""The laws every right answer of character BPE obeys, checked without the reference.

Train is deterministic, ``train(c, k)`` is a prefix of ``train(c, k + 1)``, and returns at
most ``k`` merges; encode is deterministic, its tokens join back to the word plus the
end-of-word marker, and every token is a character of the word, the marker or a merge
product; sequence lengths are deterministic, ordered ``char >= bpe >= word``, ``bpe`` equals
``char`` when there are no merges, and a sentence's counts are the sums of its words' (its
first word's plus the rest's). Every role's arguments must come back unmodified. Encode and
sequence-lengths inputs use merge lists the reference's training produced, as a student's own
``train_bpe`` would hand them over.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.families.bpe.follow_through import own_lengths
from grader.families.bpe.generated import reference_merges
from grader.families.api import (
    Calls,
    Failure,
    Property,
    StudentAnswer,
    deterministic,
    failed_call,
    inputs_unmodified,
)

Pair = tuple[str, str]
TRAIN, ENCODE, LENGTHS = "train", "encode", "sequence_lengths"


def train_properties(calls: Calls) -> list[Property]:
    def prefix_stable(example: tuple[Any, int]) -> Optional[Failure]:
        corpus, k = example
        shorter = calls.remembered(TRAIN, corpus, k)
        if not shorter.ok:
            return failed_call(example, shorter)
        longer = calls.remembered(TRAIN, corpus, k + 1)
        if not longer.ok:  # the crash is the call with k + 1: name its mistake on that input
            crash = failed_call(example, longer)
            crash.inputs = {"corpus": corpus, "num_merges": k + 1}
            return crash
        if longer.value[: len(shorter.value)] != shorter.value:
            return Failure(example, shorter, explanation=(
                f"train(corpus, {k}) returned {shorter.value!r}, which is not the start of "
                f"train(corpus, {k + 1}) = {longer.value!r}: merges must not change when more are asked for"))
        return None

    def at_most_k(example: tuple[Any, int]) -> Optional[Failure]:
        corpus, k = example
        answer = calls.remembered(TRAIN, corpus, k)
        if not answer.ok:
            return failed_call(example, answer)
        if len(answer.value) > k:
            return Failure(example, answer, explanation=(
                f"asked for {k} merges, returned {len(answer.value)}"))
        return None

    return [
        deterministic("same input, same merges",
                       lambda example: calls.remembered(TRAIN, *example),
                       lambda example: calls.answer(TRAIN, *example)),
        Property("prefix-stable", "train(c, k) is a prefix of train(c, k+1)", prefix_stable),
        Property("at-most-k", "at most k merges", at_most_k),
        inputs_unmodified(lambda example: calls.remembered(TRAIN, *example)),
    ]


def encode_properties(calls: Calls) -> list[Property]:
    exercise = calls.exercise
    marker = exercise.conventions.end_of_word

    def tokens_of(example: tuple[Any, int, str]) -> tuple[list[Pair], StudentAnswer]:
        corpus, k, word = example
        merges = reference_merges(exercise, corpus, k)
        return merges, calls.remembered(ENCODE, word, merges)

    def round_trip(example: tuple[Any, int, str]) -> Optional[Failure]:
        _, answer = tokens_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        word = example[2]
        if "".join(answer.value) != word + marker:
            return Failure(example, answer, explanation=(
                f"the tokens join to {''.join(answer.value)!r}, not the word plus the marker "
                f"{word + marker!r}"))
        return None

    def known_tokens(example: tuple[Any, int, str]) -> Optional[Failure]:
        merges, answer = tokens_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        allowed = set(example[2]) | {marker} | {a + b for a, b in merges}
        unknown = [token for token in answer.value if token not in allowed]
        if unknown:
            return Failure(example, answer, explanation=(
                f"{unknown[0]!r} is neither a character of the word, the marker {marker!r}, "
                "nor the product of a merge"))
        return None

    return [
        deterministic("same input, same tokens",
                       lambda example: tokens_of(example)[1],
                       lambda example: calls.answer(ENCODE, example[2], tokens_of(example)[0])),
        Property("round-trip", "tokens join back to the word plus the marker", round_trip),
        Property("known-tokens", "every token is a character, the marker or a merge product",
                 known_tokens),
        inputs_unmodified(lambda example: tokens_of(example)[1]),
    ]


def lengths_properties(calls: Calls) -> list[Property]:
    exercise = calls.exercise

    def lengths_of(example: tuple[Any, int, str]) -> tuple[list[Pair], StudentAnswer]:
        corpus, k, sentence = example
        merges = reference_merges(exercise, corpus, k)
        return merges, calls.remembered(LENGTHS, sentence, merges)

    def ordered(example: tuple[Any, int, str]) -> Optional[Failure]:
        _, answer = lengths_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        value = answer.value
        if not value["char"] >= value["bpe"] >= value["word"]:
            return Failure(example, answer, explanation=(
                f"expected char >= bpe >= word, got {value!r}"))
        return None

    def no_merges_is_char(example: tuple[Any, int, str]) -> Optional[Failure]:
        sentence = example[2]
        answer = calls.remembered(LENGTHS, sentence, [])
        if not answer.ok:
            return failed_call(example, answer)
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
            return failed_call(example, whole)
        head, rest = words[0], " ".join(words[1:])
        parts = [calls.remembered(LENGTHS, part, merges) for part in (head, rest)]
        for part in parts:
            if not part.ok:
                return failed_call(example, part)
        summed = {key: parts[0].value[key] + parts[1].value[key] for key in whole.value}
        if whole.value != summed:
            return Failure(example, whole, explanation=(
                f"every count is a sum over the words, so the counts of {example[2]!r} should be "
                f"those of {head!r} plus those of {rest!r}: {summed!r}, but they are {whole.value!r}"))
        return None

    return [
        deterministic("same input, same lengths",
                       lambda example: lengths_of(example)[1],
                       lambda example: calls.answer(LENGTHS, example[2],
                                                    lengths_of(example)[0])),
        Property("ordered", "char >= bpe >= word", ordered),
        Property("no-merges-is-char", "without merges, bpe equals char", no_merges_is_char),
        Property("additive", "a sentence's counts are the sums of its words'", additive),
        inputs_unmodified(lambda example: lengths_of(example)[1]),
    ]
