"""The shapes of character-BPE answers: merge lists in either merge form, tokens, lengths.

Each check returns the student's value in canonical form (merges as a list of ``(str, str)``
tuples, tokens as a list of ``str``, lengths as a dict) or raises ``ShapeError`` saying what
was expected and what came back.
"""

from __future__ import annotations

from typing import Any

from grader.families.api import ShapeError, describe, is_str_pair

Pair = tuple[str, str]


def _pair_problem(index: int, item: Any, accept_lists: bool) -> str:
    if type(item) is list and len(item) == 2 and all(type(s) is str for s in item) and not accept_lists:
        return f"item {index} is a list {item!r}; return tuples, e.g. {tuple(item)!r}"
    return f"item {index} is {describe(item)}"


def merges_from_pairs(value: Any, function: str, *, accept_lists: bool) -> list[Pair]:
    """``[(a, b), ...]`` -> the same as tuples, or :class:`ShapeError`."""
    expected = f"{function} must return a list of (str, str) pairs"
    if type(value) is not list:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    merges: list[Pair] = []
    for index, item in enumerate(value):
        if not is_str_pair(item, accept_lists):
            raise ShapeError(f"{expected}; {_pair_problem(index, item, accept_lists)}")
        merges.append((item[0], item[1]))
    return merges


def merges_from_pairs_with_token(value: Any, function: str, *, accept_lists: bool) -> list[Pair]:
    """``[((a, b), "ab"), ...]`` -> ``[(a, b), ...]``, checking each token is ``a + b``."""
    expected = f"{function} must return a list of ((str, str), str) items: (pair, merged token)"
    if type(value) is not list:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    kinds = (tuple, list) if accept_lists else (tuple,)
    merges: list[Pair] = []
    for index, item in enumerate(value):
        if type(item) not in kinds or len(item) != 2:
            raise ShapeError(f"{expected}; item {index} is {describe(item)}")
        pair, token = item
        if not is_str_pair(pair, accept_lists):
            raise ShapeError(f"{expected}; in item {index} the pair is {describe(pair)}")
        if type(token) is not str:
            raise ShapeError(f"{expected}; in item {index} the token is {describe(token)}")
        if token != pair[0] + pair[1]:
            raise ShapeError(
                f"{expected}; in item {index} the token {token!r} is not "
                f"{pair[0]!r} + {pair[1]!r} = {pair[0] + pair[1]!r}"
            )
        merges.append((pair[0], pair[1]))
    return merges


def tokens(value: Any, function: str) -> list[str]:
    expected = f"{function} must return a list of str tokens"
    if type(value) is not list:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    for index, item in enumerate(value):
        if type(item) is not str:
            raise ShapeError(f"{expected}; item {index} is {describe(item)}")
    return list(value)


LENGTH_KEYS = ("char", "bpe", "word")


def lengths(value: Any, function: str) -> dict[str, int]:
    expected = f'{function} must return a dict {{"char": int, "bpe": int, "word": int}}'
    if type(value) is not dict:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    keys = set(value)
    if keys != set(LENGTH_KEYS):
        missing = [k for k in LENGTH_KEYS if k not in keys]
        extra = sorted(repr(k) for k in keys - set(LENGTH_KEYS))
        parts = []
        if missing:
            parts.append("missing " + ", ".join(repr(k) for k in missing))
        if extra:
            parts.append("unexpected " + ", ".join(extra))
        raise ShapeError(f"{expected}; keys: {'; '.join(parts)}")
    for key in LENGTH_KEYS:
        if type(value[key]) is not int:
            raise ShapeError(f"{expected}; {key!r} is {describe(value[key])}")
    return {key: value[key] for key in LENGTH_KEYS}


def merges_shape(exercise: Any, value: Any, function: str) -> list[Pair]:
    """A trainer's answer as bare pairs, in the exercise's merge form (lists accepted for
    tuples when its conventions say so)."""
    conventions = exercise.conventions
    accept_lists = conventions.accept_lists_for_tuples
    if conventions.merge_form == "pairs-with-token":
        return merges_from_pairs_with_token(value, function, accept_lists=accept_lists)
    return merges_from_pairs(value, function, accept_lists=accept_lists)
