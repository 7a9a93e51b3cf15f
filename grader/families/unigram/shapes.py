"""The shapes of the Unigram roles' answers: a list of pieces, a float, a piece -> float dict."""

from __future__ import annotations

import math
from typing import Any

from grader.families.api import ShapeError, describe


def pieces_list(exercise: Any, value: Any, function: str) -> list[str]:
    """``segment``'s answer: a list of str pieces."""
    if type(value) is not list or not all(type(piece) is str for piece in value):
        raise ShapeError(f"{function} must return a list of str pieces; it returned "
                         f"{describe(value)}")
    return list(value)


def number(exercise: Any, value: Any, function: str) -> float:
    """``log_likelihood``'s answer: a finite float (an int is taken as one)."""
    if type(value) not in (int, float) or not math.isfinite(value):
        raise ShapeError(f"{function} must return a finite float; it returned {describe(value)}")
    return float(value)


def scores(exercise: Any, value: Any, function: str) -> dict[str, float]:
    """``em_step``'s and ``prune``'s answer: a dict piece -> finite float log-probability."""
    expected = f"{function} must return a dict piece (str) -> log-probability (float)"
    if type(value) is not dict:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    for piece, score in value.items():
        if type(piece) is not str:
            raise ShapeError(f"{expected}; it has the key {describe(piece)}")
        if type(score) not in (int, float) or not math.isfinite(score):
            raise ShapeError(f"{expected}; {piece!r} maps to {describe(score)}")
    return {piece: float(score) for piece, score in value.items()}
