"""The fast BPE trainer: incremental pair counts, a pair -> words index and a lazy priority queue.

It learns exactly the merges of :mod:`reference.plain` under every tie-break rule, but each
merge touches only the words that contain the merged pair instead of recounting the corpus.

How it stays exact:

- Each symbol is one character (a corpus character codes itself), a word a string of codes
  padded with an edge code at both ends, a pair a two-character string; ``str.split`` finds a
  pair's occurrences left to right without overlaps, as plain merges. ``index[pair]`` lists,
  in increasing order, every word that contained the pair at some point since it appeared,
  once per occurrence it had then.
- Merging (a, b) into n turns each ``x a b y`` into ``x n y``: (x, a) and (b, y) lose what
  (x, n) and (n, y) gain. Only pairs with the new symbol gain, so the heap holds, for each
  live pair, an entry whose key is never worse than the pair's true key: gaining pairs get a
  fresh entry, losing pairs are fixed up lazily when their entry reaches the top.
- A pair created with fewer than ``RARE`` occurrences is not tracked (no count, index or
  entry): it can only lose, so it cannot win while the best count is at least ``RARE``; if
  training gets below that, every pair is recounted from the words and tracked from then on.
  Tracked pairs with fewer bits of count than the last merge wait outside the heap until the
  best count gets down to them.
- Heap keys per rule, best first: ``lexicographic`` (-count, a, b); ``concatenated``
  (-count, a+b, a); ``reverse-lexicographic`` (-count, inverted a, inverted b) where a symbol is
  inverted into a tuple of ints that sorts in reverse string order; ``first-seen``
  (-count, word, offset) where word is the index of the first word that contains the pair and
  offset the character offset of its first occurrence there. Symbol start offsets never move
  when symbols merge, so a stored (word, offset) stays a lower bound as occurrences vanish; the
  exact key is recomputed when the entry reaches the top.
- Two merges can produce the same string (``a bc`` and ``ab c``); such a symbol is the same
  symbol, as in plain, and the pairs it gains may already exist (their word lists are then
  re-sorted; untracked pairs are tracked first).
"""

from __future__ import annotations

import gc
import sys
from collections import defaultdict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from heapq import heapify, heappop, heappush, heapreplace
from itertools import chain, repeat
from operator import getitem, itemgetter

from reference.corpus import END_OF_WORD, check_end_of_word, word_counts
from reference.tie_breaks import (
    CONCATENATED,
    FIRST_SEEN,
    LEXICOGRAPHIC,
    REVERSE_LEXICOGRAPHIC,
    Pair,
)
from reference.validation import check_training_options

# Heap entry: (-count, first tie field, second tie field, pair). One layout for every rule.
Entry = tuple

RARE = 16  # pairs created with fewer occurrences are not tracked (see the module docstring)


def inverted(symbol: str) -> tuple[int, ...]:
    """A key that sorts in the reverse string order: ``s < t`` iff ``inverted(s) > inverted(t)``.

    Characters become negated code points; the trailing 1 is larger than any of them, so a
    prefix sorts after the longer strings that extend it.
    """
    return tuple([-ord(char) for char in symbol]) + (1,)


def total_weight(ids: list[int], weights: list[int]) -> int:
    """The sum of ``weights[i]`` over ``ids`` (at least one), looked up in C."""
    return sum(itemgetter(*ids)(weights)) if len(ids) > 1 else weights[ids[0]]


def consume(iterator: Iterator) -> None:
    """Run ``iterator`` to its end, for the side effects of the calls it maps."""
    deque(iterator, maxlen=0)


class _Interner(dict):
    """Symbol string -> its one-character code, a fresh one for each string it has not seen.

    A single character is its own code; other strings get code points outside ``taken`` (every
    character of the corpus), so codes and symbol strings correspond one to one.
    """

    def __init__(self, taken: set[str]) -> None:
        super().__init__()
        self.strings: dict[str, str] = {}  # code -> symbol string
        every_code = map(chr, range(sys.maxunicode + 1))
        self.free_codes = (code for code in every_code if code not in taken)

    def __missing__(self, symbol: str) -> str:
        code = symbol if len(symbol) == 1 else next(self.free_codes, None)
        if code is None:
            raise RuntimeError("more symbols than there are Unicode code points")
        self[symbol] = code
        self.strings[code] = symbol
        return code


