"""Running one test against one implementation: a sandbox call whose served functions are
that implementation's, read back as a :class:`~grader.families.bpe_tests.outcomes.Run`.

The test file runs only in the sandbox; the implementations run here, behind
:class:`grader.families.api.Served`, so the test reads nothing of them but their answers.
:class:`ReferenceAnswers` says what the reference answers to any call's arguments, taken from
the reference runs' own logs when a test made that call there, else answered here by
:meth:`Served.answered <grader.families.api.Served.answered>`, as the log would record it.
:func:`answers_alike` says whether a wrong BPE answers every call of a reference run exactly as
the reference did, so that the run need not be made again on it.
"""

from __future__ import annotations

from typing import Any, Optional

import time

from grader.families.api import NOT_COMPARABLE, Served, ServedCall, run_bounded
from grader.families.bpe_tests.implementations import REFERENCE, Implementation
from grader.families.bpe_tests.outcomes import INTERRUPTED, Call, Run, run_of
from grader.families.bpe_tests.verdicts import calls_nothing_changed

MAX_CALLS = 200
"""Served calls one test may make (more ends the test)."""
MAX_REQUEST_BYTES = 256 << 10
ALIKE_SECONDS = 0.25
"""The time answering a run's calls here may take to show they are answered alike; a slower
implementation's run is made in the sandbox, where its time counts against the test's."""


def call_of(served: ServedCall) -> Call:
    return Call(served.function, tuple(served.args), served.answer, served.error,
                tuple(served.kwargs.items()))


def run_test(box: Any, test: str, implementation: Implementation) -> Run:
    """``test`` called once in the sandbox with ``implementation`` serving its calls."""
    served = Served(implementation.functions(), max_calls=MAX_CALLS,
                    max_request_bytes=MAX_REQUEST_BYTES)
    outcome = box.call(test, [], served=served)
    return run_of(outcome.kind, outcome.error, tuple(call_of(call) for call in served.log()))


class ReferenceAnswers:
    """The reference's answer to a call's arguments, as ``(answer, error)``."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[Any, Optional[str]]] = {}
        self._here = Served(REFERENCE.functions())

    def learn(self, run: Run) -> None:
        """Keep the answers of a run against the reference."""
        for call in run.calls:
            if call.error is None or not call.error.startswith(INTERRUPTED):
                self._known.setdefault(_key(call), (call.answer, call.error))

    def __call__(self, call: Call) -> tuple[Any, Optional[str]]:
        key = _key(call)
        if key not in self._known:
            self._known[key] = self._here.answered(call.function, call.args, dict(call.kwargs))
        return self._known[key]


def _key(call: Call) -> str:
    return repr((call.function, call.args, call.kwargs))


def answers_alike(implementation: Implementation, run: Run) -> bool:
    """Whether ``implementation`` answers every call of ``run`` (a run on the reference) with
    the same value, of the same types, or the same error words, within :data:`ALIKE_SECONDS`
    in all. The test then receives the same answers to the same calls there."""
    if calls_nothing_changed(implementation, run):
        return True
    here = Served(implementation.functions())
    started = time.perf_counter()
    for call in run.calls:
        if call.error is not None and call.error.startswith(INTERRUPTED):
            return False
        if call.function not in implementation.changed:
            continue
        left = ALIKE_SECONDS - (time.perf_counter() - started)
        if left <= 0:
            return False
        answered = run_bounded(
            lambda call=call: here.answered(call.function, call.args, dict(call.kwargs)), left)
        if answered is NOT_COMPARABLE:
            return False
        answer, error = answered
        if error != call.error or (error is None and repr(answer) != repr(call.answer)):
            return False
    return time.perf_counter() - started <= ALIKE_SECONDS
