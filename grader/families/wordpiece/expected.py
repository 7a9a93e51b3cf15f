"""Expected values of a WordPiece exercise's cases, computed with :mod:`reference.wordpiece`.

WordPiece shares BPE's corpus, marker and tie conventions; only the choice of pair differs.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.families.bpe.generated import merges_key
from grader.families.api import Case, Exercise, Pair
from reference.wordpiece import first_divergence, train_wordpiece


def reference_wordpiece(exercise: Exercise, case: Case) -> list[Pair]:
    """The WordPiece merges the reference learns from the case, as bare pairs."""
    return wordpiece_merges(exercise, case.corpus, case.num_merges)


def wordpiece_merges(exercise: Exercise, corpus: Any, num_merges: int) -> list[Pair]:
    """WordPiece merges of ``corpus`` under the exercise's tie rule and marker (a fresh list;
    remembered, as the judges and the evidence of work ask for the same)."""
    key = ("merges", *merges_key(exercise, corpus, num_merges))
    if key not in _REMEMBERED:
        conventions = exercise.conventions
        _REMEMBERED[key] = tuple(train_wordpiece(
            corpus, num_merges, tie_break=conventions.tie_break,
            end_of_word=conventions.end_of_word))
    return list(_REMEMBERED[key])


def divergence(exercise: Exercise, corpus: Any, num_merges: int) -> Optional[tuple[int, Pair, Pair]]:
    """``(step, bpe_pair, wordpiece_pair)`` where the two first part, or None (remembered)."""
    key = ("divergence", *merges_key(exercise, corpus, num_merges))
    if key not in _REMEMBERED:
        conventions = exercise.conventions
        _REMEMBERED[key] = first_divergence(
            corpus, num_merges, tie_break=conventions.tie_break,
            end_of_word=conventions.end_of_word)
    return _REMEMBERED[key]


_REMEMBERED: dict[tuple, Any] = {}


def reference_divergence(exercise: Exercise, case: Case) -> Optional[tuple[int, Pair, Pair]]:
    """The case's first step where BPE and WordPiece merge different pairs, or None."""
    return divergence(exercise, case.corpus, case.num_merges)
