"""What wrong WordPiece merges show when no catalogued mistake explains them: rounded scores.

The catalogue's ``wordpiece-rounded-scores`` entry compares scores rounded to three decimals
(as printed slides do). Code that rounds to another number of decimals makes other scores
tie, so the entry matches it only by chance. :func:`rounding_signals` trains with scores
rounded to each number of decimals in :data:`DIGITS` on every failing input, and when
rounding to ``k`` decimals gives exactly the student's merges on each of them, names the
mistake with that ``k`` (or the few that all do), computed from the run, never assumed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from grader.families.api import Observation
from grader.families.wordpiece.near_ties import rounded_merges

MISTAKE_ID = "wordpiece-rounded-scores"
DIGITS = range(1, 13)
"""The numbers of decimals tried (beyond them, rounding a score of this size changes nothing)."""
ROLE = "train_wordpiece"


def rounding_digits(observations: Sequence[Observation], options: Mapping[str, Any]) -> list[int]:
    """The numbers of decimals ``k`` such that comparing scores rounded to ``k`` decimals
    gives the student's merges on every one of ``observations`` (none when there are none)."""
    if not observations:
        return []
    found = set(DIGITS)
    for observation in observations:
        corpus, num_merges = observation.inputs.get("corpus"), observation.inputs.get("num_merges")
        try:
            actual = [(a, b) for a, b in observation.actual]
        except (TypeError, ValueError):
            return []
        found = {digits for digits in found
                 if rounded_merges(corpus, num_merges, digits, options["tie_break"],
                                   options["end_of_word"]) == actual}
        if not found:
            return []
    return sorted(found)


def rounding_signals(role: str, observations: Sequence[Observation],
                     options: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(id, title, message)`` when scores rounded to some number of decimals give the
    student's merges on every failing input (see :func:`rounding_digits`); none otherwise."""
    if role != ROLE:
        return []
    digits = rounding_digits(observations, options)
    if not digits:
        return []
    shown = (f"{digits[0]} decimals" if len(digits) == 1
             else f"{digits[0]} to {digits[-1]} decimals (each gives the same merges here)")
    places = digits[0]
    count = len({repr(o.inputs) for o in observations})
    where = "your failing input" if count == 1 else f"each of your {count} failing inputs"
    return [(MISTAKE_ID, f"Scores compared rounded to {shown.split(' (')[0]}", (
        f"On {where}, your merges are exactly those of a trainer that compares "
        f"the scores rounded to {shown}, as round(count_ab / (count_a * count_b), {places}) "
        "does: two different scores then look equal, and the tie rule picks the wrong pair. "
        "Compare exactly: use fractions.Fraction(count_ab, count_a * count_b), or compare "
        "count_ab * count_c * count_d with count_cd * count_a * count_b in integers."))]
