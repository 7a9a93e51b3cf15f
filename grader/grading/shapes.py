"""Strict checks of the shape of what a student's function returned.

Values arrive from the sandbox as plain Python values (exact ``list``/``tuple``/``str``/``int``
/``dict``...) or as markers naming a type the channel refused to carry (and, for a subclass
whose class redefines what its value means or an int too large to use, why). Each family's
shape checks either return the value in canonical form or raise :class:`ShapeError` with a
message that says what was expected and what came back; :func:`describe` writes what came
back, safely and briefly.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from grader.spec.hooks import ShapeError

MAX_SHOWN = 60


def describe(value: Any) -> str:
    """A short, safe description of a value for feedback ("a list ['e', 's']", "a generator")."""
    explanation = getattr(value, "explanation", None)
    if isinstance(explanation, str):  # a value the sandbox did not read, and why
        return explanation
    type_name = getattr(value, "type_name", None)
    if isinstance(type_name, str):
        return f"a {type_name} object"
    name = type(value).__name__
    if value is None:
        return "None"
    if isinstance(value, (list, tuple, dict, str, int, float, bool)):
        text = repr(value)
        if len(text) > MAX_SHOWN:
            text = text[: MAX_SHOWN - 3] + "..."
        return f"a {name} {text}"
    return f"a {name}"


def finite_float(value: Any) -> Optional[float]:
    """``value`` as a float when it is an int or a float and a float holds it finitely; None
    for anything else (an int too large for a float, NaN, an infinity, any other type)."""
    if type(value) is float:
        return value if math.isfinite(value) else None
    if type(value) is int:
        try:
            return float(value)
        except OverflowError:
            return None
    return None


def is_str_pair(item: Any, accept_lists: bool) -> bool:
    kinds = (tuple, list) if accept_lists else (tuple,)
    return type(item) in kinds and len(item) == 2 and all(type(s) is str for s in item)
