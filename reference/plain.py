"""The definition of BPE training, written the way the lessons teach it.

Every merge recounts all adjacent pairs over the current segmentation of the unique words
(weighted by word count), picks the most frequent pair under the tie-break rule, and
rewrites every word. It is slow and obviously right; the fast trainer must agree with it.
``train_steps`` also yields what happened at each step, which ``grade trace`` and the
spec checker print.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from reference.corpus import END_OF_WORD, Symbols, check_end_of_word, segment, word_counts
from reference.tie_breaks import Pair, best_pair, order_tied
from reference.validation import check_training_options

Segmentation = dict[Symbols, int]


@dataclass(frozen=True)
class Step:
    """One merge: the counts it was chosen from and the corpus it left behind."""

    number: int
    pair_counts: dict[Pair, int]
    count: int
    tied: list[Pair]
    pair: Pair
    words_after: Segmentation

    @property
    def token(self) -> str:
        return self.pair[0] + self.pair[1]


def initial_segmentation(
    counts: dict[str, int], end_of_word: str = END_OF_WORD, *, fuse_end_of_word: bool = False
) -> Segmentation:
    return {
        segment(word, end_of_word, fuse_end_of_word=fuse_end_of_word): count
        for word, count in counts.items()
    }


def count_pairs(words: Segmentation) -> dict[Pair, int]:
    """Weighted counts of adjacent pairs, in the order a left-to-right scan first meets them."""
    pairs: dict[Pair, int] = {}
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + count
    return pairs


def merge_symbols(symbols: Symbols, pair: Pair) -> Symbols:
    """Replace every occurrence of ``pair``, left to right, without overlaps (``a a a`` -> ``aa a``)."""
    first, second = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            out.append(first + second)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def merge_words(words: Segmentation, pair: Pair) -> Segmentation:
    return {merge_symbols(symbols, pair): count for symbols, count in words.items()}


def train_steps(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = "lexicographic",
    end_of_word: str = END_OF_WORD,
    fuse_end_of_word: bool = False,
    min_count: int = 1,
) -> Iterator[Step]:
    """Yield each merge step of a training run (arguments as for :func:`train_bpe`)."""
    check_training_options(num_merges, tie_break, min_count)
    words = initial_segmentation(
        word_counts(corpus), check_end_of_word(end_of_word), fuse_end_of_word=fuse_end_of_word
    )
    for number in range(1, num_merges + 1):
        pair_counts = count_pairs(words)
        if not pair_counts:
            return
        pair = best_pair(pair_counts, tie_break)
        count = pair_counts[pair]
        if count < min_count:
            return
        tied = order_tied([p for p, c in pair_counts.items() if c == count], tie_break)
        words = merge_words(words, pair)
        yield Step(number, pair_counts, count, tied, pair, words)


def train_bpe(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = "lexicographic",
    end_of_word: str = END_OF_WORD,
    fuse_end_of_word: bool = False,
    min_count: int = 1,
) -> list[Pair]:
    """Learn up to ``num_merges`` merges from ``corpus`` (texts or word -> count)."""
    return [
        step.pair
        for step in train_steps(
            corpus,
            num_merges,
            tie_break=tie_break,
            end_of_word=end_of_word,
            fuse_end_of_word=fuse_end_of_word,
            min_count=min_count,
        )
    ]
