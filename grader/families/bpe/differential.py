"""How character BPE's roles are checked on generated inputs, and how a failure reads.

Training is judged on ``(corpus, num_merges)``; encoding and sequence lengths on ``(corpus,
num_merges, text)``, with the merge lists the reference's training produced on the corpus
(the two readings of "apply merges in rank order" agree only on those). Sequence lengths are
judged against the student's own encoder when it departs from the reference's. A wrong merge
list is explained at its first differing step; inputs are shown in the form the student's
function takes. Each role's :class:`~grader.spec.hooks.Generated` record is built here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from grader.families.bpe import generated as inputs
from grader.families.bpe.evidence import trivial_answer
from grader.families.bpe.feedback import (
    first_difference,
    json_corpus,
    merges_message,
    merges_text,
    student_merges,
)
from grader.families.bpe.follow_through import own_lengths, own_merges
from grader.families.bpe.generated import reference_merges
from grader.families.api import Calls, Exercise, Failure, Generated, Shown, json_pairs
from reference import encode as reference_encode
from reference.sequence_lengths import sequence_lengths as reference_lengths

TRAIN, ENCODE, LENGTHS = "train", "encode", "sequence_lengths"
_TEXT_KEY = {ENCODE: "word", LENGTHS: "sentence"}


# --------------------------------------------------------------------------- training


def judge_against(role: str, reference: Callable[[Exercise, Any, int], Any]) -> Callable[
        [Calls], Callable[[tuple[Any, int]], Optional[Failure]]]:
    """The judge of a role trained on ``(corpus, num_merges)``: its answer against
    ``reference(exercise, corpus, num_merges)`` (WordPiece's roles use it too)."""
    def for_calls(calls: Calls) -> Callable[[tuple[Any, int]], Optional[Failure]]:
        def judge(example: tuple[Any, int]) -> Optional[Failure]:
            corpus, num_merges = example
            expected = reference(calls.exercise, corpus, num_merges)
            answer = calls.remembered(role, corpus, num_merges)
            if answer.ok and answer.value == expected:
                return None
            return Failure(example, answer, expected)

        return judge

    return for_calls


class TrainJudge:
    """The trainer's judge: the reference's merges, or those the reference's loop learns with
    the student's own helpers (follow-through: their mistake is charged where it lives).
    ``followed_note()`` says so when it accepted any input that way."""

    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        self.against = judge_against(TRAIN, reference_merges)(calls)
        self.followed: Optional[Any] = None

    def __call__(self, example: tuple[Any, int]) -> Optional[Failure]:
        failure = self.against(example)
        if failure is None or not failure.answer.ok:
            return failure
        corpus, num_merges = example
        own = own_merges(self.calls, corpus, num_merges, failure.expected)
        if own is not None and failure.answer.value == own.expected:
            self.followed = self.followed or own
            return None
        return failure

    def followed_note(self) -> Optional[str]:
        return self.followed.passed_note(self.calls) if self.followed else None


def train_judge(calls: Calls) -> Callable[[tuple[Any, int]], Optional[Failure]]:
    return TrainJudge(calls)


def corpus_call_text(calls: Calls, example: Any, role: str) -> str:
    corpus, num_merges = example
    return f"{calls.function_name(role)}({corpus!r}, {num_merges})"


def corpus_given(example: Any) -> dict[str, Any]:
    corpus, num_merges = example
    return {"corpus": json_corpus(corpus), "num_merges": num_merges}


def corpus_observed(exercise: Exercise, example: Any) -> dict[str, Any]:
    corpus, num_merges = example
    return {"corpus": corpus, "num_merges": num_merges}


def train_shown(calls: Calls, failure: Failure) -> Shown:
    expected = json_pairs(failure.expected)
    if not failure.answer.ok:
        return Shown(expected)
    corpus, num_merges = failure.example
    difference = first_difference(calls.exercise, corpus, num_merges, failure.expected,
                                  failure.answer.value)
    what = (merges_message(difference, num_merges, corpus, calls.exercise.conventions.end_of_word,
                           failure.expected) if difference else "")
    return Shown(expected, json_pairs(failure.answer.value), what, difference)


def train_real_work(exercise: Exercise, example: Any) -> bool:
    return not trivial_answer(exercise, TRAIN, example, reference_merges(exercise, *example))


# --------------------------------------------------------------------------- encode, lengths


def encode_judge(calls: Calls) -> Callable[[tuple[Any, int, str]], Optional[Failure]]:
    def judge(example: tuple[Any, int, str]) -> Optional[Failure]:
        corpus, num_merges, word = example
        merges = reference_merges(calls.exercise, corpus, num_merges)
        expected = reference_encode(word, merges, end_of_word=calls.exercise.conventions.end_of_word)
        answer = calls.remembered(ENCODE, word, merges)
        if answer.ok and answer.value == expected:
            return None
        return Failure(example, answer, expected)

    return judge


class LengthsJudge:
    """The judge of sequence lengths: the reference's counts, or those right for the student's
    own encoder where its tokens differ from the reference's (follow-through).
    ``followed_note()`` says so when it accepted any input that way."""

    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        self.followed: Optional[Any] = None

    def __call__(self, example: tuple[Any, int, str]) -> Optional[Failure]:
        calls = self.calls
        corpus, num_merges, sentence = example
        merges = reference_merges(calls.exercise, corpus, num_merges)
        expected = reference_lengths(
            sentence, merges, end_of_word=calls.exercise.conventions.end_of_word
        )
        answer = calls.remembered(LENGTHS, sentence, merges)
        if answer.ok and answer.value == expected:
            return None
        own = own_lengths(calls, sentence, merges, expected)  # right for their own tokenize?
        if answer.ok and own is not None and answer.value == own.expected:
            self.followed = self.followed or own
            return None
        return Failure(example, answer, own.expected if own else expected)

    def followed_note(self) -> Optional[str]:
        return self.followed.passed_note(self.calls) if self.followed else None


def lengths_judge(calls: Calls) -> Callable[[tuple[Any, int, str]], Optional[Failure]]:
    return LengthsJudge(calls)


def text_call_text(calls: Calls, example: Any, role: str) -> str:
    corpus, num_merges, text = example
    merges = reference_merges(calls.exercise, corpus, num_merges)
    return (f"{calls.function_name(role)}({text!r}, {merges_text(calls.exercise, merges)}), the "
            f"merges learned from {corpus!r} with num_merges={num_merges}")


def text_given(calls: Calls, example: Any, role: str) -> dict[str, Any]:
    corpus, num_merges, text = example
    merges = reference_merges(calls.exercise, corpus, num_merges)
    return {"corpus": json_corpus(corpus), "num_merges": num_merges, _TEXT_KEY[role]: text,
            "merges": student_merges(calls.exercise, merges)}


def text_observed(exercise: Exercise, example: Any, role: str) -> dict[str, Any]:
    corpus, num_merges, text = example
    return {_TEXT_KEY[role]: text, "merges": reference_merges(exercise, corpus, num_merges)}


def value_shown(calls: Calls, failure: Failure) -> Shown:
    if not failure.answer.ok:
        return Shown(failure.expected)
    return Shown(failure.expected, failure.answer.value,
                 f"expected {failure.expected!r}, got {failure.answer.value!r}.")


def encode_real_work(exercise: Exercise, example: Any) -> bool:
    corpus, num_merges, word = example
    merges = reference_merges(exercise, corpus, num_merges)
    expected = reference_encode(word, merges, end_of_word=exercise.conventions.end_of_word)
    return not trivial_answer(exercise, ENCODE, (word,), expected)


def lengths_real_work(exercise: Exercise, example: Any) -> bool:
    corpus, num_merges, sentence = example
    merges = reference_merges(exercise, corpus, num_merges)
    expected = reference_lengths(sentence, merges, end_of_word=exercise.conventions.end_of_word)
    return not trivial_answer(exercise, LENGTHS, (sentence,), expected)


# --------------------------------------------------------------------------- the records


def _common(role: str) -> dict[str, Any]:
    """What every BPE role's record shares: the settings, the count, the helper's values."""
    return {"count": inputs.count, "settings": inputs.settings_key,
            "ahead": inputs.merges_ahead, "install": inputs.install_merges,
            "reductions": inputs.reductions,
            "targeted": lambda exercise: inputs.targeted_examples(exercise, role)}


def corpus_record(role: str, judge: Callable[[Calls], Any],
                  shown: Callable[[Calls, Failure], Shown],
                  real_work: Callable[[Exercise, Any], bool],
                  strategy: Callable[[Exercise], Any] = inputs.training_strategy,
                  targeted: Optional[Callable[[Exercise], list]] = None) -> Generated:
    """The record of a role trained on ``(corpus, num_merges)`` (WordPiece's too, with its
    own ``strategy`` and ``targeted`` inputs added to BPE's)."""
    common = _common(TRAIN)
    if targeted is not None:
        common["targeted"] = targeted
    return Generated(
        strategy=strategy, judge=judge,
        call_text=lambda calls, example: corpus_call_text(calls, example, role),
        given=lambda calls, example: corpus_given(example),
        observed=corpus_observed, shown=shown, real_work=real_work,
        **common,
    )


TRAIN_INPUTS = corpus_record(TRAIN, train_judge, train_shown,
                             train_real_work)


def _text_record(role: str, strategy: Callable[[Exercise], Any], judge: Callable[[Calls], Any],
                 real_work: Callable[[Exercise, Any], bool]) -> Generated:
    return Generated(
        strategy=strategy, judge=judge,
        call_text=lambda calls, example: text_call_text(calls, example, role),
        given=lambda calls, example: text_given(calls, example, role),
        observed=lambda exercise, example: text_observed(exercise, example, role),
        shown=value_shown, real_work=real_work, **_common(role),
    )


ENCODE_INPUTS = _text_record(ENCODE, inputs.encoding_strategy, encode_judge, encode_real_work)
LENGTHS_INPUTS = _text_record(LENGTHS, inputs.sentence_strategy, lengths_judge, lengths_real_work)
