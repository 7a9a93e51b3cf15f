"""Batched calls (``Sandbox.call_many``): one fresh child runs a function on many inputs; it
answers each in order, goes on after a raised exception (an answer like a value), stops at the
first input that neither returns nor raises, and leaves nothing for the next child."""

from __future__ import annotations

import os
import textwrap

import pytest

from grader.sandbox.api import Sandbox, SandboxLimits

SOURCE = textwrap.dedent('''
    import os, sys, time
    seen = []

    def remember(x):
        seen.append(x)
        return list(seen)

    def picky(x):
        if x == "raise":
            raise ValueError("no")
        if x == "exit":
            sys.exit(3)
        if x == "die":
            os._exit(1)
        if x == "loop":
            while True:
                pass
        print("value", x)
        return x

    def grow(items):
        items.append("more")
        return len(items)

    def keep(items, table):
        return len(items) + len(table)
''')


@pytest.fixture
def box(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(SOURCE)
    with Sandbox(path, limits=SandboxLimits(call_seconds=1.0, total_seconds=20)) as sandbox:
        assert sandbox.load().ok
        yield sandbox


def test_each_input_is_answered_in_order_in_one_child(box):
    outcomes = box.call_many("remember", [[1], [2], [3]])
    assert [outcome.value for outcome in outcomes] == [[1], [1, 2], [1, 2, 3]]
    assert all(outcome.kind == "ok" and outcome.seconds >= 0 for outcome in outcomes)
    again = box.call_many("remember", [[4], [5]])
    assert [outcome.value for outcome in again] == [[4], [4, 5]], "a batch saw the last one"
    assert box.call("remember", [6]).value == [6]


def test_the_batch_goes_on_after_an_exception_and_stops_at_an_exit(box):
    outcomes = box.call_many("picky", [["a"], ["raise"], ["b"], ["raise"]])
    assert [outcome.kind for outcome in outcomes] == ["ok", "exception", "ok", "exception"]
    assert "ValueError" in outcomes[1].error and outcomes[2].value == "b"
    assert outcomes[3].error == outcomes[1].error  # the same words as the first time
    assert outcomes[1].error == box.call("picky", ["raise"]).error  # and as a call alone
    exits = box.call_many("picky", [["a"], ["exit"], ["b"]])
    assert [outcome.kind for outcome in exits] == ["ok", "exit"]


@pytest.mark.parametrize("fatal", ["die", "loop"])
def test_a_batch_that_dies_or_hangs_answers_nothing_and_calls_still_work(box, fatal):
    assert box.call_many("picky", [["a"], [fatal], ["b"]]) == []
    assert box.call("picky", ["b"]).value == "b"
    assert box.call("picky", [fatal]).kind in {"crash", "exit", "timeout"}


def test_the_arguments_come_back_as_each_input_left_them(box):
    outcomes = box.call_many("grow", [[["x"]], [[]]], echo_args=True)
    assert [outcome.value for outcome in outcomes] == [2, 1]
    assert [outcome.args_after for outcome in outcomes] == [[["x", "more"]], [["more"]]]


def test_arguments_left_as_they_came_are_not_sent_back_and_come_back_as_sent(box, monkeypatch):
    replies = []
    read = Sandbox._call_outcome

    def reading(self, raw, *args, **kwargs):
        replies.append(raw)
        return read(self, raw, *args, **kwargs)

    monkeypatch.setattr(Sandbox, "_call_outcome", reading)
    sent = [[[("a", "b")], {1: b"x"}], [[], {}]]
    outcomes = box.call_many("keep", sent, echo_args=True)
    assert [outcome.value for outcome in outcomes] == [2, 0]
    assert [outcome.args_after for outcome in outcomes] == sent
    assert type(outcomes[0].args_after[0][0]) is tuple
    assert replies[-1].count(b'"args_same":true') == 2 and b'"args":' not in replies[-1]
    grown = box.call_many("grow", [[["x"]], [[]]], echo_args=True)  # changed: sent back
    assert b'"args":' in replies[-1] and b'"args_same"' not in replies[-1]
    assert [outcome.args_after for outcome in grown] == [[["x", "more"]], [["more"]]]


def test_a_missing_function_is_said_once(box):
    [outcome] = box.call_many("nowhere", [[1], [2]])
    assert outcome.kind == "missing"


def test_a_batch_costs_one_call_of_time_budget_at_most(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(SOURCE)
    with Sandbox(path, limits=SandboxLimits(call_seconds=0.5, total_seconds=20)) as sandbox:
        assert sandbox.call_many("picky", [["a"], ["loop"]]) == []
        assert 0.4 < 20 - sandbox.seconds_left < 3.0


def test_a_grading_process_holding_more_descriptors_than_a_call_may_still_starts_sandboxes(
    tmp_path,
):
    # A long batch or an LMS harness can hold many files open; the child inherits them all
    # until exec closes them, so its own descriptor cap must come after its set-up.
    path = tmp_path / "student.py"
    path.write_text(SOURCE)
    limits = SandboxLimits(call_seconds=1.0, total_seconds=20)
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(limits.max_open_files * 2)]
    try:
        with Sandbox(path, limits=limits) as sandbox:
            assert sandbox.load().ok
            assert sandbox.call("picky", ["a"]).value == "a"
    finally:
        for fd in held:
            os.close(fd)


def test_the_layer_probe_finds_the_same_layers_while_many_descriptors_are_open():
    """The probe's child builds the root before capping descriptors too: holding more files
    than a call may open must not make a layer (say mount-isolation) look missing."""
    from grader.sandbox import layers

    limit = SandboxLimits().max_open_files
    layers._working_steps.cache_clear()
    try:
        alone = layers.probe_layers()
        layers._working_steps.cache_clear()
        held = [os.open(os.devnull, os.O_RDONLY) for _ in range(limit * 2)]
        try:
            crowded = layers.probe_layers()
        finally:
            for fd in held:
                os.close(fd)
    finally:
        layers._working_steps.cache_clear()
    assert crowded == alone
