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


def letter_count_strategy(exercise: Exercise) -> st.SearchStrategy[int]:
    """How many letters of the alphabet one input uses (the first one, two, ... of them).

    Fewer letters mean more repeated symbols, overlapping pairs and ties, where most
    mistakes show; about half the inputs use every letter, and shrinking heads for one.
    """
    size = len(_alphabet(exercise))
    return st.one_of(st.integers(1, size), st.just(size))


def _alphabet(exercise: Exercise) -> str:
    return "".join(sorted(set(exercise.properties.alphabet)))


def word_strategy(exercise: Exercise) -> st.SearchStrategy[str]:
    # Lists of letters rather than st.text: the same words and shrinking, without the
    # Unicode tables st.text builds and caches on disk.
    letters = st.sampled_from(_alphabet(exercise))
    return st.lists(letters, min_size=1, max_size=exercise.properties.max_word_length).map("".join)


def corpus_strategy(exercise: Exercise) -> st.SearchStrategy[Any]:
    """Corpora in the exercise's corpus form: word -> count mappings or lists of texts."""
    props = exercise.properties
    word = word_strategy(exercise)
    if exercise.conventions.corpus_form == "word-counts":
        return st.dictionaries(word, st.integers(1, props.max_count), max_size=props.max_words)
    line = st.lists(word, min_size=1, max_size=WORDS_PER_LINE).map(" ".join)
    return st.lists(line, max_size=props.max_words)


def fold_letters(value: Any, alphabet: str, count: int) -> Any:
    """``value`` (a text, a list of texts or word counts) using only the first ``count`` letters.

    Each letter becomes the letter at its index modulo ``count``; words that become equal in
    a word-count mapping add up their counts. Plain maps like this keep Hypothesis fast
    (no dependent draws) and shrink well.
    """
    table = str.maketrans({letter: alphabet[index % count] for index, letter in enumerate(alphabet)})
    if isinstance(value, str):
        return value.translate(table)
    if isinstance(value, dict):
        folded: dict[str, int] = {}
        for word, times in value.items():
            key = word.translate(table)
            folded[key] = folded.get(key, 0) + times
        return folded
    return [text.translate(table) for text in value]


def training_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int]]:
    """``(corpus, num_merges)`` pairs."""
    alphabet = _alphabet(exercise)
    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise),
        st.integers(0, exercise.properties.max_merges),
    ).map(lambda drawn: (fold_letters(drawn[1], alphabet, drawn[0]), drawn[2]))


def encoding_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, word)``: the word is encoded with what training learned.

    Words are mostly pieces of the corpus's words, alone or two glued together, so that many
    merges apply to them and the order they apply in matters; the rest are fresh words.
    Merge counts lean high for the same reason.
    """
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    pick = st.integers(0, 10_000)

    def build(drawn: tuple) -> tuple[Any, int, str]:
        count, corpus, fewer, kind, first, second, fresh = drawn
        corpus = fold_letters(corpus, alphabet, count)
        pieces = word_pieces(corpus)
        if not pieces or kind == 2:
            word = fold_letters(fresh, alphabet, count)
        else:
            word = pieces[first % len(pieces)] + (pieces[second % len(pieces)] if kind else "")
        return corpus, most - fewer, word

    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
        st.integers(0, 2), pick, pick, word_strategy(exercise),
    ).map(build)


def word_pieces(corpus: Any) -> list[str]:
    """Every substring of every word of the corpus, shortest first."""
    words = list(corpus) if isinstance(corpus, dict) else [w for text in corpus for w in text.split()]
    pieces = {word[i:j] for word in words for i in range(len(word)) for j in range(i + 1, len(word) + 1)}
    return sorted(pieces, key=lambda piece: (len(piece), piece))


def sentence_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, sentence)``."""
    alphabet = _alphabet(exercise)
    sentence = st.lists(word_strategy(exercise), max_size=SENTENCE_WORDS).map(" ".join)
    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise),
        st.integers(0, exercise.properties.max_merges), sentence,
    ).map(lambda drawn: (
        fold_letters(drawn[1], alphabet, drawn[0]), drawn[2], fold_letters(drawn[3], alphabet, drawn[0])
    ))


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
        expected_json: Any = json_pairs(failure.expected)
    else:
        corpus, num_merges, text = failure.example
        merges = reference_merges(exercise, corpus, num_merges)
        given = {"corpus": json_corpus(corpus), "num_merges": num_merges,
                 _TEXT_KEY[role]: text, "merges": json_pairs(merges)}
        call_text = (f"{name}({text!r}, {merges!r}), the merges learned from {corpus!r} "
                     f"with num_merges={num_merges}")
        expected_json = failure.expected
    lead = f"Differs from the reference on generated input; the smallest found is {call_text}"
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
    return f"{lead}. {what}", details, _diagnoses(exercise, role, failure)


_TEXT_KEY = {"encode": "word", "sequence_lengths": "sentence"}


def _diagnoses(exercise: Exercise, role: str, failure: Failure) -> list:
    """Known mistakes that reproduce the student's output on every failing input seen.

    A shrunk input is tiny, and on a tiny input unrelated mistakes often coincide (on
    ``["aa"]`` a wrong tie rule and a missing marker both merge ``(a, a)`` first); the
    unshrunk input the search started from tells them apart.
    """
    found: Optional[list] = None
    for seen in (failure, failure.first):
        if seen is None or not seen.answer.ok:
            continue
        named = diagnose(exercise, role, seen.answer.value, _diagnosis_input(exercise, role, seen.example))
        found = named if found is None else [d for d in found if d.id in {n.id for n in named}]
    return found or []


def _diagnosis_input(exercise: Exercise, role: str, example: Any) -> dict[str, Any]:
    if role == "train":
        corpus, num_merges = example
        return {"corpus": corpus, "num_merges": num_merges}
    corpus, num_merges, text = example
    return {_TEXT_KEY[role]: text, "merges": reference_merges(exercise, corpus, num_merges)}
