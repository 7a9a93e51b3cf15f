"""Running one test against one implementation: a sandbox call whose served functions are
that implementation's, read back as a :class:`~grader.families.bpe_tests.outcomes.Run`.

The test file runs only in the sandbox; the implementations run here, behind
:class:`grader.families.api.Served`, so the test reads nothing of them but their answers.
:class:`ReferenceAnswers` says what the reference answers to any call's arguments, taken from
the reference runs' own logs when a test made that call there, else answered here by
:meth:`Served.answered <grader.families.api.Served.answered>`, as the log would record it.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.families.api import Served, ServedCall
from grader.families.bpe_tests.implementations import REFERENCE, Implementation
from grader.families.bpe_tests.outcomes import INTERRUPTED, Call, Run, run_of

MAX_CALLS = 200
"""Served calls one test may make (more ends the test)."""
MAX_REQUEST_BYTES = 256 << 10


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

