"""A pool of every multiprocessing start method runs in the sandbox: ``spawn`` and
``forkserver`` workers are forked there, since a fresh interpreter could not import the
submission; each call's workers are gone when it ends."""

from __future__ import annotations

import pytest

from grader.sandbox.api import Sandbox, SandboxLimits

SOURCE = '''
import concurrent.futures
import multiprocessing


def square(x):
    return x * x


def pool_of(method):
    with multiprocessing.get_context(method).Pool(2) as pool:
        return pool.map(square, range(6))


def executor_of(method):
    context = multiprocessing.get_context(method)
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as executor:
        return list(executor.map(square, range(6)))


def after_set_start_method(method):
    multiprocessing.set_start_method(method, force=True)
    with multiprocessing.Pool(2) as pool:
        return pool.map(square, range(6))
'''


@pytest.fixture(scope="module")
def box(tmp_path_factory):
    path = tmp_path_factory.mktemp("start") / "student.py"
    path.write_text(SOURCE, encoding="utf-8")
    with Sandbox(path, SandboxLimits(call_seconds=10)) as sandbox:
        assert sandbox.load().ok
        yield sandbox


@pytest.mark.parametrize("function", ["pool_of", "executor_of", "after_set_start_method"])
@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_pool_of_every_start_method_answers(box, function, method):
    outcome = box.call(function, [method], timeout=10)
    assert outcome.ok, (outcome.kind, outcome.error)
    assert outcome.value == [x * x for x in range(6)]
