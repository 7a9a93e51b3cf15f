"""A concept sheet's right answers for one student, and how a written answer is read.

Answers are in the form the answers file uses: a choice is the letter the student's sheet
shows; a rule-out is ``{struck: [letters], survivor: letter}``; a match is ``{term: "dN"}``
with the number of the term's description on the student's sheet; a short answer is text; a
table is ``{row: {column key: number}}``. Reading is lenient where intent is clear: ``b``,
``(B)`` or ``B. (b, c)`` are the letter B, ``2`` is ``d2``, and ``24,576,000`` or ``1.44x``
are numbers.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from grader.families.concept.spec import (ChoiceItem, ConceptExercise, ItemBase, MatchItem,
                                          RuleOutItem, ShortItem, TableItem)
from grader.families.concept.variants import Sheet

_LETTER = re.compile(r"^\s*\(?\s*([A-Za-z])\s*(?:[).:]|\s|$)")
_NUMBER_LABEL = re.compile(r"^\s*[dD]?\s*([0-9]{1,3})\s*$")
_NUMBER = re.compile(r"^[-+]?(?:[0-9]+(?:[.][0-9]*)?|[.][0-9]+)(?:e[-+]?[0-9]+)?$")


def expected_answer(item: ItemBase, sheet: Sheet) -> Any:
    """The right answer to ``item`` on ``sheet``, in the file's form."""
    if isinstance(item, ChoiceItem):
        return sheet.label_of(item.id, item.answer)
    if isinstance(item, RuleOutItem):
        wrong = [option.id for option in item.options if option.id != item.answer]
        return {"struck": sorted(sheet.label_of(item.id, option) for option in wrong),
                "survivor": sheet.label_of(item.id, item.answer)}
    if isinstance(item, MatchItem):
        return {term: sheet.label_of(item.id, text) for term, text in item.pairs.items()}
    if isinstance(item, ShortItem):
        return item.accept[0]
    if isinstance(item, TableItem):
        given = len(item.shown)
        return {row: {column.key: cells[given + index] for index, column in enumerate(item.refill)}
                for row, cells in item.rows.items()}
    raise TypeError(f"no answers for items of type {type(item).__name__}")


def expected_answers(exercise: ConceptExercise, sheet: Sheet) -> dict[str, Any]:
    """Item id -> its right answer on ``sheet``."""
    return {item.id: expected_answer(item, sheet) for item in exercise.items}


def read_letter(value: Any) -> Optional[str]:
    """The option letter ``value`` names, upper case, or None."""
    if isinstance(value, str):
        found = _LETTER.match(value)
        if found:
            return found.group(1).upper()
    return None


def read_label(value: Any) -> Optional[str]:
    """The description number ``value`` names, as ``dN``, or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        found = _NUMBER_LABEL.match(value)
        if found:
            return f"d{int(found.group(1))}"
    return None


def read_number(value: Any) -> Optional[float]:
    """The number ``value`` writes (thousands separators and a trailing x allowed), or None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, str):
        return None
    text = re.sub(r"[\s,_]", "", value).rstrip("x×X")
    if not text or len(text) > 40 or not _NUMBER.match(text.lower()):
        return None
    return float(text)


def normal_text(value: Any) -> str:
    """``value`` without case, spaces, brackets or punctuation, for short answers."""
    return re.sub(r"[\W_]+", "", str(value)).casefold()
