"""How soon the second try of a function that may be stuck in a loop is stopped.

A function that timed out once and never returned is tried again on the smallest input of the
check (:mod:`grader.grading.student_calls`); a second time-out takes it for stuck. That second
call keeps the call's wall-clock limit and, when its role says how the reference computes the
answer (``Role.reference``), is also stopped once the function itself, not the module's
import, has used :data:`CPU_STOP_SECONDS` of CPU time, provided that is at least
:data:`CPU_STOP_RATIO` times the CPU time the reference needs on the same input and less than
the call limit. CPU time, not wall time, so the stop does not come sooner on a busy machine;
the wording of either stop is the same whichever came first, so the report is too.
"""

from __future__ import annotations

import time
from typing import Any, Optional

from grader.spec import Exercise
from grader.spec.registry import role_of

CPU_STOP_SECONDS = 0.5
CPU_STOP_RATIO = 100
_RUNS = 3  # the reference's CPU time is the least of this many runs (the first may warm up)


def cpu_bound(exercise: Exercise, role: str, args: tuple) -> Optional[float]:
    """The bound on the function's own CPU time for a second try on ``args``, or None: the
    role gives no reference, the reference raises, needs ``CPU_STOP_SECONDS / CPU_STOP_RATIO``
    s of CPU time or more on them (the bound is then not *over* that many times the
    reference's), or the bound is not below the call limit."""
    reference = role_of(exercise, role).reference
    if reference is None or CPU_STOP_SECONDS >= float(exercise.limits.call_seconds):
        return None
    most = CPU_STOP_SECONDS / CPU_STOP_RATIO
    least = None
    for _ in range(_RUNS):
        used = _cpu_of(reference, exercise, args)
        if used is None:
            return None
        least = used if least is None else min(least, used)
        if least <= most / 4:
            break
    return CPU_STOP_SECONDS if least is not None and least < most else None


def _cpu_of(reference: Any, exercise: Exercise, args: tuple) -> Optional[float]:
    started = time.thread_time()
    try:
        reference(exercise, args)
    except Exception:  # noqa: BLE001 - an input the reference refuses sets no bound
        return None
    return time.thread_time() - started


def cpu_stop(bound: float, where: str = "") -> str:
    """The CPU-time stop of a second try, in words true whether or not it came before the
    call limit (its function's own CPU time: the module's import is not counted)."""
    return (f"at {bound:g} s of its own CPU time if sooner (over {CPU_STOP_RATIO} times the "
            f"reference's{where})")
