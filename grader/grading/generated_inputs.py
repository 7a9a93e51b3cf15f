"""Generated inputs for the checks that need no spec cases, and the search over them.

Hypothesis generates the inputs in the trusted process from an exercise's ``properties``
settings: small alphabets (each input often restricted to its first one or two letters),
so repeated symbols and ties are common, and corpora in the exercise's own corpus form.
Real text is more than a few lowercase letters, so some corpora and words are *decorated*:
a capital, a digit, punctuation or a non-ASCII letter (:data:`DECORATIONS`), which is where
code that lowercases, strips or assumes ASCII shows. Words to encode are pieces of the
corpus's words or learned tokens glued together (where a later, longer token overlaps an
earlier merge, so rank order, longest match and left to right disagree), alone or up to
four at a time, or fresh words. The first inputs of a run are generated once per process
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

from grader.grading import ahead
from grader.grading.lazy_module import LazyModule
from grader.grading.student_calls import StudentAnswer
from grader.spec import Exercise
from reference import train_bpe

# Imported on first use: a grading whose inputs come ready from its helper
# (:mod:`grader.grading.ahead`) needs Hypothesis only to shrink a failure.
hypothesis = LazyModule("hypothesis")
st = LazyModule("hypothesis.strategies")
hypothesis_errors = LazyModule("hypothesis.errors")

Pair = tuple[str, str]
T = TypeVar("T")

SHRINK_EVALUATIONS = 120
WORDS_PER_LINE = 3
SENTENCE_WORDS = 4
MAX_GLUED = 4
DECORATIONS = ("capital", "punctuation", "digit", "accent")
"""Ways a generated word departs from the alphabet; draws past these leave it plain."""
PLAIN_DRAWS = 4
FAILURES_KEPT = 12
DRAWS_PER_EXAMPLE = 2
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


def decorate(value: Any, how: int) -> Any:
    """``value`` (a word, a text, a list of texts or word counts) with every other word
    decorated by ``DECORATIONS[how]``; ``how`` past them leaves it as it is.

    Equal words of a word-count mapping add up their counts, as in :func:`fold_letters`.
    """
    if how >= len(DECORATIONS):
        return value
    change = _DECORATE[DECORATIONS[how]]
    if isinstance(value, str):
        return " ".join(change(word) if index % 2 == 0 else word
                        for index, word in enumerate(value.split(" ")))
    if isinstance(value, dict):
        decorated: dict[str, int] = {}
        for index, (word, times) in enumerate(value.items()):
            key = change(word) if index % 2 == 0 else word
            decorated[key] = decorated.get(key, 0) + times
        return decorated
    return [decorate(text, how) for text in value]


_DECORATE = {
    "capital": lambda word: word[:1].upper() + word[1:],
    "punctuation": lambda word: word + "." if len(word) % 2 else word + ",",
    "digit": lambda word: word[:-1] + "7" + word[-1:] if len(word) > 1 else word + "7",
    "accent": lambda word: word.replace(word[:1], "é", 1) if word else word,
}


def decoration_strategy() -> st.SearchStrategy[int]:
    """Which decoration, if any (index into :data:`DECORATIONS`; past it, none): about half
    the draws decorate, and shrinking heads for none."""
    plain = len(DECORATIONS)
    return st.sampled_from([plain] * PLAIN_DRAWS + list(range(len(DECORATIONS))))


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
        decoration_strategy(),
    ).map(lambda drawn: (decorate(fold_letters(drawn[1], alphabet, drawn[0]), drawn[3]),
                         most - drawn[2]))


def encoding_strategy(exercise: Exercise) -> st.SearchStrategy[tuple[Any, int, str]]:
    """``(corpus, num_merges, word)``: the word is encoded with what training learned.

    Words are pieces of the corpus's words or tokens training learned, one to four glued
    together (tokens also overlapping by a character), so that many merges apply to them and the order they apply in matters, or
    fresh words; some are decorated. ``num_merges`` leans high for the same reason.
    """
    alphabet = _alphabet(exercise)
    most = exercise.properties.max_merges
    pick = st.integers(0, 10_000)

    def build(drawn: tuple) -> tuple[Any, int, str]:
        count, corpus, fewer, glued, picks, fresh, source, corpus_look, word_look = drawn
        corpus = decorate(fold_letters(corpus, alphabet, count), corpus_look)
        num_merges = most - fewer
        pieces = word_pieces(corpus) if source == 0 else learned_tokens(exercise, corpus, num_merges)
        if not pieces or glued == MAX_GLUED:
            word = fold_letters(fresh, alphabet, count)
        else:
            chosen = [pieces[index % len(pieces)] for index in picks[: glued + 1]]
            word = overlapped(chosen) if source == 2 else "".join(chosen)
        return corpus, num_merges, decorate(word, word_look)

    return st.tuples(
        letter_count_strategy(exercise), corpus_strategy(exercise), st.integers(0, most),
        st.integers(0, MAX_GLUED), st.tuples(*[pick] * MAX_GLUED), word_strategy(exercise),
        st.integers(0, 2), decoration_strategy(), decoration_strategy(),
    ).map(build)


def overlapped(pieces: list[str]) -> str:
    """The pieces joined, each sharing its first character with the end of the one before
    when they can: two learned tokens that compete for one symbol, as in ``aa`` + ``ac``."""
    word = pieces[0] if pieces else ""
    for piece in pieces[1:]:
        word += piece[1:] if word and piece and word[-1] == piece[0] and len(piece) > 1 else piece
    return word


TARGETED_AT = 5
"""Where the targeted inputs go among the generated ones: early, so every check judges them."""


def targeted_examples(exercise: Exercise, role: str) -> list[Any]:
    """A few fixed inputs in the exercise's letters where plausible wrong code shows.

    The corpus ``xxx, xzz x3, yxxz x2`` learns ``(x, z)`` before ``(x, x)``: in ``xxz`` the
    earlier merge wins, while the longest or leftmost token does not; with more merges
    ``(x, xz)`` competes too. In ``yxzy x2, xy x3, xyyx`` the leftmost pair, the longest
    token and the most frequent pair disagree as well, under every tie rule. Capitals,
    punctuation and a digit show code that lowercases, strips or drops characters.
    """
    letters = (_alphabet(exercise) * 3)[:3]
    x, y, z = letters[0], letters[1 % len(letters)], letters[2 % len(letters)]
    overlapping = _in_form(exercise, {x * 3: 1, x + z + z: 3, y + x + x + z: 2})
    competing = _in_form(exercise, {y + x + z + y: 2, x + y: 3, x + y + y + x: 1})
    decorated = _in_form(exercise, {x.upper() + x + x: 2, x + z + z + ".": 3, y + x + "7" + z: 2,
                                    z + x + ",": 1})
    plain = [x + x + z, z + x + x + z, x + x + x + z, y + x + x + x + z, x + x + z + x + z + z]
    odd = [x.upper() + x + z, x + x + z + ".", "(" + z + x + x + z + ")"]
    if role in CORPUS_ROLES:
        return [(corpus, merges) for corpus in (overlapping, competing, decorated)
                for merges in (4, 6)]
    if role == "encode":
        return ([(overlapping, merges, word) for merges in (4, 6) for word in plain]
                + [(overlapping, 4, word) for word in odd]
                + [(competing, 4, word) for word in (x + x + y, y + x + y, y + x + y + x)]
                + [(competing, 6, word) for word in (x + x + y, x + y + y + x + y)])
    return [(overlapping, merges, " ".join(plain[:3]) + " " + word)
            for merges in (4, 6) for word in odd + plain[3:]]


def _in_form(exercise: Exercise, counts: dict[str, int]) -> Any:
    if exercise.conventions.corpus_form == "word-counts":
        return dict(counts)
    return [" ".join(word for word, times in counts.items() for _ in range(times))]


def learned_tokens(exercise: Exercise, corpus: Any, num_merges: int) -> list[str]:
    """The tokens training learns from ``corpus``, latest (longest-built) first, marker cut off."""
    marker = exercise.conventions.end_of_word
    tokens = []
    for first, second in reversed(reference_merges(exercise, corpus, num_merges)):
        token = first + second
        token = token[: -len(marker)] if marker and token.endswith(marker) else token
        if token and token not in tokens:
            tokens.append(token)
    return tokens


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
    """The reference's merges (a fresh list; remembered, as every check asks for the same)."""
    key = _merges_key(exercise, corpus, num_merges)
    if key not in _MERGES:
        conventions = exercise.conventions
        _MERGES[key] = tuple(train_bpe(
            corpus, num_merges, tie_break=conventions.tie_break,
            end_of_word=conventions.end_of_word))
    return list(_MERGES[key])


