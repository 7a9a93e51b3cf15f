"""Is a merge list an honest BPE run on a corpus, whatever its tie rule?

The efficiency check grades speed on any honest run, not only on the reference's merges: at
each step the merge must be a most frequent pair of the corpus as rewritten by the merges
before it (counted over the words, each weighted by its count). Any tie rule passes; merges
that occur nowhere (a marker glued onto the last character, pairs made up), a pair that is
not the most frequent (another counting, or a table precomputed for another corpus: the
timed corpus depends on the course's secret) fail at the first such merge.

Replaying keeps an index from each pair to the distinct words containing it and a heap of
counts, so each merge touches only those words (and, when every weight is positive, only the
pairs whose number in a word changes): the cost is that of a fast trainer.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from collections.abc import Callable, Mapping
from typing import Any, Optional

from reference.corpus import segment, word_counts

Pair = tuple[str, str]


@dataclass(frozen=True)
class Departure:
    """Where a merge list stops being BPE: merge ``index`` (0-based) has ``count``
    occurrences where the most frequent pair has ``most``."""

    index: int
    count: int
    most: int


def _pair_counts(symbols: tuple[str, ...]) -> dict[Pair, int]:
    counts: dict[Pair, int] = {}
    for pair in zip(symbols, symbols[1:]):
        counts[pair] = counts.get(pair, 0) + 1
    return counts


def _merged(symbols: tuple[str, ...], pair: Pair) -> tuple[str, ...]:
    a, b = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


class _Replay:
    """The corpus as rewritten so far: pair counts, which words hold each pair, a max-heap."""

    def __init__(self, words: Mapping[tuple[str, ...], int]) -> None:
        self.words = list(words)
        self.weights = list(words.values())
        self.positive = all(weight > 0 for weight in self.weights)
        self.counts: dict[Pair, int] = {}
        self.holders: dict[Pair, set[int]] = {}
        for number, symbols in enumerate(self.words):
            self._add(number, symbols, 1)
        self.heap = [(-count, pair) for pair, count in self.counts.items()]
        heapq.heapify(self.heap)

    def _add(self, number: int, symbols: tuple[str, ...], sign: int) -> list[Pair]:
        changed = []
        for pair, times in _pair_counts(symbols).items():
            self.counts[pair] = self.counts.get(pair, 0) + sign * times * self.weights[number]
            owners = self.holders.setdefault(pair, set())
            (owners.add if sign > 0 else owners.discard)(number)
            if self.counts[pair] <= 0:
                del self.counts[pair]
                del self.holders[pair]
            changed.append(pair)
        return changed

    def most(self) -> int:
        while self.heap:
            negative, pair = self.heap[0]
            if self.counts.get(pair) == -negative:
                return -negative
            heapq.heappop(self.heap)  # stale: the pair's count changed since it was pushed
        return 0

    def _rewrite(self, number: int, old: tuple[str, ...], new: tuple[str, ...]) -> list[Pair]:
        """What ``_add(old, -1)`` then ``_add(new, 1)`` do when every weight is positive (a
        count then falls to zero only with its last holder), touching only the pairs whose
        number in the word changes."""
        before, after = _pair_counts(old), _pair_counts(new)
        weight = self.weights[number]
        changed = []
        for pair, times in before.items():
            delta = after.get(pair, 0) - times
            if not delta:
                continue
            count = self.counts[pair] + delta * weight
            if count <= 0:
                del self.counts[pair]
                del self.holders[pair]
            else:
                self.counts[pair] = count
                if pair not in after:
                    self.holders[pair].discard(number)
            changed.append(pair)
        for pair, times in after.items():
            if pair not in before:
                self.counts[pair] = self.counts.get(pair, 0) + times * weight
                self.holders.setdefault(pair, set()).add(number)
                changed.append(pair)
        return changed

    def merge(self, pair: Pair) -> None:
        changed: set[Pair] = set()
        for number in list(self.holders.get(pair, ())):
            old = self.words[number]
            new = _merged(old, pair)
            self.words[number] = new
            if self.positive:
                changed.update(self._rewrite(number, old, new))
                continue
            changed.update(self._add(number, old, -1))
            changed.update(self._add(number, new, 1))
        for other in changed:  # once each, with its count after the whole merge
            if other in self.counts:
                heapq.heappush(self.heap, (-self.counts[other], other))


def _initial_counts(words: Mapping[tuple[str, ...], int]) -> dict[Pair, int]:
    """The pair counts :class:`_Replay` starts from (pairs whose count is not positive left
    out, as it leaves them out)."""
    counts: dict[Pair, int] = {}
    for symbols, weight in words.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + weight
    return {pair: count for pair, count in counts.items() if count > 0}


def first_departure(corpus: Any, merges: list[Pair], end_of_word: str) -> Optional[Departure]:
    """The first merge that is not a most frequent pair of the rewritten corpus, or None."""
    return departure_in(segmented(corpus, end_of_word), merges)


def segmented(corpus: Any, end_of_word: str,
              weigh: Callable[[int], int] = lambda count: count) -> dict[tuple[str, ...], int]:
    """Each distinct word's initial symbols, weighted by ``weigh`` of its count."""
    words: dict[tuple[str, ...], int] = {}
    for word, count in word_counts(corpus).items():
        symbols = tuple(segment(word, end_of_word))
        words[symbols] = words.get(symbols, 0) + weigh(count)
    return words


def departure_in(words: Mapping[tuple[str, ...], int], merges: list[Pair]) -> Optional[Departure]:
    """The first merge that is not a most frequent pair of ``words`` (symbols -> weight) as
    rewritten by the merges before it, or None."""
    if merges and all(weight > 0 for weight in words.values()):
        # a first merge that departs needs only the counts, not the replay's index
        counts = _initial_counts(words)
        count, most = counts.get(merges[0], 0), max(counts.values(), default=0)
        if count == 0 or count < most:
            return Departure(0, count, most)
    replay = _Replay(words)
    for position, pair in enumerate(merges):
        count, most = replay.counts.get(pair, 0), replay.most()
        if count == 0 or count < most:
            return Departure(position, count, most)
        replay.merge(pair)
    return None
