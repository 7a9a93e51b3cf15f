"""Served functions: a test file imports ``bpe`` and calls its functions; the grader answers
them with trusted implementations on its own side, logs every request with its answer, and
ends a call that asks too much (one sandbox for the module, a fresh ``Served`` per call)."""

from __future__ import annotations

import json
import struct
import time

import pytest

from grader.sandbox import Sandbox, SandboxError, SandboxLimits, Served, ServedCall, wire
from grader.sandbox.served import ServedEnded

LIMITS = SandboxLimits(call_seconds=2.0, memory_mib=256, total_seconds=120.0)
TESTS = '''
import os
import bpe
from bpe import train_bpe, encode

CACHE = {}


def test_round_trip():
    merges = train_bpe("low lower", 2)
    return [merges, encode("low", merges=merges), train_bpe(("a", b"b", {"k": (1, 2.5)}), 0)]


def test_each_exception():
    seen = []
    for text in ("value", "type", "key", "index", "other"):
        try:
            train_bpe(text, -1)
        except Exception as error:
            seen.append([type(error).__name__, str(error)])
    return seen


def test_refuses(value_kind):
    deep = []
    for _ in range(100):
        deep = [deep]
    values = {"object": object(), "nested": [1, {"k": [os]}], "nan": float("nan"), "deep": deep}
    try:
        if value_kind == "keyword":
            encode("low", merges={1: object()})
        else:
            train_bpe(values[value_kind], 1)
    except (TypeError, ValueError) as error:
        return [type(error).__name__, str(error)]


def test_loops(times):
    for index in range(times):
        train_bpe("ab", index)
    return "done"


def test_big(size):
    return train_bpe("x" * size, 1)


def test_slow():
    return train_bpe("slow", 1)


def test_unanswerable():
    try:
        train_bpe("unsendable", 1)
    except RuntimeError as error:
        return str(error)


def test_mutates():
    corpus = ["a", "b"]
    train_bpe(corpus, 1)
    return corpus


def test_cache_write():
    CACHE["merges"] = train_bpe("cached", 1)
    return len(CACHE)


def test_cache_read():
    return [len(CACHE), sorted(name for name in dir(bpe) if not name.startswith("__"))]


def test_fails():
    assert train_bpe("ab", 1) == [["x", "y"]], "the merges differ"
'''


class Rejected(Exception):
    pass


def train(corpus, num_merges):
    """A stand-in implementation: each odd input takes its own path."""
    if num_merges == -1:
        raise {"value": ValueError("no merges"), "type": TypeError("not a number"),
               "key": KeyError("missing"), "index": IndexError("out of range"),
               "other": Rejected("not today")}[corpus]
    if corpus == "slow":
        while True:
            pass
    if corpus == "unsendable":
        return object()
    if type(corpus) is list:
        corpus.append("changed by the implementation")
        return []
    if type(corpus) is tuple:
        return corpus
    return [[corpus[0], corpus[1:2]]] * min(num_merges, 1)


def encode(word, merges=()):
    return list(word)


def served(**limits) -> Served:
    return Served({"train_bpe": train, "encode": encode}, **limits)


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    path = tmp_path_factory.mktemp("served") / "test_student.py"
    path.write_text(TESTS)
    with Sandbox(path, LIMITS, serves={"bpe": ("train_bpe", "encode")}) as opened:
        assert opened.load().ok, opened.load().error
        yield opened


def test_answers_come_back_plain_and_the_log_holds_each_request_in_order(box):
    answers = served()
    outcome = box.call("test_round_trip", [], served=answers)
    assert outcome.kind == "ok", outcome.error
    plain = ("a", b"b", {"k": (1, 2.5)})
    assert outcome.value == [[["l", "o"]], ["l", "o", "w"], plain]
    log = answers.log()
    assert [(call.function, call.args, call.kwargs, call.answer, call.error) for call in log] == [
        ("train_bpe", ["low lower", 2], {}, [["l", "o"]], None),
        ("encode", ["low"], {"merges": [["l", "o"]]}, ["l", "o", "w"], None),
        ("train_bpe", [plain, 0], {}, plain, None),
    ]
    assert all(isinstance(call, ServedCall) and 0 <= call.seconds < 1 for call in log)
    assert answers.ended is None


