"""The ``differential`` check: on generated inputs the student's output equals the reference's.

Hypothesis generates the inputs in the trusted process from the spec's ``properties``
settings: small alphabets, so ties are common, and corpora in the exercise's own corpus form.
Encoding and sequence lengths are checked with merge lists that training produced (the
reference's): the two readings of "apply merges in rank order" agree only on those. A
failure reports Hypothesis's *shrunk* smallest counterexample, with the first differing step
and any known mistake that reproduces the student's output on it.

:func:`smallest_failure` is the search both generated checks use. It is deterministic
(derandomized, no example database, no deadline) and bounded: at most ``examples`` inputs
are generated, and shrinking stops after a fixed number of further evaluations, or at once
when a call ran out of time (each such call is expensive).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Optional, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, NoSuchExample

from reference import encode as reference_encode
from reference import train_bpe
from reference.sequence_lengths import sequence_lengths as reference_lengths

from .feedback import (
    counterexample_details,
    diagnose,
    first_difference,
    graded,
    json_corpus,
    json_pairs,
    merges_message,
    timed,
)
from .result import CheckResult
from .spec import Exercise, Milestone
from .student_calls import StudentAnswer, StudentCalls

Pair = tuple[str, str]
T = TypeVar("T")

SHRINK_EVALUATIONS = 120
WORDS_PER_LINE = 3
SENTENCE_WORDS = 4
# Outcomes after which shrinking stops: each further try would cost a full time-out.
_EXPENSIVE_KINDS = frozenset({"timeout", "budget", "memory"})


# --------------------------------------------------------------------------- strategies


def word_strategy(exercise: Exercise) -> st.SearchStrategy[str]:
    props = exercise.properties
    # Lists of letters rather than st.text: same words and shrinking, without the Unicode
    # tables st.text builds and caches on disk.
    letters = st.sampled_from(sorted(set(props.alphabet)))
    return st.lists(letters, min_size=1, max_size=props.max_word_length).map("".join)


def corpus_strategy(exercise: Exercise) -> st.SearchStrategy[Any]:
    """Corpora in the exercise's corpus form: word -> count mappings or lists of texts."""
    props = exercise.properties
    word = word_strategy(exercise)
    if exercise.conventions.corpus_form == "word-counts":
        return st.dictionaries(word, st.integers(1, props.max_count), max_size=props.max_words)
    line = st.lists(word, min_size=1, max_size=WORDS_PER_LINE).map(" ".join)
    return st.lists(line, max_size=props.max_words)


def training_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int]]:
    """``(corpus, num_merges)`` pairs."""
    return st.tuples(corpus_strategy(exercise), st.integers(0, exercise.properties.max_merges))


def encoding_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, word)``: the word is encoded with what training learned."""
    return st.tuples(
        corpus_strategy(exercise),
        st.integers(0, exercise.properties.max_merges),
        word_strategy(exercise),
    )


def sentence_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, sentence)``."""
    sentence = st.lists(word_strategy(exercise), min_size=0, max_size=SENTENCE_WORDS).map(" ".join)
    return st.tuples(
        corpus_strategy(exercise), st.integers(0, exercise.properties.max_merges), sentence
    )


def reference_merges(exercise: Exercise, corpus: Any, num_merges: int) -> list[Pair]:
    conventions = exercise.conventions
    return train_bpe(
        corpus, num_merges, tie_break=conventions.tie_break, end_of_word=conventions.end_of_word
    )


# --------------------------------------------------------------------------- the search


@dataclass
class Failure(Generic[T]):
    """A generated input on which the student's code failed, and what happened."""

    example: T
    answer: StudentAnswer
    expected: Any = None
    explanation: str = ""
    first: Optional["Failure[T]"] = None  # the unshrunk failure the search started from


Judge = Callable[[T], Optional[Failure[T]]]


def strategy_for(exercise: Exercise, role: str) -> st.SearchStrategy[Any]:
    if role == "train":
        return training_strategy(exercise)
    if role == "encode":
        return encoding_strategy(exercise)
    return sentence_strategy(exercise)


def search_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        print_blob=False,
    )


@contextmanager
def independent_of_local_source() -> Iterator[None]:
    """Generation that depends on the settings alone, not on which grader modules are loaded.

    Hypothesis mixes literals found in "local" (not installed) source files into what it
    generates, and caches them under ``./.hypothesis/`` in the working directory. For a
    grader that would make the inputs depend on how it was installed, and write into the
    student's directory; both are switched off here. Versions without the feature are
    left alone.
    """
    try:
        from hypothesis.internal.conjecture import providers

        empty = providers.Constants()
        original = providers._get_local_constants
        cache = providers.CONSTANTS_CACHE.cache
    except (ImportError, AttributeError):
        yield
        return
    providers._get_local_constants = lambda: empty
    cache.clear()
    try:
        yield
    finally:
        providers._get_local_constants = original
        cache.clear()


def generated_examples(exercise: Exercise, role: str, count: int) -> list[Any]:
    """The first ``count`` inputs Hypothesis generates for ``role`` under the exercise's settings.

    They depend only on those settings, so they are generated once per process and shared
    by every check and every submission graded in it (callers must not mutate them).
    """
    props = exercise.properties
    key = (role, exercise.conventions.corpus_form, tuple(sorted(props.model_dump().items())), count)
    if key not in _GENERATED:
        seen: list[Any] = []

        def record(example: Any) -> bool:
            seen.append(example)
            return False

        try:
            with independent_of_local_source():
                find(strategy_for(exercise, role), record, settings=search_settings(count))
        except NoSuchExample:
            pass
        _GENERATED[key] = tuple(seen)
    return list(_GENERATED[key])