def _merges_key(exercise: Exercise, corpus: Any, num_merges: int) -> tuple:
    conventions = exercise.conventions
    return conventions.tie_break, conventions.end_of_word, repr(corpus), num_merges


_MERGES: dict[tuple, tuple] = {}


# --------------------------------------------------------------------------- the search


@dataclass
class Failure(Generic[T]):
    """A generated input on which the student's code failed, and what happened."""

    example: T
    answer: StudentAnswer
    expected: Any = None
    explanation: str = ""
    first: Optional["Failure[T]"] = None  # the unshrunk failure the search started from
    others: list["Failure[T]"] = field(default_factory=list)  # later failing generated inputs
    inputs: Optional[dict[str, Any]] = None  # what ``answer`` was computed from, if not the example
    crashed: bool = False  # the call gave no answer at all, so nothing was checked


Judge = Callable[[T], Optional[Failure[T]]]


CORPUS_ROLES = frozenset({"train", "train_wordpiece", "first_divergence"})
"""Roles whose input is a corpus and a number of merges."""
GENERATED_ROLES = CORPUS_ROLES | {"encode", "sequence_lengths"}
"""Roles :func:`strategy_for` generates inputs for."""


def strategy_for(exercise: Exercise, role: str) -> st.SearchStrategy[Any]:
    if role in CORPUS_ROLES:
        return training_strategy(exercise)
    if role == "encode":
        return encoding_strategy(exercise)
    return sentence_strategy(exercise)


