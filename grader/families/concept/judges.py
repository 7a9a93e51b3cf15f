"""The ``answers`` check of a concept sheet: each item of the milestone, with partial credit.

An item's points are split into the parts it has: a choice or short answer is one part; a
rule-out has its survivor (half) and one strike per wrong option (the other half, split);
a match has one part per term; a table one per refilled cell. A wrong option the lesson
explains ("why it tempts people") is named as a diagnosis. When the exercise explains its
answers (``answers.explain``), a wrong part's message gives the right answer and the lesson's
reason; otherwise it says only where to look again.
"""

from __future__ import annotations

import re
from typing import Any

from grader.families.concept.answers import normal_text, read_label, read_letter, read_number
from grader.families.concept.spec import (ChoiceItem, ConceptExercise, ItemBase, MatchItem,
                                          Option, RuleOutItem, ShortItem, TableItem)
from grader.families.concept.variants import Sheet, descriptions
from grader.families.api import (
    CheckContext,
    CheckResult,
    Diagnosis,
    check_points,
    graded,
    split_evenly,
)

CHECK_ID = "answers"
TITLE = "Answers"
SHOWN = 70


def run(context: CheckContext) -> list[CheckResult]:
    """The ``answers`` check: each item of the milestone, its points split evenly."""
    opened = context.calls
    exercise: ConceptExercise = opened.exercise
    items = [exercise.item(item_id) for item_id in context.milestone.items]
    shares = check_points(context.points, [1.0] * len(items))
    results: list[CheckResult] = []
    for item, share in zip(items, shares):
        judge = _JUDGES[type(item)]
        results.extend(judge(exercise, item, opened.sheet, opened.data.get(item.key), share))
    return results


# --------------------------------------------------------------------------- wording


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _prose(text: str) -> str:
    """An author's text on one line: a YAML block's line breaks are not the author's."""
    return " ".join(str(text).split())


def _brief(text: str) -> str:
    """An option or description quoted inside a sentence: on one line, no closing full stop."""
    return _prose(text).rstrip(".")


def _look_again(exercise: ConceptExercise, item: ItemBase, right: str, why: bool = True) -> str:
    """What a wrong part's message ends with: the answer and (``why``) the lesson's reason, or
    where to look again."""
    if exercise.answers.explain:
        return f" The answer is {right}." + (f" Why: {_prose(item.why)}" if why else "")
    return f" Look again at {item.source}." if item.source else ""


def _option(item: ChoiceItem | RuleOutItem, option_id: str) -> Option:
    return next(option for option in item.options if option.id == option_id)


def _tempted(item: ItemBase, option: Option, letter: str) -> list[Diagnosis]:
    if not option.tempts:
        return []
    return [Diagnosis(id=f"{item.id}:{option.id}", title=f"Why {letter} tempts people",
                      message=_prose(option.tempts))]


def _letters(sheet: Sheet, item: ItemBase) -> str:
    labels = list(sheet.labels[item.id])
    return f"{labels[0]}-{labels[-1]}"


# --------------------------------------------------------------------------- per item type


def judge_choice(exercise: ConceptExercise, item: ChoiceItem, sheet: Sheet, given: Any,
                 share: float) -> list[CheckResult]:
    labels = sheet.labels[item.id]
    right = sheet.label_of(item.id, item.answer)
    letter = read_letter(given)
    check_id, title = f"answers:{item.id}", item.id
    answer = f"{right} ({_brief(_option(item, item.answer).text)})"
    if letter not in labels:
        return [graded(check_id, title, share, False, message=(
            f"Write one letter of your sheet's options ({_letters(sheet, item)}); got "
            f"{_show(given)}."))]
    if letter == right:
        return [graded(check_id, title, share, True, message=f"Right. {_prose(item.why)}")]
    chosen = _option(item, labels[letter])
    return [graded(check_id, title, share, False,
                   message=f"{letter} ({_brief(chosen.text)}) is not it."
                   + _look_again(exercise, item, answer),
                   diagnoses=_tempted(item, chosen, letter))]


