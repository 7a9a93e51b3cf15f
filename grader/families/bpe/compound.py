"""Two known mistakes at once, as real code makes them: each one a part of BPE done wrong.

A training mistake changes one *part* of the trainer (how words are split into symbols, how
pairs are counted, which tied pair wins, how a pair is merged, whether counts are redone,
when the loop stops, what is returned). :data:`TRAIN_PARTS` says which part each catalogued
training mistake changes and how; :func:`train_with` is the one trainer all those changes plug
into, so two mistakes that change different parts combine into a trainer that makes both.
:func:`combinations` lists, for a role and an exercise's tie rule, every catalogued mistake
under each other tie rule and every pair of mistakes that change different parts. Encoders
that lowercase or strip the word combine with every other encoding mistake, and sequence
lengths with each wrong count replaced, one key each; the trade-off's mistakes pair up when they
get different steps wrong (:mod:`grader.families.bpe.tradeoff_mistakes`).

A combination is a :class:`~grader.spec.mistake_book.Mistake` like any other (its id joins
the two ids with ``+``), so naming treats it the same way; it is only tried when no single
entry reproduces the student's outputs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType
from typing import Any

from grader.families.bpe.catalogue import mistake_by_id, mistakes_for
from grader.families.bpe.real_code import PUNCTUATION, NoPairLeft
from grader.families.bpe.tradeoff_mistakes import TRADEOFF
from grader.families.bpe.tradeoff_mistakes import combinations as tradeoff_combinations
from grader.families.bpe.wrong_bpe import (
    _count_pairs_once_per_word,
    _merge_words,
    _pick_last_seen,
    _text_streams,
    merge_by_string_replace,
    merge_first_occurrence,
    merge_right_to_left,
)
from grader.families.api import Mistake
from reference.corpus import END_OF_WORD, word_counts
from reference.plain import count_pairs, initial_segmentation, merge_symbols
from reference.sequence_lengths import sequence_lengths
from reference.tie_breaks import LEXICOGRAPHIC, TIE_BREAKS, best_pair

LAST_SEEN = "last-seen"

# part -> the value a correct trainer has there
CORRECT_PARTS: dict[str, Any] = {
    "words": "separate", "weights": "counted", "count": "every", "pick": None,
    "merge": "left-to-right", "loop": "recount", "stop": "break", "delta": 0, "order": "learned",
}

TRAIN_PARTS: dict[str, tuple[str, Any]] = {
    "marker-split": ("words", "split"),
    "marker-glued": ("words", "glued"),
    "no-end-of-word": ("words", "none"),
    "raw-text": ("words", "raw"),
    "across-word-boundaries": ("words", "across"),
    "unweighted-counts": ("weights", "once"),
    "pairs-once-per-word": ("count", "once-per-word"),
    "stale-counts": ("loop", "stale"),
    "merge-discarded": ("loop", "discarded"),
    "merge-by-string-replace": ("merge", "replace"),
    "overlap-right-to-left": ("merge", "right-to-left"),
    "merge-first-occurrence": ("merge", "first-occurrence"),
    "ties-last-seen": ("pick", LAST_SEEN),
    **{f"ties-{rule}": ("pick", rule) for rule in TIE_BREAKS},
    "one-merge-too-many": ("delta", 1),
    "one-merge-too-few": ("delta", -1),
    "no-stop-when-done": ("stop", "repeat-last"),
    "no-pair-crash": ("stop", "crash"),
    "min-count-two": ("stop", "min-count-2"),
    "merges-sorted": ("order", "sorted"),
}

# Parts that make another part irrelevant: nothing is merged when counts are never redone.
_MOOT = {("loop", "merge"), ("loop", "stop")}

_MERGERS: dict[str, Callable] = {
    "left-to-right": merge_symbols,
    "replace": merge_by_string_replace,
    "right-to-left": merge_right_to_left,
    "first-occurrence": merge_first_occurrence,
}


def train_with(
    parts: Mapping[str, Any], corpus: Any, num_merges: int, *,
    tie_break: str = LEXICOGRAPHIC, end_of_word: str = END_OF_WORD,
) -> list[tuple[str, str]]:
    """The lesson's trainer with ``parts`` (a subset of :data:`CORRECT_PARTS`) done differently."""
    part = {**CORRECT_PARTS, **parts}
    rule = part["pick"] or tie_break
    words = _segmentation(part["words"], part["weights"], corpus, end_of_word)
    count = _count_pairs_once_per_word if part["count"] == "once-per-word" else count_pairs
    pick = _pick_last_seen if rule == LAST_SEEN else best_pair
    wanted = max(num_merges + part["delta"], 0)
    stop = part["stop"]
    if part["loop"] != "recount":
        merges = _without_recount(part["loop"], count(words), pick, rule, wanted)
        if stop == "crash" and len(merges) < wanted:
            raise NoPairLeft()
    else:
        merges = []
        for _ in range(wanted):
            pair_counts = count(words)
            if not pair_counts:
                if stop == "crash":
                    raise NoPairLeft()
                break
            pair = pick(pair_counts, rule)
            if stop == "min-count-2" and pair_counts[pair] < 2:
                break
            merges.append(pair)
            words = _merge_words(words, pair, _MERGERS[part["merge"]])
        if stop == "repeat-last" and merges:
            merges += [merges[-1]] * (wanted - len(merges))
    return sorted(merges) if part["order"] == "sorted" else merges


