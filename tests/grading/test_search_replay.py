"""Hypothesis's shrinking searches replayed from memory (``grader.grading.search_replay``)."""

from __future__ import annotations

import pytest

from grader.grading import search, search_replay
from grader.spec import load_exercise
from grader.spec.hooks import Failure, StudentAnswer


@pytest.fixture(autouse=True)
def no_trees(monkeypatch):
    monkeypatch.setattr(search_replay, "_TREES", {})
    monkeypatch.setattr(search_replay, "_UNREPLAYABLE", set())


def counting_find(proposals):
    """A stand-in for Hypothesis's ``find``: tries the inputs ``proposals(answers)`` gives
    after the answers so far, found at the first one the condition holds on."""
    runs: list[int] = []

    def find(condition):
        runs.append(1)
        answers: list[bool] = []
        while (example := proposals(answers)) is not None:
            answers.append(bool(condition(example)))
            if answers[-1]:
                return "found", example
        return "none", None

    return find, runs


def ladder(answers):
    """Tries 10, then one less after each failure found... a search's typical walk."""
    return None if len(answers) >= 6 else 10 - len(answers)


def test_a_search_answered_alike_is_replayed_without_running_find_again():
    find, runs = counting_find(ladder)
    asked: list[list[int]] = [[], []]
    outcomes = [search_replay.replayed("key", lambda x, seen=seen: seen.append(x) or x < 8, find)
                for seen in asked]
    assert outcomes == [("found", 7), ("found", 7)]
    assert asked[0] == asked[1] == [10, 9, 8, 7]  # the condition is asked on every input again
    assert len(runs) == 1


def test_a_new_answer_runs_the_search_for_real_and_it_ends_as_without_the_tree():
    find, runs = counting_find(ladder)
    search_replay.replayed("key", lambda x: x < 8, find)
    outcome = search_replay.replayed("key", lambda x: x < 6, find)
    assert outcome == counting_find(ladder)[0](lambda x: x < 6) == ("found", 5)
    assert len(runs) == 2
    assert search_replay.replayed("key", lambda x: x < 6, find) == ("found", 5)  # kept too
    assert len(runs) == 2


def test_an_exception_that_ends_the_search_is_an_answer_of_its_own():
    class Spent(BaseException):
        pass

    def find(condition):
        try:
            for example in (3, 2, 1):
                condition(example)
        except Spent:
            return "spent", None
        return "none", None

    def spent_at_two(example):
        if example == 2:
            raise Spent
        return False

    counted = []
    for _ in range(2):
        outcome = search_replay.replayed(
            "key", spent_at_two, lambda condition: counted.append(1) or find(condition),
            ending=(Spent,))
        assert outcome == ("spent", None)
    assert len(counted) == 1


def test_a_search_that_tries_other_inputs_under_one_key_is_never_replayed_again():
    first, _ = counting_find(ladder)
    search_replay.replayed("key", lambda x: x < 8, first)
    other, runs = counting_find(lambda answers: None if len(answers) >= 3 else 20 + len(answers))
    assert search_replay.replayed("key", lambda x: x == 21, other) == ("found", 21)
    assert search_replay.replayed("key", lambda x: x == 21, other) == ("found", 21)
    assert len(runs) == 2 and "key" in search_replay._UNREPLAYABLE


def test_smallest_failure_by_hypothesis_finds_the_same_input_replayed(monkeypatch):
    exercise = load_exercise("unigram-lm")
    role = next(role for role in exercise.roles() if search.generated(exercise, role).reductions is None)

    def judge(example):  # fails on every input that is not the simplest
        if len(repr(example)) > 20:
            return Failure(example, StudentAnswer(value=None), None)
        return None

    found = []
    real_find = search.hypothesis.find
    monkeypatch.setattr(search, "hypothesis", type("Hypothesis", (), {
        "find": staticmethod(lambda *args, **kwargs: found.append(1) or real_find(*args, **kwargs)),
        "settings": search.hypothesis.settings, "Phase": search.hypothesis.Phase,
        "HealthCheck": search.hypothesis.HealthCheck, "Verbosity": search.hypothesis.Verbosity}))
    first = search.smallest_failure(exercise, role, judge, seed=7)
    searches = len(found)  # the shrinking search, after generating the inputs (if not cached)
    again = search.smallest_failure(exercise, role, judge, seed=7)
    assert first is not None and repr(first.example) == repr(again.example)
    assert len(repr(first.example)) > 20
    assert searches >= 1 and len(found) == searches  # the second search replayed