def _struck(value: Any) -> list[str | None]:
    if isinstance(value, str):
        value = [part for part in re.split(r"[\s,;]+", value) if part]
    if not isinstance(value, list):
        return []
    return [read_letter(entry) for entry in value]


def judge_rule_out(exercise: ConceptExercise, item: RuleOutItem, sheet: Sheet, given: Any,
                   share: float) -> list[CheckResult]:
    labels = sheet.labels[item.id]
    right = sheet.label_of(item.id, item.answer)
    wrong = [label for label in labels if label != right]
    survivor_share, strikes_share = share / 2, share - share / 2
    answer = f"{right} ({_brief(_option(item, item.answer).text)})"
    data = given if isinstance(given, dict) else {}
    struck = _struck(data.get("struck"))
    survivor = read_letter(data.get("survivor"))
    struck_right = right in struck
    results = []
    check_id = f"answers:{item.id}:survivor"
    title = f"{item.id}: the survivor"
    if not isinstance(given, dict):
        results.append(graded(check_id, title, survivor_share, False, message=(
            f"{item.key} must be a mapping with struck: (the letters you strike) and survivor: "
            f"(the one left); got {_show(given)}.")))
    elif survivor == right and not struck_right:
        results.append(graded(check_id, title, survivor_share, True,
                              message=f"Right: {right} survives. {_prose(item.why)}"))
    elif survivor == right:
        results.append(graded(check_id, title, survivor_share, False, message=(
            f"{right} survives, yet you struck it too: strike only what you can rule out.")))
    elif survivor in labels:
        chosen = _option(item, labels[survivor])
        results.append(graded(check_id, title, survivor_share, False,
                              message=f"{survivor} ({_brief(chosen.text)}) does not survive."
                              + _look_again(exercise, item, answer),
                              diagnoses=_tempted(item, chosen, survivor)))
    else:
        results.append(graded(check_id, title, survivor_share, False, message=(
            f"survivor: must be one letter of your sheet's options ({_letters(sheet, item)}); "
            f"got {_show(data.get('survivor'))}.")))
    # Strike parts are numbered, not lettered: naming which letters are wrong would give away
    # the survivor to anyone reading the report of an untouched sheet.
    ruled_out = [letter for letter in wrong if letter in struck]
    standing = [letter for letter in wrong if letter not in struck]
    for number, part in enumerate(split_evenly(strikes_share, len(wrong)), 1):
        check_id, title = f"answers:{item.id}:strike-{number}", f"{item.id}: strike {number}"
        if struck_right:
            results.append(graded(check_id, title, part, False, message=(
                f"You struck {right} as well, the option that survives: a strike earns its "
                "part only beside a survivor left standing.")))
        elif number <= len(ruled_out):
            results.append(graded(check_id, title, part, True,
                                  message=f"{ruled_out[number - 1]} is ruled out."))
        elif exercise.answers.explain and (struck or survivor is not None):
            letter = standing[number - len(ruled_out) - 1]
            text = _brief(_option(item, labels[letter]).text)
            results.append(graded(check_id, title, part, False, message=(
                f"{letter} ({text}) can be ruled out too: strike it.")))
        else:  # an untouched item learns nothing about which options are wrong
            results.append(graded(check_id, title, part, False, message=(
                "Another option can be ruled out: find what rules it out, and strike it.")))
    return results


