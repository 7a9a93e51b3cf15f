"""The shape of a ``first_divergence`` answer: None, or a step and two pairs."""

from __future__ import annotations

from typing import Any

from grader.families.api import ShapeError, describe, is_str_pair


def divergence(value: Any, function: str) -> Any:
    """``None`` or ``(step, bpe_pair, wordpiece_pair)``: an int >= 1 and two (str, str) pairs."""
    expected = (f"{function} must return None or a tuple (step, bpe_pair, wordpiece_pair): "
                "an int step counted from 1 and two (str, str) pairs")
    if value is None:
        return None
    if type(value) not in (tuple, list) or len(value) != 3:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    step, first, second = value
    if type(step) is not int or step < 0:
        raise ShapeError(f"{expected}; the step is {describe(step)}")
    for name, pair in (("bpe_pair", first), ("wordpiece_pair", second)):
        if not is_str_pair(pair, True):
            raise ShapeError(f"{expected}; {name} is {describe(pair)}")
    return (step, (first[0], first[1]), (second[0], second[1]))
