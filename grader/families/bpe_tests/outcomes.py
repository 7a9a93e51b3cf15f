"""What one test did against one implementation: its outcome and every call it made.

A :class:`Run` is read from the sandbox's outcome of calling the test and the served log of
that call (each ``train_bpe``/``encode`` call the test made, with what the implementation
answered): ``passed``, ``failed`` (an ``AssertionError``, with its message and line),
``timed-out``, ``crashed`` (any other exception or end) or ``unfinished`` (not run: the
grading's own time was used up). Grading compares runs only through
these values, so it is a pure function of them (:mod:`grader.families.bpe_tests.verdicts`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, Optional

Status = Literal["passed", "failed", "timed-out", "crashed", "unfinished"]
OUT_OF_TIME = ("the submission's time budget ran out", "the grading reached its time limit")
"""What the sandbox says of a call refused because the grading's own time is used up."""
INTERRUPTED = "TimeoutError: interrupted"
"""How the served log records a call stopped when the test's time ran out: no answer."""
AT_LINE = re.compile(r"\(at line (\d+)(?:, in (\w+))?\)$")


@dataclass(frozen=True)
class Call:
    """One served call: the function, its arguments, and the answer or the error raised."""

    function: str
    args: tuple
    answer: Any = None
    error: Optional[str] = None
    kwargs: tuple[tuple[str, Any], ...] = ()
    """Arguments passed by name, as (name, value) in the order given."""

    def same(self, other: "Call") -> bool:
        return (self.function, self.args, self.kwargs, self.answer, self.error) == (
            other.function, other.args, other.kwargs, other.answer, other.error)


@dataclass(frozen=True)
class Run:
    """One test run against one implementation."""

    status: Status
    message: str = ""
    line: Optional[int] = None
    calls: tuple[Call, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def same(self, other: "Run") -> bool:
        """The same outcome and the same calls with the same answers (durations aside)."""
        return (self.status == other.status and self.message == other.message
                and self.line == other.line and len(self.calls) == len(other.calls)
                and all(a.same(b) for a, b in zip(self.calls, other.calls)))


def run_of(kind: str, error: Optional[str], calls: tuple[Call, ...]) -> Run:
    """A :class:`Run` from a sandbox outcome's ``kind`` and ``error`` text."""
    if kind == "ok":
        return Run("passed", calls=calls)
    text = error or kind
    found = AT_LINE.search(text)
    line = int(found.group(1)) if found else None
    if kind == "budget" and text in OUT_OF_TIME:
        return Run("unfinished", text, None, calls)
    if kind == "timeout":
        return Run("timed-out", text, line, calls)
    if kind == "exception" and text.startswith("raised AssertionError"):
        return Run("failed", text, line, calls)
    return Run("crashed", text, line, calls)
