"""The shapes of the Unigram roles' answers: a list of pieces, a float, a piece -> float dict."""

from __future__ import annotations

from typing import Any

from grader.families.api import ShapeError, describe, finite_float


def pieces_list(exercise: Any, value: Any, function: str) -> list[str]:
    """``segment``'s answer: a list of str pieces."""
    if type(value) is not list or not all(type(piece) is str for piece in value):
        raise ShapeError(f"{function} must return a list of str pieces; it returned "
                         f"{describe(value)}")
    return list(value)


def number(exercise: Any, value: Any, function: str) -> float:
    """``log_likelihood``'s answer: a finite float (an int is taken as one)."""
    number = finite_float(value)
    if number is None:
        raise ShapeError(f"{function} must return a finite float; it returned {describe(value)}")
    return number


def scores(exercise: Any, value: Any, function: str) -> dict[str, float]:
    """``em_step``'s and ``prune``'s answer: a dict piece -> finite float log-probability."""
    expected = f"{function} must return a dict piece (str) -> log-probability (float)"
    if type(value) is not dict:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    scored = {}
    for piece, score in value.items():
        if type(piece) is not str:
            raise ShapeError(f"{expected}; it has the key {describe(piece)}")
        scored[piece] = finite_float(score)
        if scored[piece] is None:
            raise ShapeError(f"{expected}; {piece!r} maps to {describe(score)}")
    return scored
