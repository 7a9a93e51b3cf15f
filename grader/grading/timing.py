"""Timing a student's function against the reference: the clock, the verdict, the evidence.

The efficiency check of each family runs the student's function once in the sandbox on a
large input and the reference in a trusted process (best of a few runs, garbage collector
kept out of the measurement). The exercise's efficiency settings say which clock the limits
measure (``clock``): ``cpu``, the CPU time of the call's processes as the sandbox's trusted
side measures it, or ``wall``, the elapsed time, as a course's own speed test measures it (a
parallel pre-tokenizer is then not charged for its workers), never counting more than the
CPU time, so that waiting for a core other load holds is not charged either
(:meth:`Clocks.on`); both clocks are reported as measured (:func:`clocked_details`). The verdict
compares the two with the exercise's ``max_ratio`` and caps the student's time at
``max_seconds``; a first ratio near the bound is measured again in interleaved rounds
(:func:`interleaved_rounds`) and the best ratio is judged with :data:`SPREAD` allowed for the
measurement, so the verdict does not turn on a machine's load. Durations appear only in ``details`` under keys ending in ``_seconds``
(docs/architecture.md, "The JSON result"): messages say pass or fail and why, never how long
anything took, so two gradings differ only in those fields. The ratio is not stored;
renderers derive it from the two times.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Optional, Protocol

from grader.grading.student_calls import failure_message

# The sandbox stops a call by wall-clock time, while the verdict uses CPU time: the wall
# limit leaves room for a loaded machine, where a call's wall time exceeds its CPU time.
WALL_FACTOR = 1.5
WALL_GRACE_SECONDS = 1.0


CLOCKS = ("cpu", "wall")
CLOCK_WORDS = {"cpu": "CPU time", "wall": "wall-clock time"}


class SpeedLimits(Protocol):
    max_ratio: float
    max_seconds: float


@dataclass(frozen=True)
class Clocks:
    """One run's time on both clocks (None where a clock was not measured)."""

    wall: Optional[float]
    cpu: Optional[float]

    def on(self, clock: str) -> Optional[float]:
        """The time on ``clock``. On ``wall`` it is the elapsed time, but never more than the
        CPU time where that was measured: time spent waiting for a core that other load held
        is not the code's. For serial code on an idle machine the two agree, and a parallel
        run's elapsed time is below its CPU time, so it is not charged for its workers."""
        if clock != "wall":
            return self.cpu
        if self.wall is None or self.cpu is None:
            return self.wall
        return min(self.wall, self.cpu)


def clock_of(settings: Any) -> str:
    """The clock the limits of ``settings`` measure (``cpu`` when they do not say)."""
    clock = getattr(settings, "clock", "cpu")
    return clock if clock in CLOCKS else "cpu"


def cpu_time(run: Callable[[], Any]) -> tuple[float, Any]:
    """CPU seconds of ``run()`` in this process, and its result."""
    started = time.process_time()
    value = run()
    return time.process_time() - started, value


def clocked(run: Callable[[], Any]) -> tuple[Clocks, Any]:
    """Wall and CPU seconds of ``run()`` in this process, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = run()
    return Clocks(time.perf_counter() - wall, time.process_time() - cpu), value


def best_clocks(run: Callable[[], Any], runs: int) -> tuple[Clocks, Any]:
    """The best wall and the best CPU time of ``runs`` runs of ``run()`` (collector frozen),
    and the first result."""
    with collector_frozen():
        timings = [clocked(run) for _ in range(max(1, runs))]
    return (Clocks(min(c.wall for c, _ in timings), min(c.cpu for c, _ in timings)),
            timings[0][1])


def call_clocks(outcome: Any) -> Clocks:
    """A sandbox call's wall time and, when the sandbox measured it, CPU time."""
    return Clocks(getattr(outcome, "seconds", None), getattr(outcome, "cpu_seconds", None))


@contextmanager
def collector_frozen() -> Iterator[None]:
    """Objects the grader already holds are kept out of the garbage collector's scans, so a
    time measured inside does not depend on how much the grading process allocated before."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def best_time(run: Callable[[], Any], runs: int, clock: str = "cpu") -> tuple[float, Any]:
    """The best time on ``clock`` of ``runs`` runs of ``run()`` (collector frozen), and the
    first result."""
    if clock == "cpu":
        with collector_frozen():
            timings = [cpu_time(run) for _ in range(max(1, runs))]
        return min(seconds for seconds, _ in timings), timings[0][1]
    clocks, value = best_clocks(run, runs)
    return clocks.on(clock) or 0.0, value


def wall_timeout(settings: SpeedLimits) -> float:
    """The wall-clock limit of the student's call, derived from the CPU cap ``max_seconds``."""
    return round(settings.max_seconds * WALL_FACTOR + WALL_GRACE_SECONDS, 3)


