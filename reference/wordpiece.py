"""WordPiece training as the lessons present it, beside BPE, to show where the two part ways.

WordPiece starts exactly like the character-level reference (:mod:`reference.plain`): each
word is its characters plus the end-of-word marker, weighted by its count. Only the choice of
pair differs. Each step merges the pair with the highest score

    score(a, b) = count(ab) / (count(a) * count(b))

where ``count(ab)`` is the frequency-weighted count of the adjacent pair (what BPE ranks by)
and ``count(a)`` the frequency-weighted count of the symbol ``a`` in the current segmentation.
Scores are exact fractions, so equal scores really are equal, and ties go to the same
declared rules as BPE (:mod:`reference.tie_breaks`). This is the lessons' "PMI proxy"; BERT's
own WordPiece (``##`` continuation pieces, greedy longest-match encoding) is not modelled.

:func:`first_divergence` finds the first merge on which WordPiece and BPE disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from .corpus import END_OF_WORD, check_end_of_word, word_counts
from .errors import BPEInputError
from .plain import Segmentation, count_pairs, initial_segmentation, merge_words
from .tie_breaks import LEXICOGRAPHIC, Pair, best_pair, order_tied
from .validation import check_num_merges, check_tie_break


def symbol_counts(words: Segmentation) -> dict[str, int]:
    """How often each symbol occurs in the segmentation, weighted by word count."""
    counts: dict[str, int] = {}
    for symbols, count in words.items():
        for symbol in symbols:
            counts[symbol] = counts.get(symbol, 0) + count
    return counts


def wordpiece_score(pair_count: int, count_a: int, count_b: int) -> Fraction:
    """``pair_count / (count_a * count_b)`` as an exact fraction."""
    if min(pair_count, count_a, count_b) <= 0:
        raise BPEInputError(
            f"counts must be positive, got pair {pair_count}, symbols {count_a} and {count_b}"
        )
    return Fraction(pair_count, count_a * count_b)


def wordpiece_scores(words: Segmentation) -> dict[Pair, Fraction]:
    """Every adjacent pair's score, in the order a left-to-right scan first meets the pairs.

    That order is the one :func:`reference.tie_breaks.best_pair` needs for ``first-seen``.
    """
    symbols = symbol_counts(words)
    return {
        pair: wordpiece_score(count, symbols[pair[0]], symbols[pair[1]])
        for pair, count in count_pairs(words).items()
    }


@dataclass(frozen=True)
class WordPieceStep:
    """One merge: the scores it was chosen from, its pair's count and score, and the result."""

    number: int
    scores: dict[Pair, Fraction]
    pair_count: int
    score: Fraction
    tied: list[Pair]
    pair: Pair
    words_after: Segmentation

    @property
    def token(self) -> str:
        return self.pair[0] + self.pair[1]


def _start(
    corpus: object, tie_break: object, end_of_word: object, fuse_end_of_word: bool
) -> Segmentation:
    check_tie_break(tie_break)
    return initial_segmentation(
        word_counts(corpus), check_end_of_word(end_of_word), fuse_end_of_word=fuse_end_of_word
    )


def wordpiece_steps(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = LEXICOGRAPHIC,
    end_of_word: str = END_OF_WORD,
    fuse_end_of_word: bool = False,
) -> Iterator[WordPieceStep]:
    """Yield each WordPiece merge step (arguments as for :func:`train_wordpiece`)."""
    check_num_merges(num_merges)
    words = _start(corpus, tie_break, end_of_word, fuse_end_of_word)
    for number in range(1, num_merges + 1):
        pair_counts = count_pairs(words)
        if not pair_counts:
            return
        scores = wordpiece_scores(words)
        pair = best_pair(scores, tie_break)
        score = scores[pair]
        tied = order_tied([p for p, s in scores.items() if s == score], tie_break)
        words = merge_words(words, pair)
        yield WordPieceStep(number, scores, pair_counts[pair], score, tied, pair, words)


def train_wordpiece(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = LEXICOGRAPHIC,
    end_of_word: str = END_OF_WORD,
    fuse_end_of_word: bool = False,
) -> list[Pair]:
    """Learn up to ``num_merges`` WordPiece merges from ``corpus`` (texts or word -> count).

    The corpus, marker and tie-break options mean what they mean for
    :func:`reference.train_bpe`; training stops early when no word has two symbols left.
    """
    return [
        step.pair
        for step in wordpiece_steps(
            corpus,
            num_merges,
            tie_break=tie_break,
            end_of_word=end_of_word,
            fuse_end_of_word=fuse_end_of_word,
        )
    ]


def first_divergence(
    corpus: object,
    num_merges: int | None = None,
    *,
    tie_break: str = LEXICOGRAPHIC,
    end_of_word: str = END_OF_WORD,
    fuse_end_of_word: bool = False,
) -> tuple[int, Pair, Pair] | None:
    """The first step (1-based) where BPE and WordPiece merge different pairs, and both pairs.

    Returns ``(step, bpe_pair, wordpiece_pair)``, or None if the two agree on every merge
    up to ``num_merges`` (None: until no pair is left). Both use ``tie_break``.

    Up to the first disagreement the two runs make the same merges, so they reach that step
    with the same segmentation: "each continuing its own run" and "one shared run" name the
    same comparison. The lessons' "when the winner changes" contrast is this first step.
    """
    if num_merges is not None:
        check_num_merges(num_merges)
    words = _start(corpus, tie_break, end_of_word, fuse_end_of_word)
    number = 0
    while num_merges is None or number < num_merges:
        number += 1
        pair_counts = count_pairs(words)
        if not pair_counts:
            return None
        bpe_pair = best_pair(pair_counts, tie_break)
        wordpiece_pair = best_pair(wordpiece_scores(words), tie_break)
        if bpe_pair != wordpiece_pair:
            return number, bpe_pair, wordpiece_pair
        words = merge_words(words, bpe_pair)
    return None

