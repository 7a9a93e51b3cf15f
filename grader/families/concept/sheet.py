"""Rendering a student's concept sheet from ``sheet.yaml.j2`` (here): their answers file.

The file is YAML whose comments give the instructions, each item's prompt and the options in
the student's own order, and whose keys are the items with empty answers to fill in. It
carries the ``# exercise: ID`` header the grader reads and the student id the order is
recomputed from. Nothing in it reveals an answer.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from grader.families.concept.spec import ChoiceItem, ConceptExercise, RuleOutItem
from grader.families.concept.variants import Sheet
from grader.families.api import jinja_environment, yaml_quoted

TEMPLATE = "sheet.yaml.j2"
WIDTH = 88


def wrapped(text: str, width: int = WIDTH) -> list[str]:
    """``text`` in lines of at most ``width``, its own line breaks kept."""
    lines: list[str] = []
    for paragraph in str(text).strip().splitlines():
        lines.extend(textwrap.wrap(paragraph, width) or [""])
    return lines


def cell(value: object) -> str:
    """A shown table cell: numbers with thousands separators."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def render_sheet(exercise: ConceptExercise, sheet: Sheet) -> str:
    """The answers file of the student whose order is ``sheet``."""
    environment = jinja_environment(trim_blocks=True, folder=Path(__file__).resolve().parent)
    environment.filters.update(quoted=yaml_quoted, wrapped=wrapped, cell=cell)
    asked = [item_id for milestone in exercise.milestones for item_id in milestone.items]
    items = [exercise.item(item_id) for item_id in asked]
    option_text = {item.id: {option.id: option.text for option in item.options}
                   for item in items if isinstance(item, (ChoiceItem, RuleOutItem))}
    return environment.get_template(TEMPLATE).render(
        exercise=exercise, sheet=sheet, items=items, option_text=option_text)
