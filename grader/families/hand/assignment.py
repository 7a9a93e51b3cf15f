"""Variants for a roster that share no graded first merge, tie or vocabulary, read back from the file.

Without a roster each student gets the first variant their own seeded generator meets
(index 0 of ``variants.variant_stream``). Drawn independently, two students of a roster of 30
share the first merge in about one pair in ten and the tie in about one in four
(``bench/hand_collisions.py``). With a roster, :func:`assign_variants` goes through it in
order and gives each student the first of their own variants whose first-merge, tie and
vocabulary answers no student before them has (or, when the exercise has fewer distinct answers than
the roster has students, the least taken ones); students added at the end of a roster keep
everyone else's variant. The choice needs no record on the grading host: the answers file lists its
corpus and which of the student's own variants it is, with a keyed hash of both
(:func:`variant_check`), and :func:`own_variant` accepts it when the hash fits this student
(a classmate's file never does: it is refused without drawing anything). A file without that
line is accepted when its corpus is one of the student's own first ``MAX_INDEX`` variants.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from itertools import islice
from typing import Optional

from grader.families.api import Exercise
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant, diagnostic_variants
from grader.families.hand.variants import Variant, corpus_key

MAX_INDEX = 32
"""How many of a student's own variants a roster may choose among (and the grader accepts)."""

SHARED_QUESTIONS = ("first-merge", "tie", "vocabulary")
"""The answers no two students of a roster share where the exercise's corpus space allows (the
pair counts and tokens follow from the whole corpus and rarely coincide: see the README's
collision figures)."""


def answer_keys(exercise: Exercise, variant: Variant) -> set[str]:
    """One text per question of ``SHARED_QUESTIONS``, equal only for equal answers."""
    expected = expected_answers(exercise, variant)
    return {f"{question}={json.dumps(expected[question], sort_keys=True)}"
            for question in SHARED_QUESTIONS}


def assign_variants(exercise: Exercise, students: list[str], secret: str) -> dict[str, Variant]:
    """Student -> variant: the first of each student's own ``MAX_INDEX`` variants whose
    answers to ``SHARED_QUESTIONS`` are the least taken by the students listed before them
    (none taken, where the exercise's corpus space has enough distinct answers)."""
    taken: Counter[str] = Counter()
    assigned: dict[str, Variant] = {}
    for student in students:
        best: Optional[tuple[list[int], Variant, set[str]]] = None
        for variant in islice(diagnostic_variants(exercise, student, secret), MAX_INDEX):
            keys = answer_keys(exercise, variant)
            cost = sorted((taken[key] for key in keys), reverse=True)
            if best is None or cost < best[0]:
                best = (cost, variant, keys)
            if not any(cost):
                break
        assert best is not None
        assigned[student] = best[1]
        taken.update(best[2])
    return assigned


CHECK_LENGTH = 16
"""Hex digits of the keyed hash an answers file carries (64 bits: no one guesses it)."""


def variant_check(exercise: Exercise, secret: str, variant: Variant) -> str:
    """The keyed hash (HMAC-SHA256 with the course secret) of the exercise, the student, the
    variant's index and its corpus, as the answers file writes it beside the corpus."""
    return _check(exercise, secret, variant.student, variant.index, dict(variant.corpus))


def _check(exercise: Exercise, secret: str, student: str, index: int, corpus: dict[str, int]) -> str:
    message = "\0".join(("hand-variant", exercise.id, str(student), str(index), corpus_key(corpus)))
    digest = hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()
    return digest[:CHECK_LENGTH]


def own_variant(exercise: Exercise, student: str, secret: str,
                corpus: Optional[dict[str, int]],
                stated: Optional[tuple[int, str]] = None) -> Variant:
    """The variant of ``student`` whose corpus is ``corpus``, else their first (index 0).

    ``stated`` is the file's variant line, ``(index, check)``: when the check fits this
    student, that index and corpus, the variant is taken at that index directly; when it does
    not, the file was made for someone else (or the line was changed) and nothing is searched.
    Without the line, ``corpus`` is looked for among their own first ``MAX_INDEX`` variants."""
    first = diagnostic_variant(exercise, student, secret)
    if corpus is None or corpus == dict(first.corpus):
        return first
    if stated is not None:
        index, check = stated
        if 0 <= index < MAX_INDEX and hmac.compare_digest(
                check.lower(), _check(exercise, secret, student, index, corpus)):
            variant = diagnostic_variant(exercise, student, secret, index)
            if dict(variant.corpus) == corpus:
                return variant
        return first
    for variant in islice(diagnostic_variants(exercise, student, secret), MAX_INDEX):
        if dict(variant.corpus) == corpus:
            return variant
    return first