def judge_match(exercise: ConceptExercise, item: MatchItem, sheet: Sheet, given: Any,
                share: float) -> list[CheckResult]:
    labels = sheet.labels[item.id]
    one_to_one = len(descriptions(item)) == len(item.pairs)
    data = given if isinstance(given, dict) else {}
    read = {term: read_label(data.get(term)) for term in item.pairs}
    used = [label for label in read.values() if label is not None]
    results = []
    explained = False  # the lesson's reason once per item, with its first wrong part
    for (term, text), part in zip(item.pairs.items(), split_evenly(share, len(item.pairs))):
        check_id, title = f"answers:{item.id}:{normal_text(term)[:24]}", f"{item.id}: {term}"
        right = sheet.label_of(item.id, text)
        label = read[term]
        answer = f"{right} ({_brief(text)})"
        if not isinstance(given, dict) or label not in labels:
            results.append(graded(check_id, title, part, False, message=(
                f"Give {term!r} the number of its description (d1-d{len(labels)}); got "
                f"{_show(data.get(term) if isinstance(given, dict) else given)}.")))
        elif one_to_one and used.count(label) > 1:
            results.append(graded(check_id, title, part, False, message=(
                f"{label} is given to more than one term, but each description goes with "
                "exactly one.") + _look_again(exercise, item, answer, why=not explained)))
            explained = True
        elif label == right:
            results.append(graded(check_id, title, part, True, message="correct"))
        else:
            results.append(graded(check_id, title, part, False, message=(
                f"{label} ({_brief(labels[label])}) is not what {term!r} does."
                + _look_again(exercise, item, answer, why=not explained))))
            explained = True
    return results


def judge_short(exercise: ConceptExercise, item: ShortItem, sheet: Sheet, given: Any,
                share: float) -> list[CheckResult]:
    check_id, title = f"answers:{item.id}", item.id
    written = normal_text(given) if isinstance(given, (str, int)) else ""
    if not written:
        return [graded(check_id, title, share, False, message=(
            f"Write your answer in {item.key}: (a word or two); got {_show(given)}."))]
    if written in {normal_text(accepted) for accepted in item.accept}:
        return [graded(check_id, title, share, True, message=f"Right. {_prose(item.why)}")]
    diagnoses = [Diagnosis(id=f"{item.id}:{number}", title="A known wrong answer",
                           message=_prose(wrong.hint))
                 for number, wrong in enumerate(item.known_wrong, 1)
                 if normal_text(wrong.answer) == written]
    return [graded(check_id, title, share, False,
                   message=f"{_show(given)} is not it." + _look_again(exercise, item, item.accept[0]),
                   diagnoses=diagnoses)]


def judge_table(exercise: ConceptExercise, item: TableItem, sheet: Sheet, given: Any,
                share: float) -> list[CheckResult]:
    data = given if isinstance(given, dict) else {}
    cells = [(row, index, column) for row in item.rows for index, column in enumerate(item.refill)]
    results = []
    explained = False
    for (row, index, column), part in zip(cells, split_evenly(share, len(cells))):
        right = item.rows[row][len(item.shown) + index]
        entry = data.get(row)
        value = entry.get(column.key) if isinstance(entry, dict) else None
        number = read_number(value)
        check_id = f"answers:{item.id}:{normal_text(row)[:24]}:{column.key}"
        title = f"{item.id}: {row}, {column.name}"
        if number is None:
            results.append(graded(check_id, title, part, False, message=(
                f"Write a number for {row!r}, {column.key}: (e.g. 1200 or 1.5); got "
                f"{_show(value)}.")))
        elif _close(number, float(right), column.tolerance):
            results.append(graded(check_id, title, part, True, message="correct"))
        else:
            within = f" (within {column.tolerance:.0%})" if column.tolerance else ""
            results.append(graded(check_id, title, part, False,
                                  message=f"{_show(value)} is not the {column.name}{within}."
                                  + _look_again(exercise, item, f"{right:,}", why=not explained)))
            explained = True
    return results


def _close(value: float, right: float, tolerance: float) -> bool:
    if tolerance == 0:
        return value == right
    return abs(value - right) <= tolerance * abs(right)


_JUDGES = {ChoiceItem: judge_choice, RuleOutItem: judge_rule_out, MatchItem: judge_match,
           ShortItem: judge_short, TableItem: judge_table}
