"""The ``merge_pair`` role: the lessons' ``merge_vocab``, one merge applied to a vocabulary.

The student's function takes a pair and a vocabulary (each word a tuple of symbols mapped to
its count) and returns the vocabulary with every occurrence of the pair in every word joined
into one symbol, left to right without overlaps (``a a a`` becomes ``aa a``), each word
keeping its count. A case is judged at each step of its training run: the pair the step
merges, on the words just before it. Generated inputs are the words of a generated corpus after
some merges, and a pair: the next one training would merge, another adjacent pair, or (every
other pick, when the words have one) a pair of their symbols whose text also stands across
the edges of longer symbols, ``(a, b)`` beside ``c a`` + ``b`` in ``ca b``, where merging by
string replacement joins what is no pair (:func:`inside_longer_symbols`). The laws are that
every word still spells the same text with the same count, and that no occurrence of the pair
is left.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Optional

from grader.families.bpe import generated as inputs
from grader.families.bpe.differential import corpus_given
from grader.families.bpe.evidence import trivial_answer
from grader.families.bpe.pair_counts import show_words, steps_of, words_after
from grader.families.bpe.spec import BpeCase as Case
from grader.families.bpe.wrong_bpe import (
    merge_by_string_replace,
    merge_first_occurrence,
    merge_right_to_left,
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
    st,
)
from reference.plain import count_pairs, merge_symbols

MERGE = "merge_pair"
Pair = tuple[str, str]
Words = dict[tuple[str, ...], int]
PICKS = 10_000
SHOWN_WORDS = 4


def merge_pair(pair: Pair, words: Words) -> Words:
    """The reference: every word with ``pair`` merged, its count kept (summed should two
    words come out alike)."""
    merged: Words = {}
    for symbols, count in words.items():
        new = merge_symbols(symbols, tuple(pair))  # type: ignore[arg-type]
        merged[new] = merged.get(new, 0) + count
    return merged


def _merging_with(merge: Any) -> Any:
    def run(pair: Pair, words: Words) -> Words:
        merged: Words = {}
        for symbols, count in words.items():
            new = merge(symbols, tuple(pair))
            merged[new] = merged.get(new, 0) + count
        return merged

    return run


# --------------------------------------------------------------------------- the answer


def shape(exercise: Exercise, value: Any, name: str) -> Words:
    expected = f"{name} must return a dict mapping each word (a tuple of str symbols) to its count"
    if type(value) is not dict:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    for key, count in value.items():
        if type(key) is not tuple or not all(type(part) is str for part in key):
            raise ShapeError(f"{expected}; it has the key {describe(key)}")
        if type(count) is not int:
            raise ShapeError(f"{expected}; the count of {key!r} is {describe(count)}")
    return dict(value)


def send(exercise: Exercise, args: tuple) -> list:
    pair, words = args
    return [tuple(pair), dict(words)]


def difference(pair: Pair, expected: Words, actual: Words) -> str:
    """Which words came out otherwise, in a sentence."""
    wrong = [symbols for symbols in actual if symbols not in expected]
    missing = [symbols for symbols in expected if symbols not in actual]
    recounted = [s for s in expected if s in actual and actual[s] != expected[s]]
    parts = []
    if missing:
        parts.append("expected " + ", ".join(" ".join(s) for s in missing[:SHOWN_WORDS]))
    if wrong:
        parts.append("got " + ", ".join(" ".join(s) for s in wrong[:SHOWN_WORDS]))
    if recounted:
        parts.append("counts changed for " + ", ".join(" ".join(s) for s in recounted[:SHOWN_WORDS]))
    return (f"merging ({pair[0]}, {pair[1]}): " + "; ".join(parts) + ". Join the two symbols "
            "wherever they stand side by side, left to right, and nothing else.")


def details(pair: Pair, words: Words, expected: Words, actual: Optional[Words]) -> dict:
    found: dict[str, Any] = {"kind": "merged-words",
                             "input": {"pair": list(pair), "words": show_words(words)},
                             "expected": show_words(expected)}
    if actual is not None:
        found["actual"] = show_words(actual)
    return found


def real_work(exercise: Exercise, pair: Pair, words: Words) -> bool:
    return not trivial_answer(exercise, MERGE, (pair, words), merge_pair(pair, words))


# --------------------------------------------------------------------------- cases


def case_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    """One item per training step of the case: its merge, on the words just before it."""
    items = []
    for step, (words, pair) in enumerate(steps_of(calls.exercise, case.corpus, case.num_merges), 1):
        title = (f"{label.name}: merge ({pair[0]}, {pair[1]}) at step {step}" if label.public
                 else f"{label.name}, step {step}")
        items.append(CaseItem(f"{label.check_id}:{step}", title, label.visibility,
                              partial(judge, calls, pair, words),
                              real_work=real_work(calls.exercise, pair, words)))
    return items


def judge(calls: Calls, pair: Pair, words: Words) -> Verdict:
    expected = merge_pair(pair, words)
    answer = calls.call(MERGE, pair, words)
    seen = observed({"pair": pair, "words": words}, answer)
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, answer.failure or "", details(pair, words, expected, None), seen)
    message = f"{calls.function_name(MERGE)}(pair, words), {difference(pair, expected, answer.value)}"
    return Verdict(False, message, details(pair, words, expected, answer.value), seen)


def stub_examples(exercise: Exercise, name: str, case: Case, doctest: Any) -> list[str]:
    """The case's words, its first merge applied to them, and the merged words sorted."""
    steps = steps_of(exercise, case.corpus, 1)
    if not steps:
        return []
    words, pair = steps[0]
    return [doctest.statement("words", words)
            + doctest.call(f"sorted({name}({pair!r}, words).items())",
                           sorted(merge_pair(pair, words).items()))]