def _segmentation(how: str, weights: str, corpus: Any, end_of_word: str) -> dict:
    counts = word_counts(corpus)
    if weights == "once":
        counts = dict.fromkeys(counts, 1)
    if how == "across":
        return _text_streams(corpus, end_of_word)
    if how == "raw" and not isinstance(corpus, Mapping):
        words: dict = {}
        for text in corpus:
            symbols = tuple(text) + ((end_of_word,) if end_of_word else ())
            words[symbols] = words.get(symbols, 0) + 1
        return words
    if how == "split":
        words = {}
        for word, times in counts.items():
            words[tuple(word + end_of_word)] = words.get(tuple(word + end_of_word), 0) + times
        return words
    if how == "none":
        return initial_segmentation(counts, "")
    return initial_segmentation(counts, end_of_word, fuse_end_of_word=how == "glued")


def _without_recount(loop: str, pair_counts: dict, pick: Callable, rule: str, wanted: int) -> list:
    if loop == "discarded":
        return [pick(pair_counts, rule)] * wanted if pair_counts else []
    merges = []
    while pair_counts and len(merges) < wanted:
        pair = pick(pair_counts, rule)
        merges.append(pair)
        del pair_counts[pair]
    return merges


# --------------------------------------------------------------------------- combinations


def combinations(role: str, options: Mapping[str, Any] = MappingProxyType({})) -> tuple[Mistake, ...]:
    """Every two-mistake combination of ``role`` worth trying under the exercise's conventions
    (``options``, as the book's ``options`` gives them: its tie rule)."""
    tie_break = options.get("tie_break")
    key = (role, tie_break)
    if key not in _CACHE:
        build = {"train": _train_combinations, "encode": _encode_combinations,
                 "sequence_lengths": _lengths_combinations,
                 TRADEOFF: tradeoff_combinations}.get(role)
        _CACHE[key] = tuple(build(tie_break)) if build else ()
    return _CACHE[key]


_CACHE: dict[tuple, tuple[Mistake, ...]] = {}


def combination_by_id(combined_id: str) -> Mistake:
    first, _, second = combined_id.partition("+")
    role = mistake_by_id(first).role
    for rule in (None, *TIE_BREAKS):
        for mistake in combinations(role, {"tie_break": rule}):
            if mistake.id == combined_id:
                return mistake
    raise KeyError(f"no combination has id {combined_id!r}")


def _combined(first: Mistake, second: Mistake, run: Callable[..., Any]) -> Mistake:
    second_title = second.title[0].lower() + second.title[1:]
    return Mistake(
        id=f"{first.id}+{second.id}",
        title=f"{first.title}, and {second_title}",
        hint=f"Two mistakes at once. {first.hint} Also: {second.hint}",
        role=first.role,
        run=run,
        witness={**first.witness, **second.witness},
    )


def _train_combinations(tie_break: str | None) -> list[Mistake]:
    entries = [m for m in mistakes_for("train") if m.id in TRAIN_PARTS]
    ties = [m for m in entries if TRAIN_PARTS[m.id][0] == "pick"
            and m.convention.get("tie_break") != tie_break]
    others = [m for m in entries if TRAIN_PARTS[m.id][0] != "pick"]
    found = []
    for tie in ties:  # ties first: "ties to the largest pair, and ..."
        for other in others:
            found.append(_train_pair(tie, other))
    for first, second in itertools.combinations(others, 2):
        parts = {TRAIN_PARTS[first.id][0], TRAIN_PARTS[second.id][0]}
        if len(parts) == 2 and not any(set(moot) == parts for moot in _MOOT):
            found.append(_train_pair(first, second))
    return found


def _train_pair(first: Mistake, second: Mistake) -> Mistake:
    parts = dict([TRAIN_PARTS[first.id], TRAIN_PARTS[second.id]])
    return _combined(first, second, partial(train_with, parts))


PREPARING = ("encode-lowercased", "encode-stripped")


def _encode_combinations(tie_break: str | None) -> list[Mistake]:
    entries = mistakes_for("encode")
    found = []
    for prepare in (m for m in entries if m.id in PREPARING):
        for other in entries:
            if other.id not in PREPARING:
                found.append(_combined(prepare, other, partial(_prepared, prepare.id, other.run)))
    return found


def _prepared(prepare_id: str, run: Callable[..., Any], word: str, merges: Any, **options: Any) -> Any:
    word = word.lower() if prepare_id == "encode-lowercased" else word.strip(PUNCTUATION)
    return run(word, merges, **options)


def _lengths_combinations(tie_break: str | None) -> list[Mistake]:
    entries = mistakes_for("sequence_lengths")
    return [
        _combined(first, second, partial(_both_counts, first.run, second.run))
        for first, second in itertools.combinations(entries, 2)
    ]


def _both_counts(first: Callable, second: Callable, sentence: str, merges: Any, **options: Any) -> Any:
    right = sequence_lengths(sentence, merges, **options)
    one, two = first(sentence, merges, **options), second(sentence, merges, **options)
    changed_one = {key for key in right if one[key] != right[key]}
    changed_two = {key for key in right if two[key] != right[key]}
    if changed_one & changed_two:
        raise ValueError("both mistakes change the same count")
    return {key: one[key] if key in changed_one else two[key] for key in right}