def cpu_or_wall(outcome: Any) -> Optional[float]:
    """The CPU time the sandbox measured for a call, else its wall time."""
    cpu = getattr(outcome, "cpu_seconds", None)
    return cpu if cpu is not None else getattr(outcome, "seconds", None)


def measured(outcome: Any, settings: Any) -> Optional[float]:
    """A call's time on the clock of ``settings`` (:meth:`Clocks.on`; CPU time falls back on
    wall time)."""
    if clock_of(settings) == "wall":
        return call_clocks(outcome).on("wall")
    return cpu_or_wall(outcome)


def speed_verdict(student_seconds: Optional[float], reference_seconds: float,
                  settings: SpeedLimits) -> Optional[str]:
    """None when fast enough, else which limit was exceeded (no durations in the words).

    The ratio bound allows :data:`SPREAD` more for the measurement's own spread, so a run whose
    best measured ratio is near the bound gets the same verdict on a quiet and on a busy
    machine (:func:`interleaved_rounds` measures it more than once first)."""
    if student_seconds is None:
        return "its time could not be measured"
    if student_seconds > settings.max_seconds:
        return f"it took longer than the {settings.max_seconds:g} s cap"
    if student_seconds > settings.max_ratio * SPREAD * reference_seconds:
        return over_ratio(settings)
    return None


SPREAD = 1.15
"""How far over the ratio bound a best measured ratio still passes: the spread of one
measurement of the same run beside other load (a CS336 trainer measured at 3.7 to 4.4 times
the reference in ten gradings), so that no verdict turns on it."""
NEAR = 1.5
"""A first ratio within this factor of the bound (either way) is measured again."""
EXTRA_ROUNDS = 2
"""Further rounds of a run near the bound, each timing the reference and the student's code
next to each other, in turn first."""


@dataclass
class Rounds:
    """The times of one timed run, on the clock of the limits: the student's code and the
    reference, round by round (a round's two runs side by side)."""

    student: list[Optional[float]]
    reference: list[float]

    def best_student(self) -> Optional[float]:
        measured = [seconds for seconds in self.student if seconds is not None]
        return min(measured) if measured else None

    def best_reference(self) -> float:
        return min(self.reference)

    def ratios(self) -> list[float]:
        return [s / r for s, r in zip(self.student, self.reference) if s is not None and r]


def near_bound(student_seconds: Optional[float], reference_seconds: float,
               settings: SpeedLimits) -> bool:
    """Whether a first measurement is close enough to the ratio bound to be measured again."""
    if student_seconds is None or not reference_seconds:
        return False
    ratio = student_seconds / reference_seconds
    return settings.max_ratio / NEAR <= ratio <= settings.max_ratio * NEAR


def settled_by_one_reference_run(student_seconds: Optional[float], reference_seconds: float,
                                 settings: SpeedLimits) -> bool:
    """Whether a first ratio taken against one run of the reference gives the verdict a best of
    more runs would, so that those runs can be left out. More runs only lower the reference's
    best time: a ratio above ``max_ratio * NEAR`` (or a run without a time) stays where it is
    judged without being measured again; one below ``max_ratio / NEAR ** 2`` stays below
    ``max_ratio / NEAR``, where it passes unmeasured again, unless the run took more than
    :data:`NEAR` times the reference's best, the spread :func:`near_bound` already allows for."""
    if student_seconds is None or not reference_seconds:
        return True
    ratio = student_seconds / reference_seconds
    return ratio > settings.max_ratio * NEAR or ratio < settings.max_ratio / NEAR ** 2


def interleaved_rounds(first: Rounds, settings: SpeedLimits,
                       run_student: Callable[[], Optional[float]],
                       run_reference: Callable[[], float]) -> Rounds:
    """``first``, and when its ratio is near the bound :data:`EXTRA_ROUNDS` more rounds, the
    reference first in one and the student's code first in the next, so that load that comes
    and goes weighs on both. A student's run that gives no time ends the rounds."""
    if not near_bound(first.best_student(), first.best_reference(), settings):
        return first
    for number in range(EXTRA_ROUNDS):
        if number % 2 == 0:
            reference = run_reference()
            student = run_student()
        else:
            student = run_student()
            reference = run_reference()
        if student is None:
            break
        first.student.append(student)
        first.reference.append(reference)
    return first


