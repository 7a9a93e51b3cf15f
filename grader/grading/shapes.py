"""Strict checks of the shape of what a student's function returned.

Values arrive from the sandbox as plain Python values (exact ``list``/``tuple``/``str``/``int``
/``dict``...) or as opaque markers naming a type the channel refused to carry. Each check
either returns the value in canonical form (merges as a list of ``(str, str)`` tuples, tokens
as a list of ``str``, lengths as a dict) or raises :class:`ShapeError` with a message that
says what was expected and what came back.
"""

from __future__ import annotations

from typing import Any

Pair = tuple[str, str]

MAX_SHOWN = 60


class ShapeError(ValueError):
    """A returned value does not have the shape the exercise asks for."""

    kind = "shape"


class StrTokensError(ShapeError):
    """Byte-level tokens came back as ``str`` instead of ``bytes``."""

    kind = "shape-str"


def describe(value: Any) -> str:
    """A short, safe description of a value for feedback ("a list ['e', 's']", "a generator")."""
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


def _is_str_pair(item: Any, accept_lists: bool) -> bool:
    kinds = (tuple, list) if accept_lists else (tuple,)
    return type(item) in kinds and len(item) == 2 and all(type(s) is str for s in item)


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
        if not _is_str_pair(item, accept_lists):
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
        if not _is_str_pair(pair, accept_lists):
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
        if not _is_str_pair(pair, True):
            raise ShapeError(f"{expected}; {name} is {describe(pair)}")
    return (step, (first[0], first[1]), (second[0], second[1]))


# --------------------------------------------------------------------------- byte-level


def _bytes_problem(value: Any, where: str) -> str:
    if type(value) is str:
        return (f"{where} is the str {value[:MAX_SHOWN]!r}; byte-level tokens are bytes, e.g. "
                f"{value[:MAX_SHOWN].encode('utf-8')!r}: encode text with .encode('utf-8')")
    return f"{where} is {describe(value)}"


def _bytes_error(message: str, value: Any) -> ShapeError:
    return StrTokensError(message) if type(value) is str else ShapeError(message)


def byte_training(value: Any, function: str) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """``(vocab, merges)``: a dict int -> bytes and a list of (bytes, bytes) pairs."""
    expected = (f"{function} must return (vocab, merges): a dict[int, bytes] and a list of "
                "(bytes, bytes) tuples")
    if type(value) not in (tuple, list) or len(value) != 2:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    vocab, merges = value
    if type(vocab) is not dict:
        raise ShapeError(f"{expected}; vocab is {describe(vocab)}")
    for key, token in vocab.items():
        if type(key) is not int:
            raise ShapeError(f"{expected}; vocab has the key {describe(key)}")
        if type(token) is not bytes:
            raise _bytes_error(f"{expected}; {_bytes_problem(token, f'vocab[{key}]')}", token)
    if type(merges) is not list:
        raise ShapeError(f"{expected}; merges is {describe(merges)}")
    pairs = []
    for index, item in enumerate(merges):
        if type(item) not in (tuple, list) or len(item) != 2:
            raise ShapeError(f"{expected}; merges[{index}] is {describe(item)}")
        for part in item:
            if type(part) is not bytes:
                raise _bytes_error(f"{expected}; {_bytes_problem(part, f'merges[{index}]')}", part)
        pairs.append((item[0], item[1]))
    return dict(vocab), pairs


def token_ids(value: Any, function: str) -> list[int]:
    expected = f"{function} must return a list of int token ids"
    if type(value) is not list:
        raise ShapeError(f"{expected}; it returned {describe(value)}")
    for index, item in enumerate(value):
        if type(item) is not int:
            raise ShapeError(f"{expected}; item {index} is {describe(item)}")
    return list(value)


def text(value: Any, function: str) -> str:
    if type(value) is not str:
        raise ShapeError(f"{function} must return a str; it returned {describe(value)}")
    return value
