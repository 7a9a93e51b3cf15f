"""Naming a student's mistake: the catalogued mistakes that reproduce their output exactly.

When a check fails on some input, every known mistake of that role (in its family's
:class:`~grader.mistakes.kinds.MistakeBook`) is run on the same input and kept only if its
output *equals* the student's, in the family's canonical form, so a diagnosis is never a guess. This is trusted-side code: the student's output arrives as plain values
(already shape-checked by the grader), and nothing here runs student code.

A mistake that raises, or runs past a small time limit, is skipped. An output equal to the
reference's is never diagnosed (a mistake that agrees with the reference on this input says
nothing about the student).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from grader.mistakes.kinds import EMPTY_BOOK, NOT_COMPARABLE, Mistake, MistakeBook
from grader.result import Diagnosis
from grader.spec import Exercise
from grader.spec.family import family_of

__all__ = ["DEFAULT_TIME_LIMIT", "diagnoses", "matching", "name_mistakes", "run_bounded"]

DEFAULT_TIME_LIMIT = 1.0
"""Seconds one mistake may run on one input before it is skipped."""

_NOT_COMPARABLE = NOT_COMPARABLE


def matching(book: MistakeBook, role: str, actual: object, inputs: Mapping[str, Any],
             options: Mapping[str, Any], *, expected: object = None,
             time_limit: float | None = DEFAULT_TIME_LIMIT) -> list[Mistake]:
    """The mistakes of ``role`` in ``book`` whose output equals ``actual`` on ``inputs``.

    ``options`` are the exercise's conventions as keyword arguments of the runs; the entry of
    another tie rule equal to the exercise's own is skipped. ``expected`` (the reference's
    output) is computed when not given.
    """
    given = {**inputs, **options}
    own_rule = options.get("tie_break")
    candidates = [m for m in book.for_role(role) if m.tie_break is None or m.tie_break != own_rule]
    return _matching(
        candidates, given, actual, expected, lambda: book.reference[role](**given),
        lambda value: book.canonical(role, value), time_limit,
    )


def name_mistakes(exercise: Exercise, role: str, actual: Any, given: Mapping[str, Any]) -> list[Diagnosis]:
    """Every known mistake that reproduces ``actual`` on ``given`` under ``exercise``'s
    conventions; ``given`` holds the role's inputs in the grader's canonical forms."""
    book = family_of(exercise).mistakes or EMPTY_BOOK
    if not book.for_role(role):
        return []
    return diagnoses(matching(book, role, actual, given, book.options(exercise, role)))


def diagnoses(mistakes: Iterable[Mistake]) -> list[Diagnosis]:
    """The mistakes as result-model diagnoses, the hint as the message."""
    return [Diagnosis(id=m.id, title=m.title, message=m.hint) for m in mistakes]


# --- matching ------------------------------------------------------------------------------


def _matching(
    candidates: Iterable[Mistake],
    inputs: Mapping[str, Any],
    actual: object,
    expected: object,
    compute_expected: Callable[[], object],
    canonical: Callable[[object], object],
    time_limit: float | None,
) -> list[Mistake]:
    actual_form = canonical(actual)
    if actual_form is _NOT_COMPARABLE:
        return []
    if expected is None:
        expected = run_bounded(compute_expected, time_limit)
    if expected is _NOT_COMPARABLE or canonical(expected) == actual_form:
        return []
    return [
        mistake
        for mistake in candidates
        if canonical(run_bounded(lambda: mistake.output_on(inputs), time_limit)) == actual_form
    ]


def run_bounded(compute: Callable[[], object], seconds: float | None) -> object:
    """``compute()``, or ``_NOT_COMPARABLE`` if it raised or ran longer than ``seconds``."""
    started = time.perf_counter()
    try:
        with _time_limit(seconds):
            output = compute()
    except Exception:  # a mistake that crashes on this input reproduces nothing
        return _NOT_COMPARABLE
    if seconds is not None and time.perf_counter() - started > seconds:
        return _NOT_COMPARABLE
    return output


class _TimeLimitExceeded(Exception):
    pass


@contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Interrupt the body after ``seconds`` where a timer signal can be used.

    Only the main thread can receive signals, and an interval timer someone else set must not
    be disturbed; elsewhere the body runs to completion and the caller discards a late result.
    """
    if seconds is None or not _can_interrupt():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _TimeLimitExceeded(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _can_interrupt() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    )