def test_exceptions_are_raised_in_the_test_with_their_type_and_message(box):
    answers = served()
    outcome = box.call("test_each_exception", [], served=answers)
    assert outcome.value == [["ValueError", "no merges"], ["TypeError", "not a number"],
                             ["KeyError", "'missing'"], ["IndexError", "out of range"],
                             ["RuntimeError", "not today"]]
    assert [call.error for call in answers.log()] == [
        "ValueError: no merges", "TypeError: not a number", "KeyError: 'missing'",
        "IndexError: out of range", "Rejected: not today"]
    assert all(call.answer is None for call in answers.log())


@pytest.mark.parametrize("value_kind", ["object", "nested", "nan", "keyword"])
def test_arguments_that_are_not_plain_are_refused_in_the_test(box, value_kind):
    answers = served()
    outcome = box.call("test_refuses", [value_kind], served=answers)
    assert outcome.kind == "ok"
    name, message = outcome.value
    assert name == "TypeError" and "takes plain values only" in message
    assert message.startswith("bpe.encode" if value_kind == "keyword" else "bpe.train_bpe")
    assert answers.log() == []


def test_arguments_nested_too_deeply_are_refused_in_the_test(box):
    answers = served()
    outcome = box.call("test_refuses", ["deep"], served=answers)
    assert outcome.value == ["ValueError", "bpe.train_bpe: the arguments are nested more than "
                                           "64 levels deep"]
    assert answers.log() == []


def test_outside_a_served_call_the_functions_refuse_with_the_reason(box):
    outcome = box.call("test_round_trip", [])
    assert outcome.kind == "exception"
    assert "served functions answer only inside a test" in outcome.error


def test_a_call_at_import_time_stops_the_load_with_the_reason(tmp_path):
    path = tmp_path / "test_top.py"
    path.write_text("from bpe import train_bpe\nMERGES = train_bpe('ab', 1)\n")
    with Sandbox(path, LIMITS, serves={"bpe": ["train_bpe"]}) as opened:
        loaded = opened.load()
    assert not loaded.ok
    assert "served functions answer only inside a test" in loaded.error


def test_too_many_requests_end_the_call(box):
    answers = served(max_calls=5)
    outcome = box.call("test_loops", [50], served=answers)
    assert (outcome.kind, outcome.error) == (
        "budget", "the test called the served functions more than 5 times")
    assert len(answers.log()) == 5 and answers.ended == outcome.error
    assert box.call("test_loops", [5], served=served(max_calls=5)).value == "done"


def test_a_request_over_the_size_limit_ends_the_call(box):
    answers = served(max_request_bytes=10_000)
    assert box.call("test_big", [5_000], served=answers).kind == "ok"
    outcome = box.call("test_big", [20_000], served=(answers := served(max_request_bytes=10_000)))
    assert outcome.kind == "budget"
    assert "over the limit of 10000" in outcome.error and "served function" in outcome.error
    assert answers.log() == []


def test_a_slow_implementation_is_stopped_when_the_served_time_runs_out(box):
    answers = served(max_seconds=0.3)
    started = time.monotonic()
    outcome = box.call("test_slow", [], served=answers)
    assert time.monotonic() - started < 1.5
    assert outcome.kind == "timeout"
    assert outcome.error.startswith("timed out: the served functions' time ran out after "
                                    "answering 1 call in 0.3")
    assert outcome.error.endswith("reaching the 0.3 s they may take in one test")
    [call] = answers.log()
    assert call.error.startswith("TimeoutError") and call.seconds >= 0.3


def test_served_time_counts_against_the_call_limit(box):
    answers = served()
    started = time.monotonic()
    outcome = box.call("test_slow", [], 0.5, served=answers)
    assert time.monotonic() - started < 2.0
    assert outcome.kind == "timeout"
    assert "time ran out" in outcome.error and "time limit of 0.5 s" in outcome.error


