"""Expected values of an exercise's cases, computed with the reference under its conventions.

A case may state its expected merges, tokens or lengths; these functions give the values the
reference computes, so ``grade check`` can verify what an author wrote and the grading engine
can fill in what they left out. Merge lists come back in the exercise's merge form: bare pairs
``(a, b)`` or pairs with their token ``((a, b), "ab")``.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.families.bpe.generated import trained_merges
from grader.families.bpe.spec import BpeCase as Case
from grader.families.bpe.spec import EncodeItem, Pair, bare_pair
from grader.families.api import Exercise
from reference import encode
from reference.plain import Step, train_steps
from reference.sequence_lengths import sequence_lengths

Merge = Any  # a bare pair or a (pair, token) pair, per the exercise's merge form


def to_merge_form(pairs: list[Pair], merge_form: str) -> list[Merge]:
    """Write bare pairs in ``merge_form`` (``pairs`` or ``pairs-with-token``)."""
    if merge_form == "pairs-with-token":
        return [((a, b), a + b) for a, b in pairs]
    return [(a, b) for a, b in pairs]


def bare_pairs(merges: list[Merge]) -> list[Pair]:
    """Bare ``(a, b)`` pairs from a merge list in either form (lists or tuples)."""
    return [bare_pair(item) for item in merges]


def reference_pairs(exercise: Exercise, case: Case, tie_break: Optional[str] = None) -> list[Pair]:
    """The merges the reference learns from the case, as bare pairs (a fresh list; trained
    once per case and rule, as every judge of the case asks for them)."""
    conventions = exercise.conventions
    return trained_merges(case.corpus, case.num_merges, tie_break or conventions.tie_break,
                          conventions.end_of_word)


def reference_steps(exercise: Exercise, case: Case) -> list[Step]:
    """Every training step of the case, with the pair counts each merge was chosen from."""
    conventions = exercise.conventions
    return list(
        train_steps(
            case.corpus,
            case.num_merges,
            tie_break=conventions.tie_break,
            end_of_word=conventions.end_of_word,
        )
    )


def expected_merges(exercise: Exercise, case: Case) -> list[Merge]:
    """The case's expected merge list in the exercise's merge form, computed by the reference.

    A list the author wrote is not consulted: ``grade check`` verifies it equals this one.
    """
    return to_merge_form(reference_pairs(exercise, case), exercise.conventions.merge_form)


def expected_tokens(exercise: Exercise, merges: list[Merge], word: str) -> list[str]:
    """The reference's tokens for ``word`` under ``merges`` (either merge form)."""
    return encode(word, bare_pairs(merges), end_of_word=exercise.conventions.end_of_word)


def expected_lengths(exercise: Exercise, merges: list[Merge], sentence: str) -> dict[str, int]:
    """``{"char", "bpe", "word"}`` counts of ``sentence`` under ``merges`` (either form)."""
    return sequence_lengths(
        sentence, bare_pairs(merges), end_of_word=exercise.conventions.end_of_word
    )


def case_encodings(exercise: Exercise, case: Case) -> list[tuple[EncodeItem, list[str]]]:
    """Each word to encode with its expected tokens, using the reference's merges for the case.

    Encoding is graded with the reference's merges so a training mistake does not cascade.
    """
    merges = expected_merges(exercise, case)
    return [(item, expected_tokens(exercise, merges, item.word)) for item in case.encode]


def case_lengths(exercise: Exercise, case: Case) -> Optional[dict[str, int]]:
    """The expected sequence lengths of the case's sentence, or None when it has none."""
    if case.sentence is None:
        return None
    return expected_lengths(exercise, expected_merges(exercise, case), case.sentence)
