"""The tagged JSON encoding of values that cross the sandbox pipe, trusted side.

Only plain values travel: ``None``, ``bool``, ``int``, finite ``float``, ``str``, ``bytes``,
``list``, ``tuple`` and ``dict`` with ``str``, ``int`` or tuple keys (a tuple of ``str`` and
``int``, as BPE keys a word by its symbols and a pair count by its pair), each recognised by
its *exact* type. JSON has no tuples, bytes or tagged dicts, so those travel as one-key
objects::

    [1, "a"]          ->  [1, "a"]
    ("a", "b")        ->  {"T": ["a", "b"]}
    {"low": 5}        ->  {"D": [["low", 5]]}
    {0: b"a"}         ->  {"D": [[0, {"B": "61"}]]}    (bytes as lowercase hex)
    {("l", "o"): 7}   ->  {"D": [[{"T": ["l", "o"]}, 7]]}
    a generator       ->  {"O": "generator"}     (worker side only: an opaque marker)
    a refused value   ->  {"U": ["Liar", "dict", "redefines", "__eq__"]}   (worker side only)

The worker reads an ordinary subclass of a plain type (a ``defaultdict``, a ``Counter``, a
namedtuple, a ``str`` subclass) as its plain value, so such values arrive plain; one whose
class redefines what its value means (equality, hashing, iteration...), or an int of more than
:data:`MAX_INT_BITS` bits, arrives as an :class:`Unreadable` saying why it was not read.

Decoding is strict: every node is checked for its shape, the whole message for its size,
nesting depth and number of items, and an opaque marker becomes an :class:`Opaque` that holds
only a type name. Nothing is unpickled or evaluated. The worker script carries its own copy of
the encoder (it cannot import this module); tests check the two agree.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Optional

TUPLE_TAG = "T"
DICT_TAG = "D"
BYTES_TAG = "B"
OPAQUE_TAG = "O"
UNREADABLE_TAG = "U"
MAX_TYPE_NAME = 200
MAX_INT_BITS = 4096
READ_BASES = ("dict", "list", "tuple", "str", "bytes", "int", "float")
MAX_REDEFINED = 12


class WireError(ValueError):
    """A message that is not a well-formed, in-bounds encoding of plain values."""


@dataclass(frozen=True)
class Opaque:
    """A value the student returned that is not plain data; only its type name survives."""

    type_name: str

    def __str__(self) -> str:
        return f"<{self.type_name} object>"


@dataclass(frozen=True)
class Unreadable:
    """A value the worker did not read: a subclass of a plain type that redefines what its value
    means (``reason`` "redefines", ``names`` the methods), one whose reading failed
    ("unreadable"), or an int too large to use ("too-large", ``names`` its bit count)."""

    type_name: str
    base: str
    reason: str
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"<{self.type_name} object>"

    @property
    def explanation(self) -> str:
        """What was returned and why it was not read, as the end of a sentence."""
        if self.reason == "too-large":
            return (f"an int of {self.names[0]} bits, more than the {MAX_INT_BITS} any answer "
                    "may have")
        if self.reason == "redefines":
            return (f"a {self.type_name} object, a {self.base} subclass that redefines "
                    f"{', '.join(self.names)}, so it is not read as a {self.base}: return a "
                    f"plain {self.base}")
        return (f"a {self.type_name} object, a {self.base} subclass whose value could not be "
                f"read: return a plain {self.base}")


@dataclass(frozen=True)
class WireBounds:
    """Limits on one decoded message."""

    max_bytes: int = 8 << 20
    max_depth: int = 64
    max_items: int = 2_000_000
    max_string_chars: int = 8 << 20


def encode(value: Any, bounds: WireBounds = WireBounds()) -> bytes:
    """Encode plain *value* as JSON bytes; anything not plain raises :class:`WireError`."""
    counter = _Counter(bounds)
    tagged = _to_tagged(value, 0, counter, _ROOT)
    # ASCII escapes let any str travel, lone surrogates included.
    return json.dumps(tagged, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()


def to_tagged(value: Any, bounds: WireBounds = WireBounds()) -> Any:
    """The JSON-ready tagged form of plain *value* (to embed inside a larger message)."""
    return _to_tagged(value, 0, _Counter(bounds), _ROOT)


def decode(data: bytes, bounds: WireBounds = WireBounds()) -> Any:
    """Decode one message produced by the worker; raise :class:`WireError` if it is malformed."""
    return from_tagged(parse_json(data, bounds), bounds)


def parse_json(data: bytes, bounds: WireBounds = WireBounds()) -> Any:
    """Strictly parse a JSON message (size-checked, no NaN, no duplicate keys)."""
    if len(data) > bounds.max_bytes:
        raise WireError(f"the answer is {len(data)} bytes, over the limit of {bounds.max_bytes}")
    try:
        text = data.decode("utf-8")
        return json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys
        )
    except RecursionError:
        raise WireError("the answer is nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as error:
        raise WireError(f"the answer is not valid JSON: {_short(error)}") from None


def from_tagged(tree: Any, bounds: WireBounds = WireBounds()) -> Any:
    """Turn a parsed tagged tree into plain values, checking every node."""
    return _from_tagged(tree, 0, _Counter(bounds))


class _Counter:
    def __init__(self, bounds: WireBounds) -> None:
        self.bounds = bounds
        self.items = 0

    def visit(self, depth: int) -> None:
        self.visit_many(1, depth)

    def visit_many(self, count: int, depth: int) -> None:
        """``count`` items at ``depth`` (none of them nested)."""
        if not count:
            return
        self.items += count
        if self.items > self.bounds.max_items:
            raise WireError(f"more than {self.bounds.max_items} items")
        if depth > self.bounds.max_depth:
            raise WireError(f"nested deeper than {self.bounds.max_depth} levels")


_ONLY_STR = {str}

# Where a value sits, as (parent, index) links: spelt out (value[0][1]) only for an error.
_Path = Any
_ROOT: _Path = None


def _path_text(path: _Path) -> str:
    steps = []
    while path is not None:
        path, step = path
        steps.append(f"[{step!r}]")
    return "value" + "".join(reversed(steps))


def _to_tagged(value: Any, depth: int, counter: _Counter, path: _Path) -> Any:
    counter.visit(depth)
    kind = type(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise WireError(f"{_path_text(path)} is {value!r}; only finite floats can be sent")
        return value
    if kind is str:
        return value
    if kind is bytes:
        counter.items += len(value) // 64
        return {BYTES_TAG: value.hex()}
    if kind is list:
        if set(map(type, value)) <= _ONLY_STR:  # a corpus, say: its strings go as they are
            counter.visit_many(len(value), depth + 1)
            return list(value)
        return [_to_tagged(v, depth + 1, counter, (path, i)) for i, v in enumerate(value)]
    if kind is tuple:
        items = [_to_tagged(v, depth + 1, counter, (path, i)) for i, v in enumerate(value)]
        return {TUPLE_TAG: items}
    if kind is dict:
        pairs = []
        for key, item in value.items():
            if not _plain_key(key):
                raise WireError(f"{_path_text(path)} has a key of type {type(key).__name__}; "
                                "keys must be str, int or a tuple of str and int")
            counter.items += len(key) if type(key) is tuple else 0
            tagged = {TUPLE_TAG: list(key)} if type(key) is tuple else key
            pairs.append([tagged, _to_tagged(item, depth + 1, counter, (path, key))])
        return {DICT_TAG: pairs}
    raise WireError(f"{_path_text(path)} is a {kind.__name__}; only plain data can be sent to "
                    "student code")


def _from_tagged(node: Any, depth: int, counter: _Counter) -> Any:
    counter.visit(depth)
    kind = type(node)
    if node is None or kind is bool:
        return node
    if kind is int:
        bits = node.bit_length()
        return node if bits <= MAX_INT_BITS else Unreadable("int", "int", "too-large", (str(bits),))
    if kind is float:
        if not math.isfinite(node):
            raise WireError("a float that is not finite")
        return node
    if kind is str:
        if len(node) > counter.bounds.max_string_chars:
            raise WireError(f"a string longer than {counter.bounds.max_string_chars} characters")
        return node
    if kind is list:
        return _strings(node, depth + 1, counter) or [
            _from_tagged(item, depth + 1, counter) for item in node]
    if kind is dict and len(node) == 1:
        ((tag, body),) = node.items()
        if tag == TUPLE_TAG and type(body) is list:
            strings = _strings(body, depth + 1, counter)
            return tuple(strings if strings is not None else (
                _from_tagged(item, depth + 1, counter) for item in body))
        if tag == DICT_TAG and type(body) is list:
            return _decode_dict(body, depth, counter)
        if tag == BYTES_TAG and type(body) is str:
            return _decode_bytes(body, counter)
        if tag == OPAQUE_TAG and type(body) is str and 0 < len(body) <= MAX_TYPE_NAME:
            return Opaque(body)
        if tag == UNREADABLE_TAG and type(body) is list:
            return _decode_unreadable(body)
    raise WireError(f"an unexpected node of type {kind.__name__}")


def _strings(items: list, depth: int, counter: _Counter) -> Optional[list]:
    """``items`` as they are when every one is a string within bounds (checked as one), else
    None: a token list, say, is read without visiting each string in turn."""
    if not items or set(map(type, items)) != _ONLY_STR:
        return None
    if max(map(len, items)) > counter.bounds.max_string_chars:
        raise WireError(f"a string longer than {counter.bounds.max_string_chars} characters")
    counter.visit_many(len(items), depth)
    return items


def _decode_unreadable(body: list) -> Unreadable:
    """``[type name, base, reason, *names]``, every part checked."""
    if not 3 <= len(body) <= 3 + MAX_REDEFINED or not all(type(part) is str for part in body):
        raise WireError("a malformed unreadable marker")
    type_name, base, reason, *names = body
    if not 0 < len(type_name) <= MAX_TYPE_NAME or base not in READ_BASES:
        raise WireError("a malformed unreadable marker")
    if reason == "too-large":
        valid = base == "int" and len(names) == 1 and names[0].isascii() and names[0].isdigit() and len(names[0]) < 10
    elif reason == "redefines":
        valid = bool(names) and all(name.isascii() and name.isidentifier() and len(name) <= 40
                                     for name in names)
    else:
        valid = reason == "unreadable" and not names
    if not valid:
        raise WireError("a malformed unreadable marker")
    return Unreadable(type_name, base, reason, tuple(names))


def _decode_bytes(text: str, counter: _Counter) -> bytes:
    if len(text) > 2 * counter.bounds.max_string_chars:
        raise WireError(f"bytes longer than {counter.bounds.max_string_chars}")
    try:
        data = bytes.fromhex(text)
    except ValueError:
        data = None
    if data is None or data.hex() != text:  # fromhex also takes capitals and spaces
        raise WireError("bytes that are not lowercase hex")
    counter.items += len(text) // 128
    if counter.items > counter.bounds.max_items:
        raise WireError(f"more than {counter.bounds.max_items} items")
    return data


def _plain_key(key: Any) -> bool:
    """A key that travels: an exact ``str`` or ``int``, or an exact tuple of them."""
    if type(key) is str or type(key) is int:
        return True
    return type(key) is tuple and all(type(part) is str or type(part) is int for part in key)


def _decode_key(node: Any, counter: _Counter) -> Any:
    if type(node) is str:
        return node
    if type(node) is int:
        if node.bit_length() > MAX_INT_BITS:
            raise WireError(f"a dict key that is an int of more than {MAX_INT_BITS} bits")
        return node
    if type(node) is dict and len(node) == 1 and type(node.get(TUPLE_TAG)) is list:
        parts = node[TUPLE_TAG]
        counter.items += len(parts)
        if counter.items > counter.bounds.max_items:
            raise WireError(f"more than {counter.bounds.max_items} items")
        if any(type(part) is int and part.bit_length() > MAX_INT_BITS for part in parts):
            raise WireError(f"a dict key that holds an int of more than {MAX_INT_BITS} bits")
        if all(type(part) is str or type(part) is int for part in parts):
            if any(type(part) is str and len(part) > counter.bounds.max_string_chars for part in parts):
                raise WireError(f"a string longer than {counter.bounds.max_string_chars} characters")
            return tuple(parts)
    raise WireError("a dict key that is not a str, an int or a tuple of them")


def _decode_dict(pairs: list, depth: int, counter: _Counter) -> dict:
    result: dict[Any, Any] = {}
    for pair in pairs:
        if type(pair) is not list or len(pair) != 2:
            raise WireError("a dict entry that is not a [key, value] pair")
        key = _decode_key(pair[0], counter)
        if key in result:
            raise WireError(f"a dict with the key {str(key)[:50]!r} twice")
        result[key] = _from_tagged(pair[1], depth + 1, counter)
    return result


def _reject_constant(name: str) -> Any:
    raise WireError(f"{name} is not allowed")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise WireError("an object with a repeated key")
    return result


def _short(error: Exception) -> str:
    text = str(error)
    return text if len(text) <= 200 else text[:200] + "..."
