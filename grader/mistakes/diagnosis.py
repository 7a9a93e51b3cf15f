"""Which catalogued mistakes reproduce one output exactly, and running a mistake bounded in time.

:func:`matching` runs every known mistake of a role (in its family's
:class:`~grader.spec.mistake_book.MistakeBook`) on one input and keeps those whose output *equals*
the given one in the family's canonical form, so a match is never a guess; the grader names a
milestone's mistakes from all its failing inputs at once (:mod:`grader.mistakes.narrowing`),
and this single-input form is what the catalogue's own checks use. Trusted-side code: nothing
here runs student code.

A mistake that raises, or runs past a small time limit, is skipped. An output equal to the
reference's matches nothing (a mistake that agrees with the reference on this input says
nothing about the student).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from grader.spec.mistake_book import NOT_COMPARABLE, Mistake, MistakeBook

__all__ = ["DEFAULT_TIME_LIMIT", "matching", "run_bounded"]

DEFAULT_TIME_LIMIT = 1.0
"""Seconds one mistake may run on one input before it is skipped."""

_NOT_COMPARABLE = NOT_COMPARABLE


def matching(book: MistakeBook, role: str, actual: object, inputs: Mapping[str, Any],
             options: Mapping[str, Any], *, expected: object = None,
             time_limit: float | None = DEFAULT_TIME_LIMIT) -> list[Mistake]:
    """The mistakes of ``role`` in ``book`` whose output equals ``actual`` on ``inputs``.

    ``options`` are the exercise's conventions as keyword arguments of the runs; an entry that
    is another choice of a convention, the one the exercise makes, is skipped. ``expected`` (the reference's
    output) is computed when not given.
    """
    given = {**inputs, **options}
    candidates = [m for m in book.for_role(role) if not m.is_convention_of(options)]
    return _matching(
        candidates, given, actual, expected, lambda: book.reference[role](**given),
        lambda value: book.canonical(role, value), time_limit,
    )


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