class IncrementalTrainer:
    """The state of a training run: segmented words, live pair counts, their index and heap.

    :meth:`best` names the next pair and its count, :meth:`merge` applies it. ``counts`` maps
    word -> count in corpus order (as :func:`reference.corpus.word_counts` returns it).
    """

    def __init__(
        self,
        counts: dict[str, int],
        *,
        tie_break: str = LEXICOGRAPHIC,
        end_of_word: str = END_OF_WORD,
        fuse_end_of_word: bool = False,
    ) -> None:
        self.tie_break = tie_break
        taken = set("".join(counts))
        if len(end_of_word) == 1:  # a one-character marker is its own code too
            taken.add(end_of_word)
        self.interner = _Interner(taken)
        for character in taken:  # each its own code
            self.interner[character]
        self.edge = self.interner[""]
        self.words: list[str] = self._segmented(counts, end_of_word, fuse_end_of_word)
        self.freqs: list[int] = list(counts.values())
        self.symbols = self.interner.strings
        # Per-symbol tie fields: the strings themselves, or their inversions for reverse order.
        self.symbol_keys: dict[str, object] = (
            {code: inverted(symbol) for code, symbol in self.symbols.items()}
            if tie_break == REVERSE_LEXICOGRAPHIC
            else self.symbols
        )
        self.floor = RARE  # merges do not track the pairs they create with fewer occurrences
        self._track_all()

    # -- set-up --------------------------------------------------------------------------------

    def _track_all(self) -> None:
        """Count and index every pair of the current words, and queue them all."""
        # A pair emptied by merges keeps a 0 in pair_count until its heap entry surfaces.
        self.pair_count, self.index = self._count_pairs()
        self._entry = self._entry_function()
        self.heap: list[Entry] = [self._entry(pair, self.pair_count[pair]) for pair in self.index]
        heapify(self.heap)
        # Pairs created with fewer bits of count than the last merge's wait outside the heap,
        # filed by that bit length, until the best count gets down to as few bits.
        self.level = 0  # the bit length of the last merge's count
        self.waiting: defaultdict[int, list[str]] = defaultdict(list)

    def _segmented(
        self, counts: dict[str, int], end_of_word: str, fuse_end_of_word: bool
    ) -> list[str]:
        """Each word's initial symbols (what :func:`reference.corpus.segment` gives), padded."""
        edge, intern = self.edge, self.interner.__getitem__
        if not end_of_word:
            return [edge + word + edge for word in counts]
        if fuse_end_of_word:
            return [edge + word[:-1] + intern(word[-1:] + end_of_word) + edge for word in counts]
        end = intern(end_of_word) + edge
        return [edge + word + end for word in counts]

    def _count_pairs(self) -> tuple[dict[str, int], dict[str, list[int]]]:
        """Index every pair's words and weigh its count, the per-occurrence work done in C."""
        words = self.words
        # Each occurrence's two symbols, edges off, word after word. Looking a pair up as
        # rows[first][second] saves making a string per occurrence (short strings are cached).
        firsts = "".join([word[1:-2] for word in words])
        seconds = "".join([word[2:-1] for word in words])
        ids = chain.from_iterable(map(repeat, range(len(words)), [len(word) - 3 for word in words]))
        rows: defaultdict[str, defaultdict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        lists = map(getitem, map(rows.__getitem__, firsts), seconds)
        consume(map(list.append, lists, ids))  # one word id per occurrence, in corpus order
        index = {first + second: ids for first, row in rows.items() for second, ids in row.items()}
        freqs = self.freqs
        return {pair: total_weight(ids, freqs) for pair, ids in index.items()}, index

    def _entry_function(self) -> Callable[[str, int], Entry]:
        """The rule's heap entry for (pair, count); its key is never worse than the true key."""
        symbols, index = self.symbols, self.index
        if self.tie_break == FIRST_SEEN:
            return lambda pair, count: (-count, index[pair][0], 0, pair)
        if self.tie_break == CONCATENATED:

            def concatenated(pair: str, count: int) -> Entry:
                first = symbols[pair[0]]
                return (-count, first + symbols[pair[1]], first, pair)

            return concatenated
        keys = self.symbol_keys
        return lambda pair, count: (-count, keys[pair[0]], keys[pair[1]], pair)

    # -- reading the state ---------------------------------------------------------------------

    def pair(self, pair: str) -> Pair:
        return (self.symbols[pair[0]], self.symbols[pair[1]])

    def pair_counts(self) -> dict[Pair, int]:
        """The live pair counts as (str, str) -> count (what ``plain.count_pairs`` gives)."""
        current = self._count_pairs()[0]  # for the untracked pairs
        counts = {pair: count for pair, count in current.items() if pair not in self.pair_count}
        counts.update((pair, count) for pair, count in self.pair_count.items() if count)
        return {self.pair(pair): count for pair, count in counts.items()}

    def segmentation(self) -> list[tuple[str, ...]]:
        return [tuple(map(self.symbols.__getitem__, word[1:-1])) for word in self.words]

    def best(self) -> tuple[str, int] | None:
        """The pair to merge next and its count, or None when no pair is left."""
        heap, pair_count = self.heap, self.pair_count
        first_seen = self.tie_break == FIRST_SEEN
        while heap or self.waiting:
            if not heap:
                self._release(0)
                continue
            neg_count, tie_a, tie_b, pair = heap[0]
            count = pair_count.get(pair)
            if not count:
                heappop(heap)
                if count == 0:  # emptied by merges; forget it now
                    del pair_count[pair]
                    del self.index[pair]
            elif count != -neg_count:
                heapreplace(heap, (-count, tie_a, tie_b, pair))
            elif count < self.floor:  # an untracked pair may count as much
                return self._track_untracked()
            elif count.bit_length() < self.level:  # a waiting pair may count as much
                self._release(count.bit_length())
            elif first_seen and (exact := self._first_occurrence(pair)) != (tie_a, tie_b):
                heapreplace(heap, (neg_count, *exact, pair))
            else:
                heappop(heap)
                self.level = count.bit_length()
                return pair, count
        return self._track_untracked() if self.floor else None

    def _track_untracked(self) -> tuple[str, int] | None:
        """Training got down to the rare pairs: track every pair from now on, then choose."""
        self.floor = 0
        self._track_all()
        return self.best()

    def _release(self, level: int) -> None:
        """Queue the waiting pairs whose counts may have ``level`` or more bits."""
        for bits in [bits for bits in self.waiting if bits >= level]:
            for pair in self.waiting.pop(bits):
                count = self.pair_count.get(pair)
                if count is not None:
                    heappush(self.heap, self._entry(pair, count))
        self.level = level

    def _first_occurrence(self, pair: str) -> tuple[int, int]:
        """(word id, character offset) of the pair's first occurrence in corpus order.

        Leading words of the pair's index that no longer contain it are dropped on the way.
        """
        containing = self.index[pair]
        for position, word_id in enumerate(containing):
            word = self.words[word_id]
            at = word.find(pair)
            if at >= 0:
                del containing[:position]
                return word_id, sum(map(len, map(self.symbols.__getitem__, word[:at])))
        raise AssertionError("a counted pair occurs in no word")  # unreachable

    # -- merging -------------------------------------------------------------------------------

    def merge(self, pair: str) -> Pair:
        """Merge every occurrence of ``pair`` (left to right, no overlaps); return it as strings.

        The words are only filed here under the symbols before and after each occurrence;
        the pairs those neighbours lose and gain are then counted once per neighbour.
        """
        merged_pair = self.pair(pair)
        text = merged_pair[0] + merged_pair[1]
        is_new_symbol = text not in self.interner
        new = self.interner[text]
        if is_new_symbol and self.symbol_keys is not self.symbols:
            self.symbol_keys[new] = inverted(text)
        if not is_new_symbol and self.floor:
            # The pairs this merge gains may exist already, untracked: track everything.
            self.floor = 0
            self._track_all()
        words = self.words
        # Neighbour -> one word id per merge next to it, in word order.
        before: defaultdict[str, list[int]] = defaultdict(list)
        after: defaultdict[str, list[int]] = defaultdict(list)
        overlapped: list[int] = []  # a b a b: (right, left) lost, (new, new) gained

        for word_id in self.index.pop(pair):
            word = words[word_id]
            if pair not in word:
                continue  # the word lost the pair to an earlier merge, or is listed twice
            parts = word.split(pair)
            words[word_id] = new.join(parts)
            if len(parts) == 2:
                head, tail = parts
                before[head[-1]].append(word_id)
                after[tail[0]].append(word_id)
                continue
            # Merged more than once; an empty part between two merges is an overlap.
            before[parts[0][-1]].append(word_id)
            for part in parts[1:-1]:
                if part:
                    after[part[0]].append(word_id)
                    before[part[-1]].append(word_id)
                else:
                    overlapped.append(word_id)
            after[parts[-1][0]].append(word_id)

        self._trade(pair, new, before, after, overlapped, is_new_symbol)
        del self.pair_count[pair]
        return merged_pair

    def _trade(
        self,
        pair: str,
        new: str,
        before: dict[str, list[int]],
        after: dict[str, list[int]],
        overlapped: list[int],
        is_new_symbol: bool,
    ) -> None:
        """Move each neighbour's words' weight from the pair they lost to the pair they gained;
        index the gained pairs' words and queue them (or file them as waiting, or not track
        them at all if they are rare enough)."""
        pair_count, index, heap, entry = self.pair_count, self.index, self.heap, self._entry
        freqs, floor, level, waiting = self.freqs, self.floor, self.level, self.waiting
        left, right = pair
        before.pop(self.edge, None)
        after.pop(self.edge, None)
        # (lost pair, gained pair's two symbols, word ids)
        trades = [(x + left, x, new, ids) for x, ids in before.items()]
        trades += [(right + y, new, y, ids) for y, ids in after.items()]
        if overlapped:
            trades.append((right + left, new, new, overlapped))
        for lost, first, second, ids in trades:
            count = sum(itemgetter(*ids)(freqs)) if len(ids) > 1 else freqs[ids[0]]  # total_weight
            lost_count = pair_count.get(lost)
            if lost_count is not None:  # else it is too rare to be tracked
                pair_count[lost] = lost_count - count
            if count < floor:
                continue
            won = first + second
            if not is_new_symbol and won in pair_count:
                # A symbol made again by a different merge: the pair may already be counted.
                count += pair_count[won]
                ids = sorted(index[won] + ids)
            pair_count[won] = count
            index[won] = ids
            if count.bit_length() >= level:
                heappush(heap, entry(won, count))
            else:
                waiting[count.bit_length()].append(won)


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
