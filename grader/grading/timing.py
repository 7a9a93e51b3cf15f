"""Timing a student's function against the reference: CPU time, the verdict, the evidence.

The efficiency check of each family runs the student's function once in the sandbox on a
large input, whose trusted side measures the call's CPU time, and the reference in a trusted
process (best of a few runs, garbage collector kept out of the measurement). The verdict
compares the two with the exercise's ``max_ratio`` and caps the student's time at
``max_seconds``. Durations appear only in ``details`` under keys ending in ``_seconds``
(docs/architecture.md, "The JSON result"): messages say pass or fail and why, never how long
anything took, so two gradings differ only in those fields. The ratio is not stored;
renderers derive it from the two times.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Optional, Protocol

from grader.grading.student_calls import failure_message

# The sandbox stops a call by wall-clock time, while the verdict uses CPU time: the wall
# limit leaves room for a loaded machine, where a call's wall time exceeds its CPU time.
WALL_FACTOR = 1.5
WALL_GRACE_SECONDS = 1.0


class SpeedLimits(Protocol):
    max_ratio: float
    max_seconds: float


def cpu_time(run: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of ``run()`` in this process, and its result."""
    started = time.process_time()
    value = run()
    return time.process_time() - started, value


@contextmanager
def collector_frozen() -> Iterator[None]:
    """Objects the grader already holds are kept out of the garbage collector's scans, so a
    time measured inside does not depend on how much the grading process allocated before."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def best_time(run: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """The best CPU time of ``runs`` runs of ``run()`` (collector frozen), and the first result."""
    with collector_frozen():
        timings = [cpu_time(run) for _ in range(max(1, runs))]
    return min(seconds for seconds, _ in timings), timings[0][1]


def wall_timeout(settings: SpeedLimits) -> float:
    """The wall-clock limit of the student's call, derived from the CPU cap ``max_seconds``."""
    return round(settings.max_seconds * WALL_FACTOR + WALL_GRACE_SECONDS, 3)


def cpu_or_wall(outcome: Any) -> Optional[float]:
    """The CPU time the sandbox measured for a call, else its wall time."""
    cpu = getattr(outcome, "cpu_seconds", None)
    return cpu if cpu is not None else getattr(outcome, "seconds", None)


def speed_verdict(student_seconds: Optional[float], reference_seconds: float,
                  settings: SpeedLimits) -> Optional[str]:
    """None when fast enough, else which limit was exceeded (no durations in the words)."""
    if student_seconds is None:
        return "its time could not be measured"
    if student_seconds > settings.max_seconds:
        return f"it took longer than the {settings.max_seconds:g} s cap"
    if student_seconds > settings.max_ratio * reference_seconds:
        return f"it took more than {settings.max_ratio:g} times the reference's time"
    return None


def limits_text(settings: SpeedLimits) -> str:
    return f"at most {settings.max_ratio:g} times the reference's time and {settings.max_seconds:g} s"


def timing_details(student_seconds: Optional[float], reference_seconds: float,
                   settings: SpeedLimits) -> dict[str, Any]:
    """``details`` of kind ``timing`` (see :mod:`grader.report.details`), without a ratio."""
    return {
        "kind": "timing",
        "student_seconds": _rounded(student_seconds),
        "reference_seconds": _rounded(reference_seconds),
        "limit_ratio": settings.max_ratio,
        "limit_seconds": settings.max_seconds,
    }


def _rounded(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else round(seconds, 4)


def call_failure_message(name: str, outcome: Any, timeout: float, workload: str, *,
                         hint: str, first: str) -> str:
    """Why there is no answer to time: too slow or too big (``hint`` helps), the submission's
    overall time budget, or a crash (``first``, the milestone that shows it on small inputs)."""
    if outcome.kind == "timeout":
        return f"{name} did not finish within {timeout:g} s {workload}. {hint}"
    if outcome.kind == "memory":
        return f"{failure_message(name, outcome)} {workload}. {hint}"
    if outcome.kind == "budget":
        return (f"{failure_message(name, outcome)} before the efficiency check could time "
                f"{name}: the earlier checks used it up, so make every function quick on small "
                "inputs first.")
    return f"{failure_message(name, outcome)} {workload}; make the {first} milestone pass first."


def untimed_milestone_title(exercise: Any, role: str) -> str:
    """The title (quoted) of the milestone checking ``role`` without timing it, else a word."""
    for milestone in exercise.milestones:
        if milestone.function == role and milestone.check("efficiency") is None:
            return repr(milestone.title)
    return "training"
