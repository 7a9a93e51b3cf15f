"""The semantic checks of a concept sheet: items that can be answered and graded.

A concept exercise runs no code and has no cases; each milestone names items, each item is
asked once, a choice or rule-out's answer is one of its options, option ids and texts are
distinct, a table's rows have one cell per column, and its refilled cells are numbers.
"""

from __future__ import annotations

from collections.abc import Iterator

from grader.families.concept.answers import normal_text
from grader.families.concept.spec import (ChoiceItem, ConceptExercise, MatchItem, RuleOutItem,
                                          TableItem)
from grader.families.api import Loc


def spec_problems(exercise: ConceptExercise) -> Iterator[tuple[Loc, str]]:
    if exercise.roles():
        yield ("functions",), "a concept sheet runs no code: leave functions out"
    if exercise.cases:
        yield ("cases",), "a concept sheet has items, not cases: leave cases out"
    yield from _item_problems(exercise)
    known = {item.id for item in exercise.items}
    asked: dict[str, int] = {}
    for index, milestone in enumerate(exercise.milestones):
        loc: Loc = ("milestones", index)
        if milestone.function is not None:
            yield loc + ("function",), "a concept milestone grades items, not a function"
        if not milestone.items:
            yield loc + ("items",), "name the items this milestone grades"
        for check_index, check in enumerate(milestone.checks):
            if check.kind != "answers":
                yield loc + ("checks", check_index, "kind"), (
                    f"{check.kind!r} checks run code; a concept milestone has one check: answers")
        for item_index, item_id in enumerate(milestone.items):
            if item_id not in known:
                yield loc + ("items", item_index), (
                    f"no item {item_id!r}; the items are {', '.join(sorted(known))}")
            elif item_id in asked:
                yield loc + ("items", item_index), (
                    f"item {item_id!r} is already graded by milestones[{asked[item_id]}]")
            asked[item_id] = index
    for index, item in enumerate(exercise.items):
        if item.id not in asked:
            yield ("items", index, "id"), f"item {item.id!r} is in no milestone: no one is asked it"


def _item_problems(exercise: ConceptExercise) -> Iterator[tuple[Loc, str]]:
    seen: dict[str, int] = {}
    for index, item in enumerate(exercise.items):
        loc: Loc = ("items", index)
        if item.id in seen:
            yield loc + ("id",), f"item id {item.id!r} is used by items[{seen[item.id]}] too"
        seen[item.id] = index
        if isinstance(item, (ChoiceItem, RuleOutItem)):
            ids = [option.id for option in item.options]
            texts = [option.text.strip() for option in item.options]
            if item.answer not in ids:
                yield loc + ("answer",), f"the answer {item.answer!r} is none of the options' ids"
            if len(set(ids)) < len(ids):
                yield loc + ("options",), "two options have the same id"
            if len(set(texts)) < len(texts):
                yield loc + ("options",), "two options have the same text: students could not tell them apart"
            right = next((o for o in item.options if o.id == item.answer), None)
            if right is not None and right.tempts:
                yield loc + ("answer",), "the right option has tempts: text; tempts explains a wrong one"
        if isinstance(item, MatchItem) and len(set(item.pairs.values())) < 2:
            yield loc + ("pairs",), "every term has the same description: there is nothing to match"
        named = (list(item.pairs) if isinstance(item, MatchItem)
                 else list(item.rows) if isinstance(item, TableItem) else [])
        if len({normal_text(name)[:24] for name in named}) < len(named):
            yield loc + ("pairs" if isinstance(item, MatchItem) else "rows",), (
                "two terms or rows differ only in case, spaces or punctuation: their checks "
                "would share one id")
        if isinstance(item, TableItem):
            width = len(item.shown) + len(item.refill)
            keys = [column.key for column in item.refill]
            if len(set(keys)) < len(keys):
                yield loc + ("refill",), "two refilled columns have the same key"
            for row, cells in item.rows.items():
                if len(cells) != width:
                    yield loc + ("rows", row), (
                        f"{len(cells)} cells; a row has {len(item.shown)} shown and "
                        f"{len(item.refill)} refilled ({width})")
                    continue
                for column, value in zip(item.refill, cells[len(item.shown):]):
                    if isinstance(value, bool) or not isinstance(value, (int, float)):
                        yield loc + ("rows", row), (
                            f"the {column.name} cell {value!r} must be a number: students refill it")