def search_settings(examples: int) -> Any:
    return hypothesis.settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=(hypothesis.Phase.generate, hypothesis.Phase.shrink),
        suppress_health_check=list(hypothesis.HealthCheck),
        verbosity=hypothesis.Verbosity.quiet,
        print_blob=False,
    )


def generation_settings(examples: int) -> Any:
    """The search settings without shrinking: generating inputs stops at the first "found"."""
    return hypothesis.settings(search_settings(examples), phases=(hypothesis.Phase.generate,))


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


def generated_examples(exercise: Exercise, role: str, count: int, seed: Optional[int] = None,
                       on_settled: Optional[Callable[[Any], None]] = None) -> list[Any]:
    """The first ``count`` distinct inputs Hypothesis generates for ``role`` under the
    exercise's settings (from at most ``DRAWS_PER_EXAMPLE`` times as many draws), with the
    targeted inputs among them (:func:`in_judged_order`).

    They depend only on those settings and ``seed`` (derived from the grader's seed secret,
    :mod:`grader.grading.secrets`; None means the public derandomized sequence), so they are
    generated once per process and shared by every check and every submission graded in it
    (callers must not mutate them). While they are generated, ``on_settled`` is given each
    input, in order, as soon as its place in the list is certain.
    """
    key = _generated_key(exercise, role, count, seed)
    if key not in _GENERATED and count == exercise.properties.examples:
        _install(ahead.collect(ahead.generated_key(role, seed)))
    if key not in _GENERATED:
        seen: dict[str, Any] = {}
        targeted = targeted_examples(exercise, role)
        settled = _Settled(targeted, count, on_settled)

        def record(example: Any) -> bool:  # distinct inputs only: a repeat tests nothing new
            key = repr(example)
            if len(seen) < count and key not in seen:
                seen[key] = example
                settled.update(list(seen.values()), finished=False)
            return len(seen) >= count  # "found": enough inputs, so the search stops here

        try:
            with independent_of_local_source():
                hypothesis.find(strategy_for(exercise, role), record,
                                settings=generation_settings(count * DRAWS_PER_EXAMPLE),
                                random=_random(seed))
        except hypothesis_errors.NoSuchExample:
            pass
        _GENERATED[key] = tuple(settled.update(list(seen.values()), finished=True))
    return list(_GENERATED[key])


def in_judged_order(generated: list[Any], targeted: list[Any], count: int) -> list[Any]:
    """The inputs as checks judge them: the targeted ones at ``TARGETED_AT`` among the
    generated ones, ``count`` in all."""
    return (generated[:TARGETED_AT] + targeted + generated[TARGETED_AT:])[:count]


@dataclass
class _Settled:
    """Passes each input to ``report`` once its place in the judged order is certain: the
    generated ones before ``TARGETED_AT`` as they come, the rest once the targeted inputs
    are placed (or generating ends)."""

    targeted: list[Any]
    count: int
    report: Optional[Callable[[Any], None]]
    reported: int = 0

    def update(self, generated: list[Any], finished: bool) -> list[Any]:
        order = in_judged_order(generated, self.targeted, self.count)
        certain = order if finished or len(generated) >= TARGETED_AT else generated
        if self.report is not None:
            for example in certain[self.reported:]:
                self.report(example)
        self.reported = max(self.reported, len(certain))
        return order


