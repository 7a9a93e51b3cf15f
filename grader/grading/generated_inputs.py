"""Generated inputs for the checks that need no spec cases, and the search over them.

Hypothesis generates the inputs in the trusted process from an exercise's ``properties``
settings: small alphabets (each input often restricted to its first one or two letters),
so repeated symbols and ties are common, and corpora in the exercise's own corpus form.
Words to encode and sentences to measure are mostly pieces of the corpus's own words, so
that many merges apply to them. The first inputs of a run are generated once per process
and shared by every check.

:func:`smallest_failure` is the search the differential and property checks use. It is
reproducible (seeded from the grader's seed secret, or derandomized without one; no example
database, no deadline, independent of which grader modules happen to be loaded) and bounded: at most ``examples`` inputs, and after a
failure a fixed number of shrinking evaluations, or none at all when a call ran out of
time (each further try would cost a full time-out).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from random import Random
from typing import Any, Generic, Optional, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, find, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, NoSuchExample

from grader.grading.student_calls import StudentAnswer
from grader.spec import Exercise
from reference import train_bpe

Pair = tuple[str, str]
T = TypeVar("T")

SHRINK_EVALUATIONS = 120
WORDS_PER_LINE = 3
SENTENCE_WORDS = 4
MAX_GLUED = 3
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
    """``(corpus, num_merges)`` pairs.

    ``num_merges`` leans high and shrinks towards the maximum: later merges build the
    multi-letter symbols whose ties tell the tie rules apart, and on the tiny corpus a
    shrunk input has, the maximum simply means every merge there is.
    """
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
    ).map(lambda drawn: (fold_letters(drawn[1], alphabet, drawn[0]), most - drawn[2]))


def encoding_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, word)``: the word is encoded with what training learned.

    Words are mostly pieces of the corpus's words, alone or up to three glued together, so
    that many merges apply to them and the order they apply in matters; the rest are fresh.
    ``num_merges`` leans high for the same reason.
    """
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    pick = st.integers(0, 10_000)

    def build(drawn: tuple) -> tuple[Any, int, str]:
        count, corpus, fewer, glued, picks, fresh = drawn
        corpus = fold_letters(corpus, alphabet, count)
        pieces = word_pieces(corpus)
        if not pieces or glued == MAX_GLUED:
            word = fold_letters(fresh, alphabet, count)
        else:
            word = "".join(pieces[index % len(pieces)] for index in picks[: glued + 1])
        return corpus, most - fewer, word

    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
        st.integers(0, MAX_GLUED), st.tuples(*[pick] * MAX_GLUED), word_strategy(exercise),
    ).map(build)


def word_pieces(corpus: Any) -> list[str]:
    """Every substring of every word of the corpus, shortest first."""
    words = list(corpus) if isinstance(corpus, dict) else [w for text in corpus for w in text.split()]
    pieces = {word[i:j] for word in words for i in range(len(word)) for j in range(i + 1, len(word) + 1)}
    return sorted(pieces, key=lambda piece: (len(piece), piece))


def sentence_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, sentence)``: sentences of the corpus's words and their pieces,
    often repeated, or of fresh words."""
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    picks = st.lists(st.integers(0, 10_000), max_size=SENTENCE_WORDS)
    fresh = st.lists(word_strategy(exercise), max_size=SENTENCE_WORDS)

    def build(drawn: tuple) -> tuple[Any, int, str]:
        count, corpus, fewer, use_fresh, chosen, fresh_words = drawn
        corpus = fold_letters(corpus, alphabet, count)
        pieces = word_pieces(corpus)
        if use_fresh or not pieces:
            words = fold_letters(fresh_words, alphabet, count)
        else:
            words = [pieces[index % len(pieces)] for index in chosen]
        return corpus, most - fewer, " ".join(words)

    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
        st.booleans(), picks, fresh,
    ).map(build)


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
    inputs: Optional[dict[str, Any]] = None  # what ``answer`` was computed from, if not the example


Judge = Callable[[T], Optional[Failure[T]]]


CORPUS_ROLES = frozenset({"train", "train_wordpiece", "first_divergence"})
"""Roles whose input is a corpus and a number of merges."""


def strategy_for(exercise: Exercise, role: str) -> st.SearchStrategy[Any]:
    if role in CORPUS_ROLES:
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


def _random(seed: Optional[int]) -> Optional[Random]:
    """The source of Hypothesis's choices: seeded (a fresh one each time, so every search
    under one seed sees the same inputs), or None for the plain derandomized search."""
    return None if seed is None else Random(seed)


def generated_examples(exercise: Exercise, role: str, count: int, seed: Optional[int] = None) -> list[Any]:
    """The first ``count`` inputs Hypothesis generates for ``role`` under the exercise's settings.

    They depend only on those settings and ``seed`` (derived from the grader's seed secret,
    :mod:`grader.grading.secrets`; None means the public derandomized sequence), so they are
    generated once per process and shared by every check and every submission graded in it
    (callers must not mutate them).
    """
    props = exercise.properties
    key = (role, exercise.conventions.corpus_form, tuple(sorted(props.model_dump().items())), count,
           seed)
    if key not in _GENERATED:
        seen: list[Any] = []

        def record(example: Any) -> bool:
            seen.append(example)
            return False

        try:
            with independent_of_local_source():
                find(strategy_for(exercise, role), record, settings=search_settings(count),
                     random=_random(seed))
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
    exercise: Exercise, role: str, judge: Judge, judged: Optional[int] = None,
    seed: Optional[int] = None,
) -> Optional[Failure]:
    """The smallest generated input ``judge`` fails on, or None when it passes them all.

    The exercise's ``properties.examples`` inputs are generated once; the first ``judged``
    of them (default: all) are judged in order, the student's answers being remembered so
    checks sharing inputs share calls. ``seed`` picks the inputs (see
    :func:`generated_examples`). Only on a failure does Hypothesis search again, over
    the same inputs, and shrink it.
    """
    examples = exercise.properties.examples
    inputs = generated_examples(exercise, role, examples, seed)[:judged]
    first = next((failure for example in inputs if (failure := judge(example)) is not None), None)
    if first is None:
        return None
    if first.answer.kind in _EXPENSIVE_KINDS:
        return first
    search = _Shrink(judge)
    try:
        with independent_of_local_source():
            found = find(strategy_for(exercise, role), search.fails,
                         settings=search_settings(examples), random=_random(seed))
        smallest = search.memo.get(repr(found)) or search.smallest
    except NoSuchExample:
        smallest = None
    except HypothesisException:  # e.g. code that answers differently on a replay
        smallest = search.smallest
    if smallest is None or repr(smallest.example) == repr(first.example):
        return first
    smallest.first = first
    return smallest
