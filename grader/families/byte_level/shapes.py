"""The shapes of byte-level answers: ``(vocab, merges)`` of bytes, token ids, decoded text.

Tokens that come back as ``str`` where ``bytes`` are asked for raise :class:`StrTokensError`,
a ``ShapeError`` of its own kind, so the feedback can name that mistake.
"""

from __future__ import annotations

from typing import Any

from grader.families.api import MAX_SHOWN, ShapeError, describe


class StrTokensError(ShapeError):
    """Byte-level tokens came back as ``str`` instead of ``bytes``."""

    kind = "shape-str"


def _bytes_problem(value: Any, where: str) -> str:
    if type(value) is str:
        return (f"{where} is the str {value[:MAX_SHOWN]!r}; byte-level tokens are bytes, e.g. "
                f"{value[:MAX_SHOWN].encode('utf-8', 'backslashreplace')!r}: encode text with .encode('utf-8')")
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
