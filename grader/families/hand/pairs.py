"""Reading a pair as a person writes it: ``o w``, ``["o", "w"]``, ``(o, w)``, or ``ow``.

The answers file asks for a pair as its two symbols and one space (``"o w"``), but a marker
reads any clear notation the same way: a list of two symbols, a tuple written in parentheses
(quoted or not), and the pair glued together (``"ow"``) when exactly one pair of the step
joins to it. :func:`read_pair` gives the file's own form, ``"a b"``, or None when the value is
not a pair in any of these notations (the caller says what was expected).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Optional

_BRACKETS = ("()", "[]")
_QUOTES = "'\""


def _unquoted(part: str) -> str:
    part = part.strip()
    if len(part) >= 2 and part[0] == part[-1] and part[0] in _QUOTES:
        return part[1:-1]
    return part


def read_pair(value: Any, candidates: Iterable[str] = ()) -> Optional[str]:
    """``value`` as ``"a b"``; ``candidates`` (pairs as ``"a b"``) resolve a glued pair."""
    if isinstance(value, (list, tuple)):
        if len(value) == 2 and all(isinstance(part, str) and part.strip() for part in value):
            return f"{value[0].strip()} {value[1].strip()}"
        return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) >= 2 and any(text[0] + text[-1] == pair for pair in _BRACKETS):
        text = text[1:-1].strip()
    parts = [_unquoted(part) for part in (text.split(",") if "," in text else text.split())]
    if len(parts) == 2 and all(parts) and not any(" " in part for part in parts):
        return f"{parts[0]} {parts[1]}"
    if len(parts) == 1 and parts[0]:
        joined = [pair for pair in candidates if pair.replace(" ", "", 1) == parts[0]]
        if len(joined) == 1:
            return joined[0]
    return None
