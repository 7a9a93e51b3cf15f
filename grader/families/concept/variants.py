"""Each student's own order of a concept sheet's options and descriptions.

A student's sheet shows every choice and rule-out item's options under letters in an order of
their own, and every match item's descriptions numbered in an order of their own, drawn by a
generator seeded with HMAC-SHA256(course secret, exercise, item and student id) — the same
seeding as the hand exercises' corpora (``grader.families.api.variant_seed``).
A classmate's letters are therefore no answer to anyone else's sheet, and without the secret
nobody can compute another student's order. Orders are drawn again (still deterministically)
while the right option would sit under the letter it has in the lesson, so the deck's own
answer letters are not an answer either.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

from grader.families.api import check_student, variant_seed
from grader.families.concept.spec import ChoiceItem, ConceptExercise, MatchItem, RuleOutItem

MAX_REDRAWS = 8


@dataclass(frozen=True)
class Sheet:
    """One student's letters and numbers: item id -> shown label -> option id (choice and
    rule-out) or description (match)."""

    student: str
    labels: dict[str, dict[str, str]]

    def label_of(self, item_id: str, value: str) -> str:
        """The label this student sees for an option id or description."""
        return next(label for label, shown in self.labels[item_id].items() if shown == value)


def descriptions(item: MatchItem) -> list[str]:
    """A match item's distinct descriptions, in the author's order."""
    return list(dict.fromkeys(item.pairs.values()))


def draw_sheet(exercise: ConceptExercise, student: str, secret: str) -> Sheet:
    """The order of ``student``'s sheet under ``secret`` (``VariantError`` for a bad id)."""
    check_student(student, "the order of your options")
    labels: dict[str, dict[str, str]] = {}
    for item in exercise.items:
        rng = random.Random(variant_seed(f"{exercise.id}/{item.id}", student, secret))
        if isinstance(item, (ChoiceItem, RuleOutItem)):
            ids = [option.id for option in item.options]
            order = _shuffled(rng, ids, keep_off=ids.index(item.answer))
            labels[item.id] = dict(zip(string.ascii_uppercase, order))
        elif isinstance(item, MatchItem):
            order = _shuffled(rng, descriptions(item), keep_off=None)
            labels[item.id] = {f"d{number}": text for number, text in enumerate(order, 1)}
    return Sheet(student, labels)


def _shuffled(rng: random.Random, values: list[str], keep_off: int | None) -> list[str]:
    """``values`` shuffled; with ``keep_off``, redrawn a few times while that value stays at
    its own index."""
    order = list(values)
    for _ in range(MAX_REDRAWS):
        rng.shuffle(order)
        if keep_off is None or order[keep_off] != values[keep_off]:
            break
    return order
