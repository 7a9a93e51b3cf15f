"""Values as Python means them: the worker reads an ordinary subclass of a plain type (a
``defaultdict``, a ``Counter``, an ``OrderedDict``, a namedtuple, a ``str`` subclass) as its
plain value, refuses one whose class redefines what its value means, and the trusted decoder
reads the refusal strictly."""

from __future__ import annotations

import collections
import importlib.util
import itertools
import json
from collections import Counter, OrderedDict, defaultdict, namedtuple
from pathlib import Path

import pytest

from grader.grading.shapes import describe
from grader.sandbox import wire
from grader.sandbox.wire import Unreadable, WireError

WORKER_PATH = Path(wire.__file__).with_name("worker.py")


def load_worker_module():
    spec = importlib.util.spec_from_file_location("sandbox_worker_plain_values", WORKER_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


worker = load_worker_module()


def sent(value):
    """``value`` as the worker answers it and the trusted side decodes it."""
    payload = worker._dumps(worker.to_tagged(value, [10_000])).encode("utf-8")
    return wire.decode(payload)


def exactly(value):
    """A structure that differs whenever two values differ in any exact type."""
    if type(value) in (list, tuple):
        return (type(value).__name__, [exactly(item) for item in value])
    if type(value) is dict:
        return ("dict", [(exactly(key), exactly(item)) for key, item in value.items()])
    return (type(value).__name__, value)


Pair = namedtuple("Pair", "left right")


class Token(str):
    """A str subclass that only adds a method."""

    def shout(self):
        return self.upper()


class Words(dict):
    pass


class Tokens(list):
    pass


class Count(int):
    pass


class Score(float):
    pass


def test_ordinary_subclasses_arrive_as_their_plain_values():
    pairs = defaultdict(int)
    pairs[("l", "o")] += 7
    cases = [
        (pairs, {("l", "o"): 7}),
        (Counter({("e", "s"): 9, ("s", "t"): 9}), {("e", "s"): 9, ("s", "t"): 9}),
        (OrderedDict([(("l", "o", "w"), 5)]), {("l", "o", "w"): 5}),
        ([Pair("l", "o"), Pair("lo", "w")], [("l", "o"), ("lo", "w")]),
        (Tokens([Token("low"), Token("</w>")]), ["low", "</w>"]),
        (Words({Token("char"): Count(3)}), {"char": 3}),
        ({Pair("a", "b"): 1}, {("a", "b"): 1}),
        (defaultdict(float, {"▁a": Score(-1.5)}), {"▁a": -1.5}),
        ((OrderedDict([(0, b"a")]), [Pair(b"a", b"b")]), ({0: b"a"}, [(b"a", b"b")])),
    ]
    for value, plain in cases:
        assert exactly(sent(value)) == exactly(plain)


def test_a_subclass_that_restates_its_bases_own_methods_is_read():
    class Restated(str):
        __str__ = str.__str__
        __eq__ = str.__eq__
        __hash__ = str.__hash__

    assert exactly(sent([Restated("low")])) == exactly(["low"])


def test_a_counter_arrives_with_only_what_it_holds():
    counts = Counter("aab")
    assert counts["zzz"] == 0  # reading a missing key adds nothing
    assert sent(counts) == {"a": 2, "b": 1}


class AlwaysEqual(dict):
    def __eq__(self, other):
        return True


class EndlessTokens(list):
    def __iter__(self):
        return itertools.repeat("a")


class ShiftingTokens(list):
    calls = 0

    def __iter__(self):
        ShiftingTokens.calls += 1
        return iter(["a"] * ShiftingTokens.calls)


class LyingKeys(dict):
    def keys(self):
        return []


class Unhashable(str):
    def __hash__(self):
        raise TypeError("no hash for you")


class EqualToAll(str):
    __hash__ = str.__hash__

    def __eq__(self, other):
        return True


class LyingLength(tuple):
    def __len__(self):
        return 2


@pytest.mark.parametrize("value, base, names", [
    (AlwaysEqual({("a", "b"): 1}), "dict", ("__eq__",)),
    (EndlessTokens(["a"]), "list", ("__iter__",)),
    (ShiftingTokens(["a"]), "list", ("__iter__",)),
    (LyingKeys({"a": 1}), "dict", ("keys",)),
    (Unhashable("a"), "str", ("__hash__",)),
    (LyingLength(("a", "b", "c")), "tuple", ("__len__",)),
])
def test_a_subclass_that_redefines_what_its_value_means_is_refused(value, base, names):
    refused = sent(value)
    assert refused == Unreadable(type(value).__name__, base, "redefines", names)
    text = describe(refused)
    assert text.startswith(f"a {type(value).__name__} object, a {base} subclass that redefines")
    assert f"return a plain {base}" in text


def test_a_reading_method_set_on_the_instance_is_refused():
    counts = Words({"a": 1})
    counts.items = lambda: [("b", 2)]
    assert sent(counts) == Unreadable("Words", "dict", "redefines", ("items",))


def test_a_refused_value_inside_an_answer_is_refused_where_it_stands():
    assert sent([("a", "b"), Unhashable("c")]) == [
        ("a", "b"), Unreadable("Unhashable", "str", "redefines", ("__hash__",))]
    assert sent({EqualToAll("k"): 1}) == wire.Opaque("dict with EqualToAll keys")


def test_a_standard_class_changed_by_the_submission_is_refused(monkeypatch):
    counts = Counter("ab")
    monkeypatch.setattr(collections.Counter, "__iter__", lambda self: iter(()))
    assert sent(counts) == Unreadable("Counter", "dict", "redefines", ("__iter__",))


def test_an_int_too_large_to_use_is_refused_on_both_sides():
    assert sent(10**5000) == Unreadable("int", "int", "too-large", ("16610",))
    assert sent([Count(2**5000)]) == [Unreadable("Count", "int", "too-large", ("5001",))]
    assert sent({2**5000: 1}) == wire.Opaque("dict with int keys")
    # The trusted decoder bounds ints itself, whatever the worker sent.
    assert wire.decode(b"[" + str(2**4100).encode() + b"]") == [
        Unreadable("int", "int", "too-large", ("4101",))]
    with pytest.raises(WireError):
        wire.decode(b'{"D": [[' + str(2**4100).encode() + b", 1]]}")
    assert "an int of 16610 bits" in describe(sent(10**5000))


MALFORMED_REFUSALS = [
    [], ["X"], ["X", "set", "redefines", "__eq__"], ["X", "dict", "redefines"],
    ["X", "dict", "redefines", "not a name"], ["X", "dict", "lies", "__eq__"],
    ["X", "dict", "unreadable", "__eq__"], ["X", "int", "too-large", "12a"],
    ["X", "str", "too-large", "12"], ["", "dict", "unreadable"], ["X", "dict", 3],
    ["X", "dict", "redefines"] + ["__eq__"] * 13,
]


def test_the_trusted_decoder_reads_a_refusal_strictly():
    assert wire.decode(json.dumps({"U": ["X", "dict", "redefines", "keys"]}).encode()) == (
        Unreadable("X", "dict", "redefines", ("keys",)))
    assert wire.decode(json.dumps({"U": ["X", "list", "unreadable"]}).encode()) == (
        Unreadable("X", "list", "unreadable"))
    for body in MALFORMED_REFUSALS:
        with pytest.raises(WireError):
            wire.decode(json.dumps({"U": body}).encode())
