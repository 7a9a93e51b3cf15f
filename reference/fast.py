"""The fast BPE trainer: incremental pair counts, a pair -> words index and a lazy priority queue.

It learns exactly the merges of :mod:`reference.plain` under every tie-break rule, but each
merge touches only the words that contain the merged pair instead of recounting the corpus.

How it stays exact:

- Symbols are interned as ints; a pair is one int ``(left << shift) | right``. Each unique word
  is a mutable list of symbol ids. ``index[pair]`` lists, in increasing order, every word that
  contained the pair at some point since it appeared (a superset of the words containing it now),
  once per occurrence it had then: a word listed twice is merged once and left alone after.
- Only pairs that contain the newly merged symbol can gain occurrences; every other pair can only
  lose them. So the heap holds, for each live pair, an entry whose key is never worse than the
  pair's true key: gaining pairs get a fresh entry, losing pairs are fixed up lazily when their
  entry reaches the top (re-pushed with the current count, or dropped if the pair is gone).
- Heap keys per rule, best first: ``lexicographic`` (-count, a, b); ``concatenated``
  (-count, a+b, a); ``reverse-lexicographic`` (-count, inverted a, inverted b) where a symbol is
  inverted into a tuple of ints that sorts in reverse string order; ``first-seen``
  (-count, word, offset) where word is the index of the first word that contains the pair and
  offset the character offset of its first occurrence there. Symbol start offsets never move
  when symbols merge, so a stored (word, offset) stays a lower bound as occurrences vanish; the
  exact key is recomputed when the entry reaches the top.
- Two merges can produce the same string (``a bc`` and ``ab c``); such a symbol is the same
  symbol, as in plain, and the pairs it gains may already exist (their word lists are then
  re-sorted).
"""

from __future__ import annotations

import gc
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from heapq import heapify, heappop, heappush, heapreplace
from itertools import chain, repeat
from operator import lshift, or_

from reference.corpus import END_OF_WORD, check_end_of_word, segment, word_counts
from reference.tie_breaks import (
    CONCATENATED,
    FIRST_SEEN,
    LEXICOGRAPHIC,
    REVERSE_LEXICOGRAPHIC,
    Pair,
)
from reference.validation import check_training_options

# Heap entry: (-count, first tie field, second tie field, pair id). One layout for every rule.
Entry = tuple


def inverted(symbol: str) -> tuple[int, ...]:
    """A key that sorts in the reverse string order: ``s < t`` iff ``inverted(s) > inverted(t)``.

    Characters become negated code points; the trailing 1 is larger than any of them, so a
    prefix sorts after the longer strings that extend it.
    """
    return tuple([-ord(char) for char in symbol]) + (1,)


class _Interner(dict):
    """Symbol string -> id, handing out the next id to strings it has not seen."""

    def __init__(self) -> None:
        super().__init__()
        self.strings: list[str] = []

    def __missing__(self, symbol: str) -> int:
        symbol_id = self[symbol] = len(self.strings)
        self.strings.append(symbol)
        return symbol_id


