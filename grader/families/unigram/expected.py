"""Expected values of the Unigram roles, computed with :mod:`reference.unigram`, and how a
student's answer is compared with them (floats within the exercise's tolerance).

Every role's input is a tuple in the order of its arguments (``ARGUMENTS``); answers are
remembered by input, as the judges, the properties and the evidence of work ask for the same.
"""

from __future__ import annotations

import math
from typing import Any

from reference import unigram

SEGMENT, LIKELIHOOD, EM_STEP, PRUNE = "segment", "log_likelihood", "em_step", "prune"
ARGUMENTS = {
    SEGMENT: ("text", "pieces"),
    LIKELIHOOD: ("text", "pieces"),
    EM_STEP: ("corpus", "pieces"),
    PRUNE: ("corpus", "pieces", "keep"),
}
"""Each role's arguments, in order: its inputs as a tuple, and its mistakes' keywords."""
REFERENCE = {
    SEGMENT: unigram.segment,
    LIKELIHOOD: unigram.log_likelihood,
    EM_STEP: unigram.em_step,
    PRUNE: unigram.prune,
}
DEFAULT_TOLERANCE = 1e-6

_REMEMBERED: dict[str, Any] = {}


def expected(role: str, inputs: tuple) -> Any:
    """The reference's answer of ``role`` on ``inputs`` (remembered; do not mutate it)."""
    key = repr((role, inputs))
    if key not in _REMEMBERED:
        _REMEMBERED[key] = REFERENCE[role](*inputs)
    return _REMEMBERED[key]


def keywords(role: str, inputs: tuple) -> dict[str, Any]:
    """``inputs`` as the keyword arguments of the role's reference and mistakes."""
    return dict(zip(ARGUMENTS[role], inputs))


def tolerance(exercise: Any) -> float:
    return float(exercise.conventions.tolerance)


def close(left: float, right: float, within: float = DEFAULT_TOLERANCE) -> bool:
    return math.isclose(left, right, rel_tol=within, abs_tol=within)


def same(role: str, want: Any, got: Any, within: float = DEFAULT_TOLERANCE) -> bool:
    """Whether the answer ``got`` equals ``want``: pieces exactly, floats within ``within``."""
    if role == SEGMENT:
        return got == want
    if role == LIKELIHOOD:
        return isinstance(got, float) and close(want, got, within)
    if not isinstance(got, dict) or set(got) != set(want):
        return False
    return all(close(want[piece], got[piece], within) for piece in want)


def right(exercise: Any, role: str, inputs: tuple, got: Any) -> bool:
    """Whether ``got`` is the right answer of ``role`` on ``inputs`` in ``exercise``."""
    return same(role, expected(role, inputs), got, tolerance(exercise))
