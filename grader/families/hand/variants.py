"""Per-student variants of an answers exercise, drawn from the student id and a course secret.

A variant is a small corpus (word -> count) and the words to tokenize, drawn from the
exercise's ``answers`` pools by a generator seeded with HMAC-SHA256(secret, exercise id and
student id): the same student always gets the same variant, different students almost always
different ones, and without the secret nobody can compute another student's variant. Draws
repeat (the same seeded generator, so still deterministic) until training for ``num_merges``
merges runs every merge and meets a tie that the exercise's rule decides: at the first step
where pairs tie for the top count, another tie-break rule would pick differently.

The secret comes from ``--seed-secret``, else the ``GRADE_SEED_SECRET`` environment variable,
else :data:`DEFAULT_SECRET`, a documented value fit only for practice: a course sets its own.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from grader.grading.secrets import environment_secret
from grader.spec.models import Exercise
from reference import encode
from reference.corpus import segment
from reference.plain import Step, train_steps
from reference.tie_breaks import TIE_BREAKS, best_pair

DEFAULT_SECRET = "local-practice"
STUDENT_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
MAX_DRAWS = 5000


class VariantError(ValueError):
    """No variant can be drawn: a bad student id, or settings that cannot meet the rules."""


def course_secret(given: Optional[str] = None) -> str:
    """The secret to seed variants with: ``given``, else the environment's (its variable or
    the file it names, as a bundle's entry point sets it), else the shared practice one.
    Raises ``SeedSecretError`` for a secret file that cannot be read."""
    return given or environment_secret() or DEFAULT_SECRET


def check_student(student: object, draws: str = "your corpus") -> str:
    """``student`` if it is a valid id, else :class:`VariantError` saying how to write one;
    ``draws`` is what the grader recomputes from it."""
    if student is None:
        raise VariantError(
            "the file has no student id: add the line student: \"YOUR_ID\" (the id your course "
            f"gave you; the grader recomputes {draws} from it)"
        )
    if isinstance(student, int):
        raise VariantError(
            f"the student id is written as the number {str(student)[:70]}: put it in quotes, "
            f"student: \"YOUR_ID\", so that it is read as written (a number loses leading zeros)"
        )
    if not isinstance(student, str) or not STUDENT_PATTERN.match(student):
        raise VariantError(
            f"student id {str(student)[:70]!r} must be 1-64 letters, digits or ._@+- "
            "starting with a letter or digit"
        )
    return student


def variant_seed(exercise_id: str, student: str, secret: str) -> int:
    message = f"{exercise_id}\0{student}".encode("utf-8")
    digest = hmac.new(secret.encode("utf-8"), message, hashlib.sha256).digest()
    return int.from_bytes(digest, "big")


@dataclass(frozen=True)
class Variant:
    """One student's corpus and words, and the steps the reference takes on them."""

    student: str
    corpus: dict[str, int]
    words: tuple[str, ...]
    num_merges: int
    pair_counts_step: int
    tie_step: int
    steps: tuple[Step, ...]

    @property
    def merges(self) -> list[tuple[str, str]]:
        return [step.pair for step in self.steps]


def decided_tie(step: Step, rule: str) -> bool:
    """Whether pairs tie for the top count at ``step`` and some other rule picks differently."""
    if len(step.tied) < 2:
        return False
    picks = {best_pair(step.pair_counts, other) for other in TIE_BREAKS}
    return len(picks) > 1 and step.pair == best_pair(step.pair_counts, rule)


def first_tie(steps: list[Step]) -> Optional[int]:
    """The number of the first step where pairs tie for the top count, or None."""
    return next((step.number for step in steps if len(step.tied) > 1), None)


WordChooser = Callable[[random.Random, dict, list[Step]], Optional[tuple[str, ...]]]
"""Picks a variant's words to tokenize from its corpus and steps, or None to draw again."""


def pool_words(exercise: Exercise) -> WordChooser:
    """Words from ``encode_pool``, among those some learned merge applies to when there are
    enough of them."""
    settings = exercise.answers
    assert settings is not None
    pool = sorted(set(settings.encode_pool))
    marker = exercise.conventions.end_of_word

    def choose(rng: random.Random, corpus: dict, steps: list[Step]) -> Optional[tuple[str, ...]]:
        merges = [step.pair for step in steps]
        merged = [word for word in pool
                  if len(encode(word, merges, end_of_word=marker)) < len(segment(word, marker))]
        candidates = merged if len(merged) >= settings.encode_words else pool
        return tuple(rng.sample(candidates, settings.encode_words))

    return choose


def draw_variant(
    exercise: Exercise,
    student: str,
    secret: str,
    *,
    choose_words: Optional[WordChooser] = None,
    accept: Optional[Callable[[Variant], bool]] = None,
    prefilter: Optional[Callable[[dict, list[Step]], bool]] = None,
) -> Variant:
    """The variant of ``student`` under ``secret``; :class:`VariantError` if there is none.

    ``choose_words`` picks the words to tokenize (default :func:`pool_words`), ``accept``
    adds a requirement of its own, and ``prefilter`` a cheaper one on the corpus and steps
    alone, checked before words are chosen; all three are deterministic given the seeded generator, so
    callers passing the same ones get the same variant.
    """
    settings = exercise.answers
    if settings is None:
        raise VariantError(f"exercise {exercise.id!r} has no answers settings")
    check_student(student)
    conventions = exercise.conventions
    choose = choose_words or pool_words(exercise)
    rng = random.Random(variant_seed(exercise.id, student, secret))
    pool = sorted(set(settings.word_pool))
    for _ in range(MAX_DRAWS):
        chosen = rng.sample(pool, settings.corpus_words)
        corpus = {word: rng.randint(1, settings.max_count) for word in chosen}
        steps = list(train_steps(corpus, settings.num_merges, tie_break=conventions.tie_break,
                                 end_of_word=conventions.end_of_word))
        tie = first_tie(steps)
        if len(steps) < settings.num_merges or tie is None:
            continue
        if not decided_tie(steps[tie - 1], conventions.tie_break):
            continue
        if prefilter is not None and not prefilter(corpus, steps):
            continue
        words = choose(rng, corpus, steps)
        if words is None:
            continue
        variant = Variant(student, corpus, words, settings.num_merges, settings.pair_counts_step,
                          tie, tuple(steps))
        if accept is None or accept(variant):
            return variant
    raise VariantError(
        f"no variant of {exercise.id!r} in {MAX_DRAWS} draws has {settings.num_merges} merges "
        "with a tie the rule decides and meets the exercise's requirements: widen word_pool or "
        "max_count, or change num_merges"
    )
