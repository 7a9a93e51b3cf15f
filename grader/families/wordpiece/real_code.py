"""WordPiece trainers as published code writes them: the HF course's port, and its slips.

Each is a runnable wrong trainer, catalogued by :mod:`grader.families.wordpiece.mistakes`:

- the Hugging Face course's trainer as written: ``##`` continuation pieces, no end-of-word
  marker, float scores, and the first pair scored strictly highest kept (``if max_score is
  None or max_score < score``), which is the first-seen tie rule;
- the score divided by the *sum* of the parts' counts, ``count(ab) / (count(a) + count(b))``;
- the symbol counts taken inside the pair loop for both sides of every pair, so a symbol
  inside a word counts twice and a one-symbol word not at all;
- training that crashes once no pair is left (``max()`` of nothing, or the course's best
  pair left at ``""`` and unpacked).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from grader.families.bpe.real_code import NoPairLeft
from reference.corpus import END_OF_WORD, word_counts
from reference.plain import count_pairs, initial_segmentation, merge_words
from reference.tie_breaks import LEXICOGRAPHIC, Pair, best_pair
from reference.wordpiece import symbol_counts, train_wordpiece

CONTINUATION = "##"


def _continuation_start(corpus: Any) -> dict:
    words: dict = {}
    for word, count in word_counts(corpus).items():
        symbols = tuple(c if i == 0 else CONTINUATION + c for i, c in enumerate(word))
        words[symbols] = words.get(symbols, 0) + count
    return words


def _continuation_merge(words: dict, pair: Pair) -> dict:
    """The course's merge: the right side's ``##`` dropped (``w`` + ``##i`` is ``wi``)."""
    glued, joined = pair[0] + pair[1], pair[0] + pair[1].removeprefix(CONTINUATION)
    return {tuple(joined if symbol == glued else symbol for symbol in symbols): count
            for symbols, count in merge_words(words, pair).items()}


def train_hf_course(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
                    end_of_word: str = END_OF_WORD) -> list[Pair]:
    """The course's loop: float scores in scan order, the first strictly highest kept."""
    words = _continuation_start(corpus)
    merges: list[Pair] = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        symbols = symbol_counts(words)
        best, top = None, None
        for pair, count in pairs.items():
            score = count / (symbols[pair[0]] * symbols[pair[1]])
            if top is None or top < score:
                best, top = pair, score
        merges.append(best)
        words = _continuation_merge(words, best)
    return merges


def _train_scored(score, corpus: Any, num_merges: int, tie_break: str, end_of_word: str,
                  counts=symbol_counts) -> list[Pair]:
    words = initial_segmentation(word_counts(corpus), end_of_word)
    merges: list[Pair] = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        symbols = counts(words)
        pair = best_pair({p: score(c, symbols[p[0]], symbols[p[1]]) for p, c in pairs.items()},
                         tie_break)
        merges.append(pair)
        words = merge_words(words, pair)
    return merges


def _by_sum(pair_count: int, count_a: int, count_b: int) -> Any:
    return Fraction(pair_count, count_a + count_b)


def _by_product(pair_count: int, count_a: int, count_b: int) -> Any:
    return Fraction(pair_count, count_a * count_b)


def train_score_by_sum(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
                       end_of_word: str = END_OF_WORD) -> list[Pair]:
    """``count(ab) / (count(a) + count(b))``."""
    return _train_scored(_by_sum, corpus, num_merges, tie_break, end_of_word)


def counted_per_pair(words: dict) -> dict[str, int]:
    """Symbol counts taken in the pair loop: both sides of every pair, weighted."""
    counts: dict[str, int] = {}
    for symbols, count in words.items():
        for a, b in zip(symbols, symbols[1:]):
            counts[a] = counts.get(a, 0) + count
            counts[b] = counts.get(b, 0) + count
    return counts


def train_symbols_per_pair(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
                           end_of_word: str = END_OF_WORD) -> list[Pair]:
    """The exact score over symbol counts taken per pair (see :func:`counted_per_pair`)."""
    return _train_scored(_by_product, corpus, num_merges, tie_break, end_of_word,
                         counts=counted_per_pair)


def train_crash_when_no_pair(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
                             end_of_word: str = END_OF_WORD) -> list[Pair]:
    """The right merges, then a crash when asked for a merge with no pair left."""
    merges = train_wordpiece(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    if len(merges) < num_merges:
        raise NoPairLeft()
    return merges


def _divergence_scored(score, counts, corpus: Any, num_merges: int, tie_break: str,
                       end_of_word: str) -> Any:
    """BPE's pick beside a WordPiece pick by ``score`` over ``counts``, on the shared words."""
    words = initial_segmentation(word_counts(corpus), end_of_word)
    for step in range(1, num_merges + 1):
        pairs = count_pairs(words)
        if not pairs:
            return None
        symbols = counts(words)
        bpe = best_pair(pairs, tie_break)
        wordpiece = best_pair({p: score(c, symbols[p[0]], symbols[p[1]])
                               for p, c in pairs.items()}, tie_break)
        if bpe != wordpiece:
            return (step, bpe, wordpiece)
        words = merge_words(words, bpe)
    return None


def divergence_symbols_per_pair(corpus: Any, num_merges: int, *,
                                tie_break: str = LEXICOGRAPHIC,
                                end_of_word: str = END_OF_WORD) -> Any:
    return _divergence_scored(_by_product, counted_per_pair, corpus, num_merges, tie_break,
                              end_of_word)