_GENERATED: dict[tuple, tuple] = {}


@dataclass
class _Shrink(Generic[T]):
    """Hypothesis's condition while shrinking: memoised, and bounded in evaluations."""

    judge: Judge
    memo: dict[str, Optional[Failure]] = field(default_factory=dict)
    smallest: Optional[Failure] = None
    evaluations_after_failure: int = 0
    stopped: bool = False

    def fails(self, example: T) -> bool:
        key = repr(example)
        if key in self.memo:  # Hypothesis replays its final example: answer it the same way
            return self.memo[key] is not None
        if self.stopped:
            return False
        if self.smallest is not None:
            self.evaluations_after_failure += 1
            self.stopped = self.evaluations_after_failure >= SHRINK_EVALUATIONS
        failure = self.judge(example)
        self.memo[key] = failure
        if failure is not None:
            self.smallest = failure
            self.stopped = self.stopped or failure.answer.kind in _EXPENSIVE_KINDS
        return failure is not None


def smallest_failure(
    exercise: Exercise, role: str, judge: Judge, judged: Optional[int] = None
) -> Optional[Failure]:
    """The smallest generated input ``judge`` fails on, or None when it passes them all.

    The exercise's ``properties.examples`` inputs are generated once; the first ``judged``
    of them (default: all) are judged in order, the student's answers being remembered so
    checks sharing inputs share calls. Only on a failure does Hypothesis search again, over
    the same inputs, and shrink it.
    """
    examples = exercise.properties.examples
    inputs = generated_examples(exercise, role, examples)[:judged]
    first = next((failure for example in inputs if (failure := judge(example)) is not None), None)
    if first is None:
        return None
    if first.answer.kind in _EXPENSIVE_KINDS:
        return first
    search = _Shrink(judge)
    try:
        with independent_of_local_source():
            found = find(strategy_for(exercise, role), search.fails, settings=search_settings(examples))
        smallest = search.memo.get(repr(found)) or search.smallest
    except NoSuchExample:
        smallest = None
    except HypothesisException:  # e.g. code that answers differently on a replay
        smallest = search.smallest
    if smallest is None or repr(smallest.example) == repr(first.example):
        return first
    smallest.first = first
    return smallest


# --------------------------------------------------------------------------- the check


def run_differential(calls: StudentCalls, milestone: Milestone, points: float) -> list[CheckResult]:
    """One result: pass when no generated input tells the student's code from the reference."""
    return [timed(lambda: _differential(calls, milestone, points))]


def _differential(calls: StudentCalls, milestone: Milestone, points: float) -> CheckResult:
    role = milestone.function
    exercise = calls.exercise
    examples = exercise.properties.examples
    check_id, title = "differential", "Agrees with the reference on generated inputs"
    judge = {"train": _train_judge, "encode": _encode_judge, "sequence_lengths": _lengths_judge}[role]
    failure = smallest_failure(exercise, role, judge(calls))
    if failure is None:
        return graded(check_id, title, points, True,
                      message=f"agrees with the reference on {examples} generated inputs")
    message, details, found = _report(calls, role, failure)
    return graded(check_id, title, points, False, message=message, details=details,
                  diagnoses=found)


def _train_judge(calls: StudentCalls) -> Callable[[tuple[Any, int]], Optional[Failure]]:
    def judge(example: tuple[Any, int]) -> Optional[Failure]:
        corpus, num_merges = example
        expected = reference_merges(calls.exercise, corpus, num_merges)
        answer = calls.remembered("train", corpus, num_merges)
        if answer.ok and answer.value == expected:
            return None
        return Failure(example, answer, expected)

    return judge


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
        return Failure(example, answer, expected)

    return judge


def _report(calls: StudentCalls, role: str, failure: Failure) -> tuple[str, dict, list]:
    """Message, counterexample details and diagnoses for the smallest failing input."""
    exercise = calls.exercise
    answer = failure.answer
    name = calls.function_name(role)
    if role == "train":
        corpus, num_merges = failure.example
        given: dict[str, Any] = {"corpus": json_corpus(corpus), "num_merges": num_merges}
        call_text = f"{name}({corpus!r}, {num_merges})"
        diagnosis_input: dict[str, Any] = {"corpus": corpus, "num_merges": num_merges}
        expected_json: Any = json_pairs(failure.expected)
    else:
        corpus, num_merges, text = failure.example
        merges = reference_merges(exercise, corpus, num_merges)
        key = "word" if role == "encode" else "sentence"
        given = {"corpus": json_corpus(corpus), "num_merges": num_merges, key: text,
                 "merges": json_pairs(merges)}
        call_text = f"{name}({text!r}, merges)"
        diagnosis_input = {key: text, "merges": merges}
        expected_json = failure.expected
    lead = f"Differs from the reference on generated input; the smallest found is {call_text}"
    if role != "train":
        lead += f" with the merges learned from {corpus!r} in {num_merges} merges"
    if not answer.ok:
        details = counterexample_details("agrees-with-reference", given, expected=expected_json,
                                         explanation=answer.failure or "")
        return f"{lead}: {answer.failure}", details, []
    difference = None
    if role == "train":
        difference = first_difference(exercise, corpus, num_merges, failure.expected, answer.value)
        what = merges_message(difference, num_merges) if difference else ""
        actual_json: Any = json_pairs(answer.value)
    else:
        what = f"expected {failure.expected!r}, got {answer.value!r}."
        actual_json = answer.value
    details = counterexample_details("agrees-with-reference", given, expected=expected_json,
                                     actual=actual_json, difference=difference)
    found = diagnose(exercise, role, answer.value, diagnosis_input)
    return f"{lead}. {what}", details, found