class IncrementalTrainer:
    """The state of a training run: segmented words, live pair counts, their index and heap.

    :meth:`best` names the next pair and its count, :meth:`merge` applies it, at most
    ``num_merges`` times (pair ids are sized for that many new symbols). ``counts`` maps
    word -> count in corpus order (as :func:`reference.corpus.word_counts` returns it).
    """

    def __init__(
        self,
        counts: dict[str, int],
        num_merges: int,
        *,
        tie_break: str = LEXICOGRAPHIC,
        end_of_word: str = END_OF_WORD,
        fuse_end_of_word: bool = False,
    ) -> None:
        self.tie_break = tie_break
        self.interner = _Interner()
        self.words: list[list[int]] = self._segmented(counts, end_of_word, fuse_end_of_word)
        self.freqs: list[int] = list(counts.values())
        self.symbols = self.interner.strings
        # Ids never exceed the starting symbols plus one per merge, so pair ids stay unique.
        self.shift = (len(self.symbols) + num_merges + 1).bit_length()
        self.mask = (1 << self.shift) - 1
        # Per-symbol tie fields: the strings themselves, or their inversions for reverse order.
        self.symbol_keys: list = (
            [inverted(symbol) for symbol in self.symbols]
            if tie_break == REVERSE_LEXICOGRAPHIC
            else self.symbols
        )
        # A pair emptied by merges keeps a 0 in pair_count until its heap entry surfaces.
        self.pair_count, self.index = self._initial_pairs()
        self._entry = self._entry_function()
        self.heap: list[Entry] = [
            self._entry(pair, count) for pair, count in self.pair_count.items()
        ]
        heapify(self.heap)

    # -- set-up --------------------------------------------------------------------------------

    def _segmented(
        self, counts: dict[str, int], end_of_word: str, fuse_end_of_word: bool
    ) -> list[list[int]]:
        """Each word's initial symbols as ids (what :func:`reference.corpus.segment` gives)."""
        intern = self.interner.__getitem__
        if not end_of_word:
            return [list(map(intern, word)) for word in counts]
        if fuse_end_of_word:
            return [
                list(map(intern, segment(word, end_of_word, fuse_end_of_word=True)))
                for word in counts
            ]
        marker = intern(end_of_word)
        return [[*map(intern, word), marker] for word in counts]

    def _initial_pairs(self) -> tuple[dict[int, int], dict[int, list[int]]]:
        """Index every pair's words and weigh its count, the per-occurrence work done in C."""
        shift, words = self.shift, self.words
        occurrences = [list(map(or_, map(lshift, word, repeat(shift)), word[1:])) for word in words]
        # One word id per occurrence, appended to its pair's list in corpus order.
        lists: defaultdict[int, list[int]] = defaultdict(list)
        deque(
            map(
                list.append,
                map(lists.__getitem__, chain.from_iterable(occurrences)),
                chain.from_iterable(map(repeat, range(len(words)), map(len, occurrences))),
            ),
            maxlen=0,
        )
        weight = self.freqs.__getitem__
        return {pair: sum(map(weight, ids)) for pair, ids in lists.items()}, dict(lists)

    def _entry_function(self) -> Callable[[int, int], Entry]:
        """The rule's heap entry for (pair, count); its key is never worse than the true key."""
        shift, mask, symbols, index = self.shift, self.mask, self.symbols, self.index
        if self.tie_break == FIRST_SEEN:
            return lambda pair, count: (-count, index[pair][0], 0, pair)
        if self.tie_break == CONCATENATED:

            def concatenated(pair: int, count: int) -> Entry:
                first = symbols[pair >> shift]
                return (-count, first + symbols[pair & mask], first, pair)

            return concatenated
        keys = self.symbol_keys
        return lambda pair, count: (-count, keys[pair >> shift], keys[pair & mask], pair)

    # -- reading the state ---------------------------------------------------------------------

    def pair(self, pair: int) -> Pair:
        return (self.symbols[pair >> self.shift], self.symbols[pair & self.mask])

    def pair_counts(self) -> dict[Pair, int]:
        """The live pair counts as (str, str) -> count (what ``plain.count_pairs`` gives)."""
        return {self.pair(pair): count for pair, count in self.pair_count.items() if count}

    def segmentation(self) -> list[tuple[str, ...]]:
        symbols = self.symbols
        return [tuple(symbols[s] for s in word) for word in self.words]

    def best(self) -> tuple[int, int] | None:
        """The pair to merge next and its count, or None when no pair is left."""
        heap, pair_count = self.heap, self.pair_count
        first_seen = self.tie_break == FIRST_SEEN
        while heap:
            neg_count, tie_a, tie_b, pair = heap[0]
            count = pair_count.get(pair)
            if not count:
                heappop(heap)
                if count == 0:  # emptied by merges; forget it now
                    del pair_count[pair]
                    del self.index[pair]
            elif count != -neg_count:
                heapreplace(heap, (-count, tie_a, tie_b, pair))
            elif first_seen and (exact := self._first_occurrence(pair)) != (tie_a, tie_b):
                heapreplace(heap, (neg_count, *exact, pair))
            else:
                heappop(heap)
                return pair, count
        return None

    def _first_occurrence(self, pair: int) -> tuple[int, int]:
        """(word id, character offset) of the pair's first occurrence in corpus order.

        Leading words of the pair's index that no longer contain it are dropped on the way.
        """
        left, right = pair >> self.shift, pair & self.mask
        containing = self.index[pair]
        symbols = self.symbols
        for position, word_id in enumerate(containing):
            word = self.words[word_id]
            offset = 0
            for here, after in zip(word, word[1:]):
                if here == left and after == right:
                    del containing[:position]
                    return word_id, offset
                offset += len(symbols[here])
        raise AssertionError("a counted pair occurs in no word")  # unreachable

    # -- merging -------------------------------------------------------------------------------

    def merge(self, pair: int) -> Pair:
        """Merge every occurrence of ``pair`` (left to right, no overlaps); return it as strings."""
        shift = self.shift
        left, right = pair >> shift, pair & self.mask
        merged_pair = self.pair(pair)
        text = merged_pair[0] + merged_pair[1]
        is_new_symbol = text not in self.interner
        new = self.interner[text]
        if new > self.mask:
            raise RuntimeError("more merges than the trainer was sized for")
        if is_new_symbol and self.symbol_keys is not self.symbols:
            self.symbol_keys.append(inverted(text))
        words, freqs, pair_count = self.words, self.freqs, self.pair_count
        same = left == right
        new_first, right_first = new << shift, right << shift  # pair ids lacking their right
        # Pairs that contain the new symbol -> one word id per occurrence, in word order.
        gained: defaultdict[int, list[int]] = defaultdict(list)

        for word_id in self.index.pop(pair):
            word = words[word_id]
            remaining = word.count(left)
            if not remaining:
                continue  # the word lost the pair to an earlier merge
            freq = freqs[word_id]
            last = len(word) - 1
            merged_at = -2
            i = -1
            while remaining:
                i = word.index(left, i + 1)
                remaining -= 1
                if i < last and word[i + 1] == right:
                    if i:
                        before = word[i - 1]
                        if merged_at == i - 1:
                            # Overlap (a b a b): the previous merge counted (new, left) on its
                            # right, but that left is merged now; the pair is (new, new).
                            gained[new_first | left].pop()
                        else:
                            pair_count[(before << shift) | left] -= freq
                        gained[(before << shift) | new].append(word_id)
                    if i + 1 < last:
                        after = word[i + 2]
                        pair_count[right_first | after] -= freq
                        gained[new_first | after].append(word_id)
                    word[i] = new
                    del word[i + 1]
                    last -= 1
                    merged_at = i
                    if same:
                        remaining -= 1

        del pair_count[pair]
        self._add_gained(gained, is_new_symbol)
        return merged_pair

    def _add_gained(self, gained: dict[int, list[int]], is_new_symbol: bool) -> None:
        """Count the pairs a merge created, index their words and give them heap entries."""
        pair_count, index, heap, freqs = self.pair_count, self.index, self.heap, self.freqs
        weight = freqs.__getitem__
        for pair, occurrences in gained.items():
            if not occurrences:
                continue
            count = sum(map(weight, occurrences))
            if not is_new_symbol and pair in pair_count:
                # A symbol made again by a different merge: the pair may already be counted.
                count += pair_count[pair]
                occurrences = sorted(index[pair] + occurrences)
            pair_count[pair] = count
            index[pair] = occurrences
            heappush(heap, self._entry(pair, count))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Keep the cyclic garbage collector off for a training run, then restore it.

    Training makes no reference cycles, and each full pass of the collector would walk every
    item of every word and index list (hundreds of milliseconds on a 6 MB corpus).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def iter_merges(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = LEXICOGRAPHIC,
    end_of_word: str = END_OF_WORD,
    fuse_end_of_word: bool = False,
    min_count: int = 1,
) -> Iterator[tuple[Pair, int]]:
    """Yield each merge with the count it had when chosen (arguments as for :func:`train_bpe`)."""
    check_training_options(num_merges, tie_break, min_count)
    counts = word_counts(corpus)
    trainer = IncrementalTrainer(
        counts,
        num_merges,
        tie_break=tie_break,
        end_of_word=check_end_of_word(end_of_word),
        fuse_end_of_word=fuse_end_of_word,
    )
    for _ in range(num_merges):
        chosen = trainer.best()
        if chosen is None or chosen[1] < min_count:
            return
        pair, count = chosen
        yield trainer.merge(pair), count


def train_bpe(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = LEXICOGRAPHIC,
    end_of_word: str = END_OF_WORD,
    fuse_end_of_word: bool = False,
    min_count: int = 1,
) -> list[Pair]:
    """Learn up to ``num_merges`` merges from ``corpus`` (texts or word -> count); same as plain."""
    with collector_paused():
        return [
            pair
            for pair, _count in iter_merges(
                corpus,
                num_merges,
                tie_break=tie_break,
                end_of_word=end_of_word,
                fuse_end_of_word=fuse_end_of_word,
                min_count=min_count,
            )
        ]
