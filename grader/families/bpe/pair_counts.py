"""The ``count_pairs`` role: the lessons' ``get_stats``, pair counts weighted by word frequency.

The student's function takes a vocabulary as the lessons build it, each word a tuple of symbols
mapped to its count (``{("l", "o", "w", "</w>"): 5, ...}``), and returns every adjacent pair
of symbols with the sum, over the words, of the word's count times the pair's occurrences in
it (``{("l", "o"): 7, ...}``). A case is judged at each step of its training run: the pair
counts of the words just before that merge, the ones the lessons tabulate. Generated inputs
are the words of a generated corpus after some merges; the laws are that the counts add up
to the number of adjacent positions, weighted, and that every pair counted is adjacent.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Optional

from grader.families.bpe import generated as inputs
from grader.families.bpe.differential import corpus_given
from grader.families.bpe.evidence import trivial_answer
from grader.families.bpe.spec import BpeCase as Case
from grader.families.bpe.witnesses import words_input
from grader.families.bpe.wrong_bpe import (
    count_pairs_across_words,
    count_pairs_once_per_word,
    count_pairs_unweighted,
)
from grader.families.api import (
    Calls,
    CaseItem,
    CaseLabel,
    Exercise,
    Failure,
    Generated,
    Mistake,
    Property,
    ShapeError,
    Shown,
    StudentMistake,
    Verdict,
    describe,
    deterministic,
    failed_call,
    inputs_unmodified,
    observed,
)
from reference.corpus import word_counts
from reference.plain import count_pairs, initial_segmentation, merge_words, train_steps

COUNT = "count_pairs"
Pair = tuple[str, str]
Words = dict[tuple[str, ...], int]
SHOWN_PAIRS = 6


# --------------------------------------------------------------------------- the words


def steps_of(exercise: Exercise, corpus: Any, num_merges: int) -> list[tuple[Words, Pair]]:
    """Each training step as (the words just before it, the pair it merges)."""
    conventions = exercise.conventions
    words = initial_segmentation(word_counts(corpus), conventions.end_of_word)
    found = []
    for step in train_steps(corpus, num_merges, tie_break=conventions.tie_break,
                            end_of_word=conventions.end_of_word):
        found.append((words, step.pair))
        words = merge_words(words, step.pair)
    return found


def words_after(exercise: Exercise, corpus: Any, num_merges: int) -> Words:
    """The words of ``corpus`` after the reference's first ``num_merges`` merges."""
    words = initial_segmentation(word_counts(corpus), exercise.conventions.end_of_word)
    for pair in inputs.reference_merges(exercise, corpus, num_merges):
        words = merge_words(words, pair)
    return words


def show_words(words: Words) -> dict[str, int]:
    """Words as JSON: each word's symbols joined by spaces (``"l o w </w>": 5``)."""
    return {" ".join(symbols): count for symbols, count in words.items()}


def show_counts(pairs: dict[Pair, int]) -> list[list[Any]]:
    """Pair counts as JSON, highest first: ``[["e", "s", 9], ...]``."""
    ordered = sorted(pairs.items(), key=lambda item: (-item[1], item[0]))
    return [[a, b, count] for (a, b), count in ordered]


def _pair(pair: Pair) -> str:
    return f"({pair[0]}, {pair[1]})"


# --------------------------------------------------------------------------- the answer


def shape(exercise: Exercise, value: Any, name: str) -> dict[Pair, int]:
    expected = f"{name} must return a dict mapping each (str, str) pair to an int count"
    if type(value) is not dict:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    for key, count in value.items():
        if type(key) is not tuple or len(key) != 2 or not all(type(part) is str for part in key):
            raise ShapeError(f"{expected}; it has the key {describe(key)}")
        if type(count) is not int:
            raise ShapeError(f"{expected}; the count of {key!r} is {describe(count)}")
    return dict(value)


def send(exercise: Exercise, args: tuple) -> list:
    (words,) = args
    return [dict(words)]


