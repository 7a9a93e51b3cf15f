"""Corpora where two WordPiece scores agree to any given number of decimals and still differ.

Code that rounds scores before comparing them (``round(score, 4)``, as printed slides do)
makes two unequal scores tie, and the tie rule may then pick the worse pair. Which rounding
shows depends on how small the scores are: multiplying every count of a corpus by ``k``
divides every score by ``k``, so a corpus whose best two scores agree to three decimals,
scaled by ``10**j``, has them agree to ``3 + j``. :func:`near_tie` scales a few small corpora
in the exercise's letters (a near tie ``3/136`` against ``1/46`` in every order of the
letters, so some order loses under each tie rule) and keeps the first one on which trainers
rounding to that many decimals and the exact reference learn different merges: that is
checked, not assumed. :func:`targeted_examples` holds one per number of decimals in
:data:`DIGITS`; :func:`near_tie_strategy` draws generated corpora scaled the same way.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, Optional

from grader.families.api import Exercise, st
from grader.families.bpe.generated import _alphabet, _in_form
from grader.families.wordpiece.expected import wordpiece_merges
from reference.corpus import word_counts
from reference.plain import count_pairs, initial_segmentation, merge_words
from reference.tie_breaks import Pair, best_pair
from reference.wordpiece import symbol_counts

DIGITS = range(1, 9)
"""The numbers of decimals a targeted input catches rounding at."""
BASE = {(1, 1, 0): 5, (2, 0, 2, 1): 6, (2, 0, 0, 2): 6}
"""A corpus by letter positions: at its first step two scores are 3/136 = 0.02206 and
1/46 = 0.02174, equal to two decimals and, rounded half to even, to three."""
MOST_WORDS = 200_000
"""The most words a corpus of texts may hold once scaled (word-count corpora only multiply
their counts)."""


def rounded_merges(corpus: Any, num_merges: int, digits: int, tie_break: str,
                   end_of_word: str) -> list[Pair]:
    """The merges of a trainer comparing ``round(score, digits)`` instead of exact scores."""
    words = initial_segmentation(word_counts(corpus), end_of_word)
    merges: list[Pair] = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        symbols = symbol_counts(words)
        scores = {p: round(c / (symbols[p[0]] * symbols[p[1]]), digits) for p, c in pairs.items()}
        pair = best_pair(scores, tie_break)
        merges.append(pair)
        words = merge_words(words, pair)
    return merges


def catches(exercise: Exercise, corpus: Any, num_merges: int, digits: int) -> bool:
    """Whether rounding to ``digits`` decimals learns other merges than exact scores here."""
    conventions = exercise.conventions
    return rounded_merges(corpus, num_merges, digits, conventions.tie_break,
                          conventions.end_of_word) != wordpiece_merges(exercise, corpus, num_merges)


def scaled(exercise: Exercise, counts: dict[str, int], factor: int) -> Optional[Any]:
    """``counts`` times ``factor`` in the exercise's corpus form (None when too large)."""
    if exercise.conventions.corpus_form != "word-counts" and sum(counts.values()) * factor > MOST_WORDS:
        return None
    return _in_form(exercise, {word: times * factor for word, times in counts.items()})


def near_tie(exercise: Exercise, digits: int) -> Optional[tuple[Any, int]]:
    """A ``(corpus, num_merges)`` on which rounding scores to ``digits`` decimals changes
    the merges learned, or None when no scaled corpus in the exercise's letters does."""
    letters = (_alphabet(exercise) * 3)[:3]
    num_merges = max(1, min(exercise.properties.max_merges, 6))
    for order in dict.fromkeys(permutations(letters)):
        counts = {"".join(order[i] for i in word): times for word, times in BASE.items()}
        for shift in range(max(0, digits - 3), digits + 2):
            corpus = scaled(exercise, counts, 10 ** shift)
            if corpus is not None and catches(exercise, corpus, num_merges, digits):
                return corpus, num_merges
    return None


def targeted_examples(exercise: Exercise) -> list[tuple[Any, int]]:
    """One input per number of decimals in :data:`DIGITS` where rounding there shows."""
    found = (near_tie(exercise, digits) for digits in DIGITS)
    return [example for example in found if example is not None]


def near_tie_strategy(exercise: Exercise, corpora: st.SearchStrategy[tuple[Any, int]]
                      ) -> st.SearchStrategy[tuple[Any, int]]:
    """``corpora`` (``(corpus, num_merges)`` pairs), their counts sometimes scaled by a power
    of ten up to ``10**(max(DIGITS) - 2)``, so close scores of generated corpora agree to
    more decimals. Word-count corpora only: scaling a list of texts repeats its lines."""
    if exercise.conventions.corpus_form != "word-counts":
        return corpora
    powers = st.sampled_from([0, 0, 0, *range(1, max(DIGITS) - 1)])

    def scale(drawn: tuple[tuple[Any, int], int]) -> tuple[Any, int]:
        (corpus, num_merges), power = drawn
        return {word: times * 10 ** power for word, times in corpus.items()}, num_merges

    return st.tuples(corpora, powers).map(scale)