def test_an_implementation_bug_is_an_answer_not_a_grader_crash(box):
    answers = served()
    outcome = box.call("test_unanswerable", [], served=answers)
    assert outcome.kind == "ok" and "cannot be sent" in outcome.value
    [call] = answers.log()
    assert call.answer is None and call.error.startswith("TypeError: the served function's")


def test_a_request_answered_outside_a_call_is_what_the_log_records(box):
    logged = []
    for test in ("test_round_trip", "test_each_exception", "test_unanswerable"):
        answers = served()
        box.call(test, [], served=answers)
        logged += answers.log()
    here = served()
    assert len(logged) == 9
    for call in logged:
        assert here.answered(call.function, call.args, call.kwargs) == (call.answer, call.error)
    assert here.log() == []  # nothing answered outside a call is logged


def test_the_log_holds_the_arguments_as_the_test_sent_them(box):
    answers = served()
    outcome = box.call("test_mutates", [], served=answers)
    assert outcome.value == ["a", "b"]  # the test's own list never left the sandbox
    assert answers.log()[0].args == [["a", "b"], 1]


def test_a_failing_test_is_an_exception_with_the_log_beside_it(box):
    answers = served()
    outcome = box.call("test_fails", [], served=answers)
    assert outcome.kind == "exception" and "the merges differ" in outcome.error
    assert answers.log()[0].answer == [["a", "b"]]


def test_nothing_a_call_caches_survives_into_the_next(box):
    assert box.call("test_cache_write", [], served=served()).value == 1
    assert box.call("test_cache_read", [], served=served()).value == [0, ["encode", "train_bpe"]]


def test_a_call_must_serve_every_function_the_sandbox_serves(box, tmp_path):
    with pytest.raises(SandboxError, match="does not answer encode"):
        box.call("test_round_trip", [], served=Served({"train_bpe": train}))
    path = tmp_path / "plain.py"
    path.write_text("def f():\n    return 1\n")
    with Sandbox(path, LIMITS) as plain:
        with pytest.raises(SandboxError, match="serves no functions"):
            plain.call("f", [], served=served())
    for serves in ({"os": ["path"]}, {"bpe": ["a b"]}, {"bpe": ["f"], "other": ["f"]}):
        with pytest.raises(SandboxError):
            Sandbox(path, LIMITS, serves=serves)


def frame(message) -> bytes:
    payload = message if isinstance(message, bytes) else json.dumps(
        message, separators=(",", ":")).encode()
    return struct.pack(">I", len(payload)) + payload


@pytest.mark.parametrize("message", [
    b"hello", ["need"], ["serve", "train_bpe", ["ab", 1]], ["serve", ["train_bpe"], [], {}],
    ["serve", "catalogue", [], {}], ["serve", "train_bpe", {"T": []}, {}],
    ["serve", "train_bpe", [{"O": "Secret"}], {}], ["serve", "train_bpe", [], {"not a name": 1}],
    ["serve", "train_bpe", [], {"corpus": {"U": ["Liar", "str", "redefines", "__eq__"]}}],
    ["serve", "train_bpe", [{"X": 1}], {}], ["serve", "train_bpe", [1e400], {}],
])
def test_every_frame_that_is_not_a_request_ends_the_call_as_a_bad_answer(message):
    answers = served()
    with pytest.raises(ServedEnded) as ended:
        answers.received(frame(message), wire.WireBounds())
    assert ended.value.kind == "bad-answer"
    assert str(ended.value).startswith("sent a malformed request to a served function")
    assert answers.log() == [] and answers.ended == str(ended.value)


def test_a_request_is_answered_whole_however_its_bytes_arrive():
    answers = served()
    data = frame(["serve", "encode", ["low"], {"merges": []}]) * 2
    replies = b"".join(answers.received(data[index:index + 3], wire.WireBounds())
                       for index in range(0, len(data), 3))
    assert replies == frame(["ok", ["l", "o", "w"]]) * 2
    assert [call.answer for call in answers.log()] == [["l", "o", "w"]] * 2
