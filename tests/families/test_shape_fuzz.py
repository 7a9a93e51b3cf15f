"""The trusted side never crashes on a student's value: every family's shape checks (each
role's ``shape`` hook on every shipped exercise of its family, and every function of the
family's ``shapes.py``), given any value that can cross the wire and more (huge ints, NaN and
the infinities, lone surrogates, bytes, deep and mixed containers, the sandbox's opaque and
unreadable markers), either return or raise ``ShapeError``."""

from __future__ import annotations

import importlib
import inspect
import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grader.families import FAMILIES
from grader.spec.hooks import ShapeError
from grader.sandbox.wire import MAX_INT_BITS, Opaque, Unreadable
from grader.spec import load_exercise
from grader.spec.registry import family_named
from grader.spec.loading import exercise_ids

HUGE_INTS = [10**400, -(10**400), 2**MAX_INT_BITS - 1, 2**1024, -(2**1024) + 1]

leaves = (
    st.none() | st.booleans() | st.integers() | st.sampled_from(HUGE_INTS)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(st.characters(blacklist_categories=()), max_size=8)
    | st.binary(max_size=8)
    | st.sampled_from([Opaque("set"), Opaque("generator"), Opaque("float(nan)"),
                       Unreadable("Liar", "dict", "redefines", ("__eq__",)),
                       Unreadable("int", "int", "too-large", ("5000",))])
)
keys = st.text(max_size=4) | st.integers() | st.sampled_from(HUGE_INTS) | st.tuples(
    st.text(max_size=3), st.text(max_size=3)) | st.lists(st.text(max_size=3), max_size=3).map(tuple)
pairs = st.tuples(leaves, leaves) | st.tuples(st.text(max_size=3), st.text(max_size=3))
anything = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4) | st.lists(children, max_size=4).map(tuple)
    | st.dictionaries(keys, children, max_size=4),
    max_leaves=16,
)
# Values close to each role's shape, so the checks get past their first test.
near_shapes = st.one_of(
    st.lists(pairs, max_size=4),
    st.lists(pairs.map(list), max_size=4),
    st.lists(st.tuples(pairs, leaves), max_size=4),
    st.lists(leaves, max_size=4),
    st.dictionaries(st.tuples(st.text(max_size=3), st.text(max_size=3)), leaves, max_size=4),
    st.dictionaries(st.lists(st.text(max_size=3), max_size=3).map(tuple), leaves, max_size=4),
    st.dictionaries(st.text(max_size=4), leaves, max_size=4),
    st.fixed_dictionaries({"char": leaves, "bpe": leaves, "word": leaves}),
    st.lists(st.fixed_dictionaries({"size": leaves, "avg_tokens": leaves, "params": leaves}),
             max_size=3),
    st.tuples(st.dictionaries(st.integers() | keys, leaves, max_size=3),
              st.lists(pairs, max_size=3)),
    st.tuples(leaves, pairs, pairs),
)
values = anything | near_shapes


def shipped_exercises(family: str) -> list:
    return [load_exercise(i) for i in exercise_ids() if load_exercise(i).family == family]


def shape_checks() -> list:
    """``(id, check)``: each check takes only the value and raises ShapeError or returns."""
    found = []
    for name, package in FAMILIES.items():
        exercises = shipped_exercises(name)
        for role in family_named(name).roles:
            for exercise in exercises:
                found.append((f"{name}:{role.name}:{exercise.id}",
                              lambda value, r=role, e=exercise: r.shape(e, value, "answer")))
        try:
            module = importlib.import_module(f"{package}.shapes")
        except ModuleNotFoundError:
            continue
        for function_name, function in vars(module).items():
            if not inspect.isfunction(function) or function.__module__ != module.__name__:
                continue
            if function_name.startswith("_"):
                continue
            parameters = inspect.signature(function).parameters
            if "exercise" in parameters:
                for exercise in exercises:
                    found.append((f"{name}.shapes.{function_name}:{exercise.id}",
                                  lambda value, f=function, e=exercise: f(e, value, "answer")))
            elif "accept_lists" in parameters:
                for accept in (False, True):
                    found.append((f"{name}.shapes.{function_name}:{accept}",
                                  lambda value, f=function, a=accept: f(value, "answer",
                                                                        accept_lists=a)))
            else:
                found.append((f"{name}.shapes.{function_name}",
                              lambda value, f=function: f(value, "answer")))
    return found


CHECKS = shape_checks()
# Every family whose students hand in code is fuzzed (the others have no role to shape-check).
assert {check_id.split(":")[0].split(".")[0] for check_id, _ in CHECKS} == {
    "bpe", "byte", "unigram", "wordpiece"}


@pytest.mark.parametrize("check", [check for _, check in CHECKS],
                         ids=[check_id for check_id, _ in CHECKS])
@settings(max_examples=120, deadline=None)
@given(values)
@example(10**400)
@example([{"size": 1, "avg_tokens": 10**400, "params": 1}])
@example({"a": 10**400})
@example(({0: "\ud800"}, []))
@example(({0: b"a"}, [("\udcff", b"a")]))
@example(math.nan)
@example([(10**400, ("a", "b"), "ab")])
def test_a_shape_check_returns_or_raises_shape_error(check, value):
    try:
        check(value)
    except ShapeError as error:
        assert str(error)