def arriving_examples(exercise: Exercise, role: str, count: int, seed: Optional[int],
                      judged: Optional[int] = None) -> Iterator[Any]:
    """The first ``judged`` (default: all) of :func:`generated_examples`, each as soon as it
    is known: while a helper still generates them, as it finds them; so a check can judge
    the first inputs while the later ones are being generated."""
    delivered = 0
    key = _generated_key(exercise, role, count, seed)
    if key not in _GENERATED and count == exercise.properties.examples:
        for example, merges in ahead.arriving(ahead.generated_key(role, seed)):
            if judged is not None and delivered >= judged:
                return
            _MERGES.update(merges)
            delivered += 1
            yield example
    yield from generated_examples(exercise, role, count, seed)[delivered:judged]


_GENERATED: dict[tuple, tuple] = {}


def _generated_key(exercise: Exercise, role: str, count: int, seed: Optional[int]) -> tuple:
    props = exercise.properties
    return (role, exercise.conventions.corpus_form, tuple(sorted(props.model_dump().items())),
            count, seed)


def generated_with_merges(exercise: Exercise, role: str, seed: Optional[int],
                          progress: Optional[Callable[[Any], None]] = None) -> tuple:
    """The role's generated inputs and the reference's merges on their corpora, in the form
    :func:`generated_examples` takes them from a helper (:mod:`grader.grading.ahead`).
    ``progress`` is given ``(input, merges)`` for each input as soon as it is settled, the
    form :func:`arriving_examples` takes."""
    count = exercise.properties.examples

    def merges_of(example: Any) -> dict:
        key = _merges_key(exercise, example[0], example[1])
        reference_merges(exercise, example[0], example[1])
        return {key: _MERGES[key]}

    on_settled = None if progress is None else (lambda example: progress((example, merges_of(example))))
    examples = generated_examples(exercise, role, count, seed, on_settled=on_settled)
    merges: dict = {}
    for example in examples:
        merges.update(merges_of(example))
    return _generated_key(exercise, role, count, seed), tuple(examples), merges


def _install(delivered: Optional[tuple]) -> None:
    if delivered is not None:
        key, examples, merges = delivered
        _GENERATED.setdefault(key, examples)
        _MERGES.update(merges)


class _EvaluationsSpent(BaseException):
    """Ends Hypothesis's search once its evaluations are spent: nothing it would try next is
    judged any more, so nothing it would try can change the result. (Not an ``Exception``,
    which Hypothesis would take for a failure of the condition and shrink.)"""


def _size(example: Any) -> tuple[int, str]:
    return len(repr(example)), repr(example)


@dataclass
class _Shrink(Generic[T]):
    """Hypothesis's condition while shrinking: memoised, and bounded in evaluations; keeps
    the smallest failure judged (shortest as printed)."""

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
            raise _EvaluationsSpent
        if self.smallest is not None:
            self.evaluations_after_failure += 1
            self.stopped = self.evaluations_after_failure >= SHRINK_EVALUATIONS
        failure = self.judge(example)
        self.memo[key] = failure
        if failure is not None:
            if self.smallest is None or _size(example) < _size(self.smallest.example):
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
    checks sharing inputs share calls; ``seed`` picks the inputs (see
    :func:`generated_examples`). Once one fails, the rest are judged too, up to
    :data:`FAILURES_KEPT` failures (kept in ``first.others``: more evidence for naming the
    mistake). Only on a failure does Hypothesis search again, over the same inputs, and
    shrink it.
    """
    examples = exercise.properties.examples
    failures: list[Failure] = []
    for example in arriving_examples(exercise, role, examples, seed, judged):
        failure = judge(example)
        if failure is not None:
            failures.append(failure)
            if failure.answer.kind in _EXPENSIVE_KINDS or len(failures) >= FAILURES_KEPT:
                break
    if not failures:
        return None
    first = failures[0]
    first.others = failures[1:]
    if first.answer.kind in _EXPENSIVE_KINDS:
        return first
    search = _Shrink(judge)
    try:
        with independent_of_local_source():
            found = hypothesis.find(strategy_for(exercise, role), search.fails,
                                    settings=search_settings(examples), random=_random(seed))
        smallest = search.memo.get(repr(found)) or search.smallest
    except _EvaluationsSpent:
        smallest = search.smallest
    except hypothesis_errors.NoSuchExample:
        smallest = None
    except hypothesis_errors.HypothesisException:  # e.g. code that answers differently on a replay
        smallest = search.smallest
    if smallest is None or repr(smallest.example) == repr(first.example):
        return first
    smallest.first = first
    return smallest
