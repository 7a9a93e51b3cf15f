"""The tagged value encoding: exact types survive both directions, the trusted decoder is
strict, and the worker's own copy of the codec agrees with grader.sandbox.wire."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.sandbox import wire
from grader.sandbox.wire import Opaque, Unreadable, WireBounds, WireError

WORKER_PATH = Path(wire.__file__).with_name("worker.py")


def load_worker_module():
    spec = importlib.util.spec_from_file_location("sandbox_worker_under_test", WORKER_PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


worker = load_worker_module()

plain_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text() | st.binary(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.lists(children, max_size=4).map(tuple)
    | st.dictionaries(st.text(max_size=5) | st.integers()
                      | st.tuples(st.text(max_size=3), st.text(max_size=3) | st.integers()),
                      children, max_size=4),
    max_leaves=20,
)


def typed(value):
    """A structure that differs whenever two values differ in any exact type."""
    if type(value) in (list, tuple):
        return (type(value).__name__, [typed(item) for item in value])
    if type(value) is dict:
        return ("dict", [(key, typed(item)) for key, item in value.items()])
    if type(value) is float:
        return ("float", value.hex())
    return (type(value).__name__, value)


@settings(max_examples=60)
@given(plain_values)
def test_trusted_round_trip_keeps_exact_types(value):
    assert typed(wire.decode(wire.encode(value))) == typed(value)


@settings(max_examples=60)
@given(plain_values)
def test_worker_decodes_what_the_grader_sends(value):
    tree = json.loads(wire.encode(value))
    assert typed(worker.from_tagged(tree)) == typed(value)


@settings(max_examples=60)
@given(plain_values)
def test_grader_decodes_what_the_worker_answers(value):
    tree = worker.to_tagged(value, [10_000])
    payload = worker._dumps(tree).encode("utf-8")
    assert typed(wire.decode(payload)) == typed(value)


def test_worker_marks_everything_else_as_opaque_by_type_name():
    class LyingStr(str):
        def __eq__(self, other):
            return True

    tree = worker.to_tagged([LyingStr("a"), {1, 2}, (x for x in ()), float("nan"), {1.5: 2},
                             bytearray(b"x"), {True: 1}], [100])
    lying = Unreadable("LyingStr", "str", "redefines", ("__eq__", "__hash__"))
    assert wire.from_tagged(tree) == [lying, Opaque("set"), Opaque("generator"),
                                      Opaque("float(nan)"), Opaque("dict with float keys"),
                                      Opaque("bytearray"), Opaque("dict with bool keys")]


def test_bytes_and_int_keyed_dicts_travel_both_ways():
    value = ({0: b"<|endoftext|>", 256: bytes(range(256))}, [(b"\xe2", b"\x82")])
    assert wire.decode(wire.encode(value)) == value
    tree = worker.to_tagged(value, [10_000])
    assert wire.from_tagged(tree) == value
    assert worker.from_tagged(json.loads(wire.encode(value))) == value
    assert json.loads(wire.encode(b"ab")) == {"B": "6162"}


def test_dicts_keyed_by_tuples_travel_both_ways():
    """A BPE word keyed by its symbols, and a pair count keyed by its pair."""
    words = {("l", "o", "w", "</w>"): 5, ("n", "e", "w", "es", "t", "</w>"): 6}
    pairs = {("l", "o"): 7, ("e", "s"): 9, (0, "x"): 1}
    for value in (words, pairs, [words, pairs], {(): 0}):
        assert wire.decode(wire.encode(value)) == value
        assert wire.from_tagged(worker.to_tagged(value, [10_000])) == value
        assert worker.from_tagged(json.loads(wire.encode(value))) == value


def test_a_key_tuple_of_anything_else_is_opaque_and_counts_against_the_budget():
    class LyingStr(str):
        def __hash__(self):
            return 0

    for key in ((1.5,), (True,), (LyingStr("a"),), (("a",),)):
        assert wire.from_tagged(worker.to_tagged({key: 1}, [100])) == Opaque("dict with tuple keys")
        with pytest.raises(WireError):
            wire.encode({key: 1})
    with pytest.raises(worker.TooLarge):
        worker.to_tagged({tuple("x" * 200): 1}, [100])


def test_worker_refuses_answers_over_its_item_budget():
    with pytest.raises(worker.TooLarge):
        worker.to_tagged(list(range(100)), [50])
    nested: list = []
    for _ in range(worker.MAX_DEPTH + 5):
        nested = [nested]
    with pytest.raises(worker.TooLarge):
        worker.to_tagged(nested, [10_000])


@pytest.mark.parametrize(
    "value",
    [{1, 2}, bytearray(b"bytes"), float("nan"), float("inf"), {1.5: "float key"},
     {True: "bool key"}, type("S", (str,), {})("x"), [object()]],
)
def test_encode_refuses_values_that_are_not_plain(value):
    with pytest.raises(WireError):
        wire.encode(value)


def test_encode_error_names_the_offending_place():
    with pytest.raises(WireError, match=r"value\[1\]\[0\] is a set"):
        wire.encode(["ok", [{1}]])


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"NaN", "not allowed"),
        (b"[Infinity]", "not allowed"),
        (b"1e999", "not finite"),
        (b'{"T": [], "T": []}', "repeated key"),
        (b'{"T": 1}', "unexpected node"),
        (b'{"B": "6g"}', "not lowercase hex"),
        (b'{"B": "616"}', "not lowercase hex"),
        (b'{"D": [[1.5, 1]]}', "not a str, an int or a tuple"),
        (b'{"D": [[{"T": [1.5]}, 1]]}', "not a str, an int or a tuple"),
        (b'{"D": [[{"T": [["a"]]}, 1]]}', "not a str, an int or a tuple"),
        (b'{"D": [[{"B": "61"}, 1]]}', "not a str, an int or a tuple"),
        (b'{"D": [[{"T": ["a"]}, 1], [{"T": ["a"]}, 2]]}', "twice"),
        (b'{"X": []}', "unexpected node"),
        (b'{"T": [], "D": []}', "unexpected node"),
        (b'{"O": ""}', "unexpected node"),
        (b'{"O": 5}', "unexpected node"),
        (b'{"D": [[true, 2]]}', "not a str, an int or a tuple"),
        (b'{"D": [["a", 1], ["a", 2]]}', "twice"),
        (b'{"D": [["a", 1, 2]]}', "pair"),
        (b"[1, 2", "not valid JSON"),
        (b"[1] [2]", "not valid JSON"),
        (b"\xff", "not valid JSON"),
        (b"[" * 100_000 + b"]" * 100_000, "nested"),
    ],
)
def test_strict_decoder_rejects_malformed_messages(payload, reason):
    with pytest.raises(WireError, match=reason):
        wire.decode(payload)


def test_decoder_enforces_its_bounds():
    with pytest.raises(WireError, match="over the limit"):
        wire.decode(b'"' + b"a" * 100 + b'"', WireBounds(max_bytes=50))
    with pytest.raises(WireError, match="more than 10 items"):
        wire.decode(json.dumps(list(range(20))).encode(), WireBounds(max_items=10))
    with pytest.raises(WireError, match="deeper than 3"):
        wire.decode(b"[[[[[1]]]]]", WireBounds(max_depth=3))
    with pytest.raises(WireError, match="longer than 5"):
        wire.decode(b'"abcdefgh"', WireBounds(max_string_chars=5))


def test_opaque_is_a_frozen_marker_holding_only_a_name():
    marker = Opaque("generator")
    assert [field.name for field in dataclasses.fields(marker)] == ["type_name"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        marker.type_name = "list"  # type: ignore[misc]
    assert marker != "generator" and str(marker) == "<generator object>"
