"""The known wrong answers of a concept sheet, read off its items.

Every wrong option of a choice item is a mistake (named in feedback when the lesson says why
it tempts people); a rule-out item's wrong options are mistakes as the survivor picked (the
right one then struck among the others); a match item's first two terms with different
descriptions, swapped; a short item's known wrong answers; a table's refilled cell written ten
times too large (a slipped digit). Each mistake is an answer to one item on a given sheet,
which the audit writes into an otherwise right file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from grader.families.concept.answers import expected_answer
from grader.families.concept.spec import (ChoiceItem, ConceptExercise, ItemBase, MatchItem,
                                          RuleOutItem, ShortItem, TableItem)
from grader.families.concept.variants import Sheet


@dataclass(frozen=True)
class SheetMistake:
    """A wrong answer to ``item``; ``named`` when feedback names it as a diagnosis."""

    id: str
    title: str
    item: str
    answer: Callable[[Sheet], Any]
    named: bool


def catalogue(exercise: ConceptExercise) -> list[SheetMistake]:
    """Every known wrong answer of ``exercise``'s items."""
    found: list[SheetMistake] = []
    for item in exercise.items:
        found.extend(_of(item))
    return found


def _of(item: ItemBase) -> list[SheetMistake]:
    if isinstance(item, ChoiceItem):
        return [SheetMistake(f"{item.id}:{option.id}", f"{item.id}: picks {option.id}", item.id,
                             lambda sheet, o=option.id: sheet.label_of(item.id, o), bool(option.tempts))
                for option in item.options if option.id != item.answer]
    if isinstance(item, RuleOutItem):
        return [SheetMistake(f"{item.id}:{option.id}", f"{item.id}: {option.id} survives", item.id,
                             lambda sheet, o=option.id: _survives(item, sheet, o), bool(option.tempts))
                for option in item.options if option.id != item.answer]
    if isinstance(item, MatchItem):
        return [SheetMistake(f"{item.id}:swapped", f"{item.id}: two descriptions swapped", item.id,
                             lambda sheet: _swapped(item, sheet), False)]
    if isinstance(item, ShortItem):
        return [SheetMistake(f"{item.id}:{index}", f"{item.id}: answers {wrong.answer!r}", item.id,
                             lambda sheet, w=wrong.answer: w, True)
                for index, wrong in enumerate(item.known_wrong, 1)]
    if isinstance(item, TableItem):
        return [SheetMistake(f"{item.id}:{column.key}-slip", f"{item.id}: a {column.name} cell "
                             "ten times too large", item.id,
                             lambda sheet, k=column.key: _slipped(item, sheet, k), False)
                for column in item.refill]
    return []


def _survives(item: RuleOutItem, sheet: Sheet, option_id: str) -> dict[str, Any]:
    survivor = sheet.label_of(item.id, option_id)
    return {"struck": [label for label in sheet.labels[item.id] if label != survivor],
            "survivor": survivor}


def _swapped(item: MatchItem, sheet: Sheet) -> dict[str, str]:
    answer = dict(expected_answer(item, sheet))
    terms = list(answer)
    other = next(term for term in terms[1:] if answer[term] != answer[terms[0]])
    answer[terms[0]], answer[other] = answer[other], answer[terms[0]]
    return answer


def _slipped(item: TableItem, sheet: Sheet, key: str) -> dict[str, dict[str, Any]]:
    answer = {row: dict(cells) for row, cells in expected_answer(item, sheet).items()}
    first = next(iter(answer))
    answer[first][key] = answer[first][key] * 10
    return answer