def rounds_details(details: dict[str, Any], rounds: Rounds) -> dict[str, Any]:
    """``details`` with each round's times (``student_runs_seconds``,
    ``reference_runs_seconds``) when there was more than one round: renderers show the range
    of the measured ratios from them."""
    if len(rounds.student) > 1:
        details["student_runs_seconds"] = [_rounded(s) for s in rounds.student]
        details["reference_runs_seconds"] = [_rounded(r) for r in rounds.reference]
    return details


def over_ratio(settings: SpeedLimits) -> str:
    """The verdict of a run over the ratio bound (no durations in the words)."""
    return f"it took more than {settings.max_ratio:g} times the reference's {_time_word(settings)}"


def _time_word(settings: Any) -> str:
    return "time" if clock_of(settings) == "cpu" else CLOCK_WORDS["wall"]


def limits_text(settings: SpeedLimits) -> str:
    return (f"at most {settings.max_ratio:g} times the reference's {_time_word(settings)}, "
            f"{round((SPREAD - 1) * 100)}% more allowed for the spread of measurement, and "
            f"{settings.max_seconds:g} s")


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


def clocked_details(student: Optional[Clocks], reference: Clocks,
                    settings: SpeedLimits) -> dict[str, Any]:
    """``details`` of kind ``timing`` on the clock of ``settings`` (``student_seconds`` and
    ``reference_seconds``), with the clock's name and both clocks as measured beside it
    (``student_cpu_seconds``, ``student_wall_seconds`` and the reference's)."""
    clock = clock_of(settings)
    details = timing_details(None if student is None else student.on(clock),
                             reference.on(clock) or 0.0, settings)
    details["clock"] = clock
    for who, clocks in (("student", student), ("reference", reference)):
        details[f"{who}_cpu_seconds"] = _rounded(None if clocks is None else clocks.cpu)
        details[f"{who}_wall_seconds"] = _rounded(None if clocks is None else clocks.wall)
    return details


def _rounded(seconds: Optional[float]) -> Optional[float]:
    return None if seconds is None else round(seconds, 4)


def call_failure_message(name: str, outcome: Any, timeout: float, workload: str, *,
                         hint: str, first: str, settings: Optional[SpeedLimits] = None) -> str:
    """Why there is no answer to time: too slow or too big (``hint`` helps), the submission's
    overall time budget, or a crash (``first``, the milestone that shows it on small inputs).
    With ``settings`` a time-out names the cap beside the point where the run was stopped."""
    if outcome.kind == "timeout":
        if settings is not None and timeout > settings.max_seconds:
            return (f"{name} did not finish {workload}: it was stopped after {timeout:g} s of "
                    f"wall-clock time. The cap is {settings.max_seconds:g} s "
                    f"({limits_text(settings)}); a run is stopped only later, to leave room for "
                    f"a loaded machine. {hint}")
        return f"{name} did not finish within {timeout:g} s {workload}. {hint}"
    if outcome.kind == "memory":
        return f"{failure_message(name, outcome)} {workload}. {hint}"
    if outcome.kind == "budget" and "budget" not in (outcome.error or ""):
        return f"{failure_message(name, outcome)} before the efficiency check could time {name}."
    if outcome.kind == "budget":
        return (f"{failure_message(name, outcome)} before the efficiency check could time "
                f"{name}: the earlier checks used it up, so make every function quick on small "
                "inputs first.")
    return f"{failure_message(name, outcome)} {workload}; make the {first} milestone pass first."


def stuck_run(calls: Any, role: str, settings: SpeedLimits) -> Optional[tuple[str, dict]]:
    """The efficiency check's message and ``details`` when ``role``'s function never returned
    on the inputs it was run on before (a loop, most likely): it is not timed, and given no
    advice on speed. None when it did return (or was not run)."""
    never = getattr(calls, "never_returned", None)
    message = never(role) if never is not None else None
    if message is None:
        return None
    details = timing_details(None, 0.0, settings)
    details["reference_seconds"] = None
    details["clock"] = clock_of(settings)
    return f"{message}. Its speed is not timed until it returns.", details


def untimed_milestone_title(exercise: Any, role: str) -> str:
    """The title (quoted) of the milestone checking ``role`` without timing it, else a word."""
    for milestone in exercise.milestones:
        if milestone.function == role and milestone.check("efficiency") is None:
            return repr(milestone.title)
    return "training"
