"""Shrinking a failing input by rounds of smaller candidates, each round answered in one
batched sandbox call.

A role whose family says how its inputs get smaller (``Generated.reductions``: the candidates
one step smaller than an input, every one still an input the role's spec allows) is
shrunk here rather than by Hypothesis: each round takes the candidates of the smallest failure
so far, has the student's answers to all of them made in one batched call
(:func:`grader.grading.search.prefetch`), and moves to the first candidate that fails too;
shrinking ends when no candidate fails, after :data:`ROUNDS` rounds, or at a call that ran out
of time (each further try could cost a full time-out). It is deterministic: the same failure
shrinks to the same input.

:func:`structural` is the reductions most inputs need, for families to build theirs from:
drop items of a list or mapping, shorten words, lower counts, never below what the generator
promises.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Optional

from grader.spec.hooks import Failure, Judge

ROUNDS = 24
"""At most this many rounds (each one batched sandbox call, and calls one by one after it
for whatever the batch left unanswered)."""
CANDIDATES_PER_ROUND = 48
EXPENSIVE_KINDS = frozenset({"timeout", "budget", "memory", "stuck"})


def size(example: Any) -> tuple[int, str]:
    """How big an input reads: the length of its text, then the text (a total order)."""
    text = repr(example)
    return len(text), text


def shrink(
    first: "Failure",
    judge: "Judge",
    reductions: Callable[[Any], Iterable[Any]],
    prefetch: Optional[Callable[[list], None]] = None,
) -> "Failure":
    """The smallest failure found from ``first`` (``first`` itself if nothing smaller fails)."""
    best = first
    tried: set[str] = {repr(first.example)}
    for _ in range(ROUNDS):
        candidates = _fresh(reductions(best.example), size(best.example), tried)
        if not candidates:
            break
        if prefetch is not None:
            prefetch(candidates)
        found = None
        for candidate in candidates:
            tried.add(repr(candidate))
            failure = judge(candidate)
            if failure is not None:
                found = failure
                break
        if found is None:
            break
        best = found
        if found.answer.kind in EXPENSIVE_KINDS:
            break
    return best


def _fresh(candidates: Iterable[Any], bound: tuple[int, str], tried: set[str]) -> list[Any]:
    """Distinct untried candidates smaller than ``bound``, smallest first, at most
    :data:`CANDIDATES_PER_ROUND`."""
    kept: dict[str, Any] = {}
    for candidate in candidates:
        key = repr(candidate)
        if key not in tried and key not in kept and size(candidate) < bound:
            kept[key] = candidate
    return sorted(kept.values(), key=size)[:CANDIDATES_PER_ROUND]


# --------------------------------------------------------------------------- building blocks


def fewer_items(items: list) -> Iterator[list]:
    """``items`` with its first or second half gone, then with each one item gone."""
    if len(items) >= 4:
        half = len(items) // 2
        yield items[half:]
        yield items[:half]
    for index in range(len(items)):
        yield items[:index] + items[index + 1:]


def shorter_words(text: str, shortest: int = 1) -> Iterator[str]:
    """``text`` (words joined by single spaces) with one word gone, or one letter gone from a
    word, no word shorter than ``shortest`` and at least one word left."""
    words = text.split(" ")
    if len(words) > 1:
        for fewer in fewer_items(words):
            yield " ".join(fewer)
    for index, word in enumerate(words):
        if len(word) > shortest:
            for at in range(len(word)):
                yield " ".join(words[:index] + [word[:at] + word[at + 1:]] + words[index + 1:])


def smaller_int(value: int, least: int) -> Iterator[int]:
    """``least``, half the way there, and one less: never below ``least``."""
    if value > least:
        yield least
        if value - least > 2:
            yield least + (value - least) // 2
        if value - 1 > least:
            yield value - 1


def structural(value: Any, least_count: int = 1, shortest_word: int = 1) -> Iterator[Any]:
    """Candidates one step smaller than ``value``: a list of texts or a mapping of words to
    counts loses items, a text loses words or letters, a count comes down (not below
    ``least_count``); words never get shorter than ``shortest_word``. Mapping keys that
    become equal add up their counts, as the generator's own folding does."""
    if isinstance(value, dict):
        items = list(value.items())
        for fewer in fewer_items(items):
            yield dict(fewer)
        for index, (word, count) in enumerate(items):
            if isinstance(count, int):
                for lower in smaller_int(count, least_count):
                    yield {**value, word: lower}
            if isinstance(word, str):
                for shorter in shorter_words(word, shortest_word):
                    merged: dict = {}
                    for other, times in items[:index] + [(shorter, count)] + items[index + 1:]:
                        merged[other] = merged.get(other, 0) + times
                    yield merged
    elif isinstance(value, list):
        yield from fewer_items(value)
        for index, item in enumerate(value):
            if isinstance(item, str):
                for shorter in shorter_words(item, shortest_word):
                    yield value[:index] + [shorter] + value[index + 1:]
    elif isinstance(value, str):
        yield from shorter_words(value, shortest_word)
