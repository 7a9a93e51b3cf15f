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

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Optional

from grader.families.api import Exercise, VariantError, check_student, variant_seed
from reference import encode
from reference.corpus import segment
from reference.plain import Step, train_steps
from reference.tie_breaks import FIRST_SEEN, TIE_BREAKS, best_pair

MAX_DRAWS = 5000


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
    index: int = 0
    """Which of the student's own variants this is, in the order their generator meets them."""

    @property
    def merges(self) -> list[tuple[str, str]]:
        return [step.pair for step in self.steps]


def decided_tie(step: Step, rule: str) -> bool:
    """Whether pairs tie for the top count at ``step`` and some other rule picks differently."""
    if len(step.tied) < 2:
        return False
    top = top_pairs(step)
    picks = {best_pair(top, other) for other in TIE_BREAKS}
    return len(picks) > 1 and step.pair == best_pair(top, rule)


def top_pairs(step: Step) -> dict[tuple[str, str], int]:
    """The pairs with the top count at ``step``, in first-seen order: every rule picks among
    them as among all of the step's pairs, and faster."""
    return {pair: count for pair, count in step.pair_counts.items() if count == step.count}


def first_tie(steps: list[Step]) -> Optional[int]:
    """The number of the first step where pairs tie for the top count, or None."""
    return next((step.number for step in steps if len(step.tied) > 1), None)


CorpusCheck = Callable[[dict, list[Step]], bool]
"""A requirement on a drawn corpus and the exercise's steps on it."""


@dataclass(frozen=True)
class Prefilter:
    """Cheap requirements on a draw's corpus and steps, checked before its words are chosen.

    ``any_order`` is a requirement whose verdict stays the same whatever the order of the
    corpus's words: a corpus it rejects (or the exercise's own requirements reject, when its
    tie rule does not read that order either) is kept in ``rejected`` by its sorted words and
    counts, and a later draw of it, by any student, is passed over without training on it.
    ``in_order`` is the rest (a rule that reads the order, such as first-seen).
    """

    any_order: CorpusCheck
    in_order: Optional[CorpusCheck] = None
    rejected: set[str] = field(default_factory=set)

    def __call__(self, corpus: dict, steps: list[Step]) -> bool:
        return self.any_order(corpus, steps) and (self.in_order is None
                                                   or self.in_order(corpus, steps))


REJECTED_KEPT = 500_000
"""The most rejected corpora a :class:`Prefilter` keeps (a whole corpus space is fewer)."""


def corpus_key(corpus: dict) -> str:
    """The corpus's words and counts, in sorted order: equal for the same corpus in any order."""
    return "\n".join(f"{word}:{count}" for word, count in sorted(corpus.items()))


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
    prefilter: Optional[Prefilter] = None,
    index: int = 0,
) -> Variant:
    """The variant of ``student`` under ``secret``; :class:`VariantError` if there is none.

    ``choose_words`` picks the words to tokenize (default :func:`pool_words`), ``accept``
    adds a requirement of its own, and ``prefilter`` cheaper ones on the corpus and steps
    alone, checked before words are chosen (:class:`Prefilter`); all three are deterministic given the seeded generator, so
    callers passing the same ones get the same variant. ``index`` picks among the variants
    the student's own generator meets in turn (:func:`variant_stream`): 0 is their first, the
    one every student gets without a roster.
    """
    stream = variant_stream(exercise, student, secret, choose_words=choose_words,
                            accept=accept, prefilter=prefilter)
    for number, variant in enumerate(stream):
        if number == index:
            return variant
    raise AssertionError("a variant stream ends only by raising VariantError")


def variant_stream(
    exercise: Exercise,
    student: str,
    secret: str,
    *,
    choose_words: Optional[WordChooser] = None,
    accept: Optional[Callable[[Variant], bool]] = None,
    prefilter: Optional[Prefilter] = None,
) -> Iterator[Variant]:
    """The variants of ``student`` under ``secret``, in the order their seeded generator meets
    them; :class:`VariantError` once ``MAX_DRAWS`` draws in a row meet none."""
    settings = exercise.answers
    if settings is None:
        raise VariantError(f"exercise {exercise.id!r} has no answers settings")
    check_student(student)
    conventions = exercise.conventions
    choose = choose_words or pool_words(exercise)
    rng = random.Random(variant_seed(exercise.id, student, secret))
    pool = sorted(set(settings.word_pool))
    # Training reads the order of the corpus's words only under first-seen: otherwise a
    # corpus rejected in one order is rejected in every order (decided_tie asks first-seen
    # too, but with two tied pairs the smallest and the largest already differ).
    remembered = (prefilter.rejected if prefilter is not None
                  and conventions.tie_break != FIRST_SEEN else None)
    draws = index = 0
    while draws < MAX_DRAWS:
        draws += 1
        chosen = rng.sample(pool, settings.corpus_words)
        corpus = {word: rng.randint(1, settings.max_count) for word in chosen}
        key = corpus_key(corpus) if remembered is not None else ""
        if remembered is not None and key in remembered:
            continue
        steps = list(train_steps(corpus, settings.num_merges, tie_break=conventions.tie_break,
                                 end_of_word=conventions.end_of_word))
        tie = first_tie(steps)
        if (len(steps) < settings.num_merges or tie is None
                or not decided_tie(steps[tie - 1], conventions.tie_break)
                or (prefilter is not None and not prefilter.any_order(corpus, steps))):
            if remembered is not None and len(remembered) < REJECTED_KEPT:
                remembered.add(key)
            continue
        if prefilter is not None and prefilter.in_order is not None and not prefilter.in_order(
                corpus, steps):
            continue
        words = choose(rng, corpus, steps)
        if words is None:
            continue
        variant = Variant(student, corpus, words, settings.num_merges, settings.pair_counts_step,
                          tie, tuple(steps), index)
        if accept is None or accept(variant):
            draws = 0
            index += 1
            yield variant
    raise VariantError(
        f"no variant of {exercise.id!r} in {MAX_DRAWS} draws has {settings.num_merges} merges "
        "with a tie the rule decides and meets the exercise's requirements: widen word_pool or "
        "max_count, or change num_merges"
    )