def difference(expected: dict[Pair, int], actual: dict[Pair, int]) -> str:
    """What differs between two pair counts, in a sentence."""
    wrong = [p for p in expected if p in actual and actual[p] != expected[p]]
    missing = [p for p in expected if p not in actual]
    extra = [p for p in actual if p not in expected]
    parts = [f"{_pair(p)} counted {actual[p]}, expected {expected[p]}" for p in wrong[:SHOWN_PAIRS]]
    if missing:
        parts.append("it misses " + ", ".join(map(_pair, missing[:SHOWN_PAIRS])))
    if extra:
        parts.append("it counts " + ", ".join(map(_pair, extra[:SHOWN_PAIRS]))
                     + ", which are not adjacent pairs of the words")
    return "; ".join(parts) + "."


def details(words: Words, expected: dict[Pair, int], actual: Optional[dict[Pair, int]]) -> dict:
    found: dict[str, Any] = {"kind": "pair-counts", "input": {"words": show_words(words)},
                             "expected": show_counts(expected)}
    if actual is not None:
        found["actual"] = show_counts(actual)
    return found


# --------------------------------------------------------------------------- cases


def real_work(exercise: Exercise, words: Words) -> bool:
    """Whether the right counts of ``words`` are more than a do-nothing answer."""
    return not trivial_answer(exercise, COUNT, (words,), count_pairs(words))


def case_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    """One item per training step of the case: the pair counts just before its merge."""
    items = []
    for step, (words, _) in enumerate(steps_of(calls.exercise, case.corpus, case.num_merges), 1):
        title = (f"{label.name}: pair counts before merge {step}" if label.public
                 else f"{label.name}, step {step}")
        items.append(CaseItem(f"{label.check_id}:{step}", title, label.visibility,
                              partial(judge, calls, words), real_work=real_work(calls.exercise, words)))
    return items


def judge(calls: Calls, words: Words) -> Verdict:
    expected = count_pairs(words)
    answer = calls.call(COUNT, words)
    seen = observed({"words": words}, answer)
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, answer.failure or "", details(words, expected, None), seen)
    message = f"{calls.function_name(COUNT)}(words): {difference(expected, answer.value)}"
    return Verdict(False, message, details(words, expected, answer.value), seen)


def stub_examples(exercise: Exercise, name: str, case: Case, doctest: Any) -> list[str]:
    """The case's words as the lessons write them, and the counts of its top pairs."""
    words = initial_segmentation(word_counts(case.corpus), exercise.conventions.end_of_word)
    pairs = count_pairs(words)
    if not pairs:
        return []
    top = sorted(pairs, key=lambda pair: (-pairs[pair], pair))[:3]
    lookups = ", ".join(f"pairs[{pair!r}]" for pair in top)
    return [doctest.statement("words", words) + f"\n>>> pairs = {name}(words)"
            + doctest.call(f"{lookups}, len(pairs)", (*(pairs[p] for p in top), len(pairs)))]


# --------------------------------------------------------------------------- generated inputs


def differential_judge(calls: Calls) -> Any:
    def judge_one(example: tuple[Any, int]) -> Optional[Failure]:
        words = words_after(calls.exercise, *example)
        expected = count_pairs(words)
        answer = calls.remembered(COUNT, words)
        if answer.ok and answer.value == expected:
            return None
        return Failure(example, answer, expected, inputs={"words": words})

    return judge_one


def call_text(calls: Calls, example: Any) -> str:
    corpus, num_merges = example
    words = words_after(calls.exercise, corpus, num_merges)
    return (f"{calls.function_name(COUNT)}({words!r}), the words of {corpus!r} after "
            f"{num_merges} merges")


def given(calls: Calls, example: Any) -> dict[str, Any]:
    return {**corpus_given(example), "words": show_words(words_after(calls.exercise, *example))}


def shown(calls: Calls, failure: Failure) -> Shown:
    expected = show_counts(failure.expected)
    if not failure.answer.ok:
        return Shown(expected)
    return Shown(expected, show_counts(failure.answer.value),
                 difference(failure.expected, failure.answer.value))


GENERATED = Generated(
    strategy=inputs.training_strategy,
    targeted=lambda exercise: inputs.targeted_examples(exercise, "train"),
    count=inputs.count, settings=inputs.settings_key, judge=differential_judge,
    call_text=call_text, given=given,
    observed=lambda exercise, example: {"words": words_after(exercise, *example)},
    shown=shown,
    real_work=lambda exercise, example: real_work(exercise, words_after(exercise, *example)),
    ahead=inputs.merges_ahead, install=inputs.install_merges, display=show_counts,
    reductions=inputs.reductions,
)


