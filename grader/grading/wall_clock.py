"""The wall-clock limit of one whole grading: the submission's time budget plus a margin for
the grader's own work, after which no student call runs and no further check starts.

The sandbox charges a submission's calls and restarts to its ``total_seconds``; the grader's
own work (reference answers, generated inputs, timing the reference) is not the student's
time, so it gets :func:`margin_seconds` on top. When a grading reaches
``total_seconds + margin_seconds`` from its start, the sandbox refuses further calls as over
the budget and every check not yet started fails with :meth:`GradingClock.overrun`'s reason;
only the check under way at that moment finishes (its calls already refused), and the report
is written. ``grade submit`` run as its own program starts the clock when its process started,
so the command's own start-up counts too (:func:`command_started`).
"""

from __future__ import annotations

import os
import sys
import time
from typing import Optional

MARGIN_FRACTION = 0.25
MIN_MARGIN_SECONDS = 5.0


def margin_seconds(total_seconds: float) -> float:
    """How long beyond the submission's budget a grading may run: a quarter of the budget,
    at least :data:`MIN_MARGIN_SECONDS` (30 s for the default 120 s budget)."""
    return max(MIN_MARGIN_SECONDS, MARGIN_FRACTION * float(total_seconds))


class GradingClock:
    """The deadline of one grading, started when the grading starts."""

    def __init__(self, total_seconds: float, started: Optional[float] = None) -> None:
        self.total_seconds = float(total_seconds)
        self.limit = self.total_seconds + margin_seconds(self.total_seconds)
        self.deadline = (time.monotonic() if started is None else started) + self.limit

    def overrun(self) -> Optional[str]:
        """Why a check may no longer start, or None while there is time."""
        if time.monotonic() < self.deadline:
            return None
        return (f"not graded: this grading reached its time limit of {self.limit:g} s (the "
                f"submission's budget of {self.total_seconds:g} s and "
                f"{self.limit - self.total_seconds:g} s for the grader's own work) before "
                "this check started")


def command_started(command: object) -> Optional[float]:
    """When the command ``command`` started, on the ``time.monotonic()`` clock: the process's
    start (:func:`process_started`) when the process was started to run it (its main program,
    the console script, imported the command as ``main``); None, "now", when a longer-lived
    program calls the command in its own process (a test runner, a notebook), whose start is
    not the command's."""
    program = sys.modules.get("__main__")
    if getattr(program, "main", None) is not command:
        return None
    return process_started()


def process_started() -> float:
    """When this process started, on the ``time.monotonic()`` clock (Linux: from /proc, so
    the interpreter's start-up and the command's imports count; elsewhere: now)."""
    try:
        with open("/proc/self/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime") as handle:
            uptime = float(handle.read().split()[0])
        ran = uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.monotonic()
    return time.monotonic() - max(0.0, min(ran, 3600.0))