# --------------------------------------------------------------------------- generated inputs


def pair_of(exercise: Exercise, example: Any) -> tuple[Pair, Words]:
    """The pair and words an example ``(corpus, num_merges, pick)`` stands for: the words
    after ``num_merges`` merges, and the next merge (pick 0), another adjacent pair (even
    picks) or a pair inside longer symbols (odd picks, when there is one)."""
    corpus, num_merges, pick = example
    words = words_after(exercise, corpus, num_merges)
    traps = inside_longer_symbols(words)
    if pick % 2 and traps:
        return traps[(pick // 2) % len(traps)], words
    following = inputs.reference_merges(exercise, corpus, num_merges + 1)[num_merges:]
    candidates = list(dict.fromkeys([*following, *sorted(count_pairs(words))]))
    return (candidates[(pick // 2) % len(candidates)] if candidates else ("a", "b")), words


def inside_longer_symbols(words: Words) -> list[Pair]:
    """The pairs of the words' own symbols whose text, ``"a b"``, also stands where a longer
    symbol ends in ``a`` or begins with ``b`` (``ca b``, ``a bc``): merging by replacing
    text joins symbols there that are no pair. Adjacent pairs of the words come first."""
    symbols = {symbol for word in words for symbol in word}
    found: set[Pair] = set()
    for word in words:
        for left, right in zip(word, word[1:]):
            for first in (left[i:] for i in range(len(left))):
                for second in (right[:j] for j in range(1, len(right) + 1)):
                    if (first, second) != (left, right) and first in symbols and second in symbols:
                        found.add((first, second))
    adjacent = count_pairs(words)
    return sorted(found, key=lambda pair: (pair not in adjacent, pair))


def strategy(exercise: Exercise) -> Any:
    return st.tuples(inputs.training_strategy(exercise), st.integers(0, PICKS)).map(
        lambda drawn: (*drawn[0], drawn[1]))


def targeted(exercise: Exercise) -> list:
    return [(corpus, k, pick) for corpus, k in inputs.targeted_examples(exercise, "train")
            for pick in (0, 1, 2, 6)]


def differential_judge(calls: Calls) -> Any:
    def judge_one(example: Any) -> Optional[Failure]:
        pair, words = pair_of(calls.exercise, example)
        expected = merge_pair(pair, words)
        answer = calls.remembered(MERGE, pair, words)
        if answer.ok and answer.value == expected:
            return None
        return Failure(example, answer, expected, inputs={"pair": pair, "words": words})

    return judge_one


def call_text(calls: Calls, example: Any) -> str:
    pair, words = pair_of(calls.exercise, example)
    corpus, num_merges, _ = example
    return (f"{calls.function_name(MERGE)}({pair!r}, {words!r}), the words of {corpus!r} after "
            f"{num_merges} merges")


def given(calls: Calls, example: Any) -> dict[str, Any]:
    pair, words = pair_of(calls.exercise, example)
    return {**corpus_given(example[:2]), "pair": list(pair), "words": show_words(words)}


def shown(calls: Calls, failure: Failure) -> Shown:
    expected = show_words(failure.expected)
    if not failure.answer.ok:
        return Shown(expected)
    pair, _ = pair_of(calls.exercise, failure.example)
    return Shown(expected, show_words(failure.answer.value),
                 difference(pair, failure.expected, failure.answer.value))


def _observed(exercise: Exercise, example: Any) -> dict[str, Any]:
    pair, words = pair_of(exercise, example)
    return {"pair": pair, "words": words}


def _ahead(exercise: Exercise, example: Any) -> dict:
    corpus, num_merges, _ = example
    return {**inputs.merges_ahead(exercise, (corpus, num_merges)),
            **inputs.merges_ahead(exercise, (corpus, num_merges + 1))}


GENERATED = Generated(
    strategy=strategy, targeted=targeted, count=inputs.count, settings=inputs.settings_key,
    judge=differential_judge, call_text=call_text, given=given, observed=_observed, shown=shown,
    real_work=lambda exercise, example: real_work(exercise, *pair_of(exercise, example)),
    ahead=_ahead, install=inputs.install_merges, display=show_words,
    reductions=inputs.reductions,
)


# --------------------------------------------------------------------------- properties


def properties(calls: Calls) -> list[Property]:
    def answer_of(example: Any) -> Any:
        return calls.remembered(MERGE, *pair_of(calls.exercise, example))

    def same_text(example: Any) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        pair, words = pair_of(calls.exercise, example)
        before = _spelled(words)
        after = _spelled(answer.value)
        if before != after:
            changed = sorted(set(before.items()) ^ set(after.items()))[:2]
            return Failure(example, answer, inputs={"pair": pair, "words": words}, explanation=(
                "merging must keep every word's text and count; these differ before and after: "
                + ", ".join(f"{text!r} x{count}" for text, count in changed)))
        return None

    def pair_gone(example: Any) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        pair, words = pair_of(calls.exercise, example)
        left = [symbols for symbols in answer.value if tuple(pair) in zip(symbols, symbols[1:])]
        if left:
            return Failure(example, answer, inputs={"pair": pair, "words": words}, explanation=(
                f"({pair[0]}, {pair[1]}) is still side by side in {' '.join(left[0])!r}: "
                "every occurrence is merged, left to right"))
        return None

    return [
        deterministic("same pair and words, same result", answer_of,
                      lambda example: calls.call(MERGE, *pair_of(calls.exercise, example))),
        Property("same-text", "every word keeps its text and its count", same_text),
        Property("pair-gone", "no occurrence of the pair is left", pair_gone),
        inputs_unmodified(answer_of),
    ]


def _spelled(words: Words) -> dict[str, int]:
    spelled: dict[str, int] = {}
    for symbols, count in words.items():
        spelled["".join(symbols)] = spelled.get("".join(symbols), 0) + count
    return spelled


# --------------------------------------------------------------------------- mistakes

_WITNESS = {"pair": ("a", "b"),
            "words": {("a", "b", "c</w>"): 2, ("ca", "b", "</w>"): 1, ("a", "a", "a", "b", "b"): 1}}

MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="merge-pair-string-replace",
        title="Merged with string replace, which matches inside longer symbols",
        hint=(
            'Replacing `"a b"` by `"ab"` in the space-joined symbols also hits `ca b` or '
            '`a bc`, where `a` or `b` is only part of a symbol, so symbols merge that are not '
            "the pair. Walk the symbol list and merge position i only when "
            "`symbols[i] == a and symbols[i + 1] == b`."
        ),
        role=MERGE,
        run=_merging_with(merge_by_string_replace),
        witness=_WITNESS,
    ),
    Mistake(
        id="merge-pair-first-occurrence",
        title="Only the first occurrence of the pair merged in each word",
        hint=(
            "A word holding the pair twice gets only its first occurrence merged, as code "
            "that finds one index and stops does. Replace every non-overlapping occurrence, "
            "left to right, in one pass over the word."
        ),
        role=MERGE,
        run=_merging_with(merge_first_occurrence),
        witness={"pair": ("a", "b"), "words": {("a", "b", "a", "b", "</w>"): 3}},
    ),
    Mistake(
        id="merge-pair-right-to-left",
        title="Overlapping occurrences merged from the right",
        hint=(
            "When a pair overlaps itself, as `(a, a)` does in `a a a`, your merge gives "
            "`a aa`; BPE scans left to right and gives `aa a`. Scan from the start and, after "
            "a merge, skip past both merged symbols (`i += 2`)."
        ),
        role=MERGE,
        run=_merging_with(merge_right_to_left),
        witness={"pair": ("a", "a"), "words": {("a", "a", "a", "</w>"): 2}},
    ),
)


# --------------------------------------------------------------------------- student-style parts

MERGE_PAIR = """
def $merge_name(pair, words):
    new_words = {}
    for symbols, freq in words.items():
        merged = merge_word(symbols, pair)
        new_words[merged] = new_words.get(merged, 0) + freq
    return new_words
"""
"""The role's function in the student-style program: the program's word merger on every word."""

RIGHT_TO_LEFT = """
def merge_word(symbols, pair):
    out, i = [], len(symbols) - 1
    while i >= 0:
        if i >= 1 and (symbols[i - 1], symbols[i]) == pair:
            out.insert(0, symbols[i - 1] + symbols[i])
            i -= 2
        else:
            out.insert(0, symbols[i])
            i -= 1
    return tuple(out)
"""

STRING_REPLACE = """
def merge_word(symbols, pair):
    text = " ".join(symbols)
    text = text.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
    return tuple(text.split(" "))
"""

FIRST_OCCURRENCE = """
def merge_word(symbols, pair):
    for i in range(len(symbols) - 1):
        if (symbols[i], symbols[i + 1]) == pair:
            return symbols[:i] + (symbols[i] + symbols[i + 1],) + symbols[i + 2:]
    return symbols
"""

STUDENTS: tuple[StudentMistake, ...] = (
    StudentMistake("merge-pair-string-replace", MERGE, {"merge_word": STRING_REPLACE}),
    StudentMistake("merge-pair-first-occurrence", MERGE, {"merge_word": FIRST_OCCURRENCE}),
    StudentMistake("merge-pair-right-to-left", MERGE, {"merge_word": RIGHT_TO_LEFT}),
)
"""Each mistake as a student writes it: the program's word merger replaced (the trainer, which
merges with it, goes wrong with it)."""