# --------------------------------------------------------------------------- properties


def properties(calls: Calls) -> list[Property]:
    def answer_of(example: Any) -> Any:
        return calls.remembered(COUNT, words_after(calls.exercise, *example))

    def adds_up(example: Any) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        words = words_after(calls.exercise, *example)
        positions = sum(count * (len(symbols) - 1) for symbols, count in words.items())
        total = sum(answer.value.values())
        if total != positions:
            return Failure(example, answer, inputs={"words": words}, explanation=(
                f"the counts add up to {total}, but the words have {positions} adjacent "
                "positions, each weighted by its word's count"))
        return None

    def adjacent_only(example: Any) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        words = words_after(calls.exercise, *example)
        adjacent = {pair for symbols in words for pair in zip(symbols, symbols[1:])}
        stray = [pair for pair in answer.value if pair not in adjacent]
        if stray:
            return Failure(example, answer, inputs={"words": words}, explanation=(
                f"{_pair(stray[0])} is counted, but no word has those two symbols side by side"))
        return None

    return [
        deterministic("same words, same counts", answer_of,
                      lambda example: calls.call(COUNT, words_after(calls.exercise, *example))),
        Property("adds-up", "the counts add up to the weighted adjacent positions", adds_up),
        Property("adjacent-only", "only adjacent pairs are counted", adjacent_only),
        inputs_unmodified(answer_of),
    ]


# --------------------------------------------------------------------------- mistakes


MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="count-pairs-unweighted",
        title="Pair counts not weighted by word frequency",
        hint=(
            "Each occurrence of a pair adds 1, however often its word occurs, so `newest` seen "
            "6 times counts like a word seen once. Add the word's count instead: "
            "`pairs[pair] = pairs.get(pair, 0) + freq` for each adjacent pair of a word that "
            "occurs `freq` times."
        ),
        role="count_pairs",
        run=count_pairs_unweighted,
        witness=words_input(),
    ),
    Mistake(
        id="count-pairs-once-per-word",
        title="A pair repeated inside a word counted once",
        hint=(
            "A pair that occurs twice in one word (`a n` in `banana`) adds to its count only "
            "once, as when a word's pairs go through a `set`. Count every position: loop over "
            "`zip(symbols, symbols[1:])` and add the word's count each time."
        ),
        role="count_pairs",
        run=count_pairs_once_per_word,
        witness=words_input({"banana": 2, "ban": 1}),
    ),
    Mistake(
        id="count-pairs-across-words",
        title="Pairs counted across word boundaries",
        hint=(
            "The last symbol of one word and the first of the next form a pair in your counts "
            "(like `(</w>, l)`), as when every word's symbols run in one stream. Pairs live "
            "inside a word: count `zip(symbols, symbols[1:])` for each word on its own."
        ),
        role="count_pairs",
        run=count_pairs_across_words,
        witness=words_input(),
    ),
)


# --------------------------------------------------------------------------- student-style parts

UNWEIGHTED = """
def count_pairs(words):
    pairs = {}
    for symbols in words:
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + 1
    return pairs
"""

ONCE_PER_WORD = """
def count_pairs(words):
    pairs = {}
    for symbols, freq in words.items():
        seen = set()
        for pair in zip(symbols, symbols[1:]):
            if pair not in seen:
                seen.add(pair)
                pairs[pair] = pairs.get(pair, 0) + freq
    return pairs
"""

ACROSS_WORDS = """
def count_pairs(words):
    pairs, previous = {}, None
    for symbols, freq in words.items():
        for symbol in symbols:
            if previous is not None:
                pairs[(previous, symbol)] = pairs.get((previous, symbol), 0) + freq
            previous = symbol
    return pairs
"""

STUDENTS: tuple[StudentMistake, ...] = (
    StudentMistake("count-pairs-unweighted", COUNT, {"count_pairs": UNWEIGHTED}),
    StudentMistake("count-pairs-once-per-word", COUNT, {"count_pairs": ONCE_PER_WORD}),
    StudentMistake("count-pairs-across-words", COUNT, {"count_pairs": ACROSS_WORDS}),
)
"""Each mistake as a student writes it: the program's pair counter replaced (the trainer, which
calls it, goes wrong with it)."""
