"""Grading many submissions at once, each in its own forked process, at most ``jobs`` at a time.

Every grading is exactly ``grade_submission(path, exercise, **options)`` (its own sandbox, the
same report as ``grade submit``), run in a child forked from this process so nothing is
imported twice and nothing one grading leaves behind reaches the next. The child sends back
plain data over a pipe (the stored report already encoded, with its summary) and exits; only
this process writes results. A child that dies, or outlives its watchdog (the exercise's total time limit
plus a margin), yields a ``grader-error`` outcome for that submission alone. Before the first
fork this process does once what every grading would otherwise redo (importing the sandbox
and the checks, probing the host's isolation layers, generating each exercise's inputs and
efficiency corpus: :func:`grader.grading.ahead.prepare`), so the children inherit it. On Ctrl-C
(``KeyboardInterrupt``) no new grading starts, the running ones are stopped, and
:func:`run_tasks` returns with ``interrupted`` set: every outcome already delivered stands.

A child never outlives this process: on Linux it asks the kernel for SIGINT when its parent
dies (``PR_SET_PDEATHSIG``), and stops as on Ctrl-C, cleaning up its sandbox, within
:data:`STOP_GRACE_SECONDS`. It also closes every read end of a result pipe it inherited (its
own and its running siblings'), so that, on any platform, sending a result larger than a pipe
holds to a parent that is gone fails at once instead of blocking forever. Ctrl-C reaches a
child as its own clean stop, never as a traceback on the user's terminal: the child is forked
with SIGINT blocked and unblocks it once its handler is in place, a ``KeyboardInterrupt`` the
interpreter can only report as "ignored" (raised inside a garbage-collector callback) is
dropped (the grace ends the child anyway), and the child ends with ``os._exit`` once it has
sent its outcome, so nothing runs after it.
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from grader.batch.summaries import Summary
from grader.spec import Exercise

WATCHDOG_MARGIN_SECONDS = 60.0
STOP_GRACE_SECONDS = 5.0
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@dataclass(frozen=True)
class Task:
    key: int
    path: Path
    exercise: Exercise
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def watchdog_seconds(self) -> float:
        limits = self.exercise.limits
        total = limits.total_seconds or 0.0
        return 2 * float(total) + WATCHDOG_MARGIN_SECONDS


@dataclass
class Outcome:
    """What a grading process sends back: the stored report as JSON text with its summary
    (both made in the grading's process), or the error that kept it from finishing."""

    key: int
    report_json: str | None = None
    summary: Summary | None = None
    score: float = 0.0
    max_score: float = 0.0
    student_output: str = ""
    error: str = ""
    seconds: float = 0.0

    @property
    def report(self) -> dict[str, Any] | None:
        return json.loads(self.report_json) if self.report_json is not None else None

    @property
    def outcome(self) -> str:
        if self.report_json is None:
            return "grader-error"
        return "graded" if self.summary is None or self.summary.gradable else "not-gradable"


@dataclass
class _Running:
    task: Task
    process: Any
    reader: Connection
    started: float


def run_tasks(
    tasks: list[Task],
    jobs: int,
    on_done: Callable[[Outcome], None],
    on_start: Callable[[Task], None] | None = None,
    on_tick: Callable[[], None] | None = None,
) -> bool:
    """Grade every task, calling ``on_done`` in this process as each finishes (and
    ``on_tick`` at least once a second meanwhile); return whether the run was interrupted
    (Ctrl-C) before all were done."""
    context = multiprocessing.get_context("fork")
    if tasks:
        warm_up({id(task.exercise): task.exercise for task in tasks}.values(),
                tasks[0].options.get("seed_secret"))
    # What the children inherit stays out of their garbage collector's scans: a scan would
    # touch, and so copy, every inherited page in every child.
    gc.freeze()
    pending = list(reversed(tasks))
    running: dict[int, _Running] = {}
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                task = pending.pop()
                _start(context, task, running)
                if on_start:
                    on_start(task)
            _collect(running, on_done)
            if on_tick:
                on_tick()
    except KeyboardInterrupt:
        _stop_all(running, on_done)
        return True
    finally:
        gc.unfreeze()
    return False


def warm_up(exercises: Iterable[Exercise], seed_secret: str | None = None) -> None:
    """Fill the caches forked children inherit (the generated inputs and the timed corpus
    under the batch's secret); a failure here only costs speed."""
    try:
        import grader.grading.engine  # noqa: F401
        from grader.grading import prepared
        from grader.grading.secrets import resolve_secret
        from grader.sandbox.layers import probe_layers

        probe_layers()
        secret = resolve_secret(seed_secret)
        for exercise in exercises:
            prepared.prepare(exercise, secret)
    except Exception:  # noqa: BLE001 - each grading will report the problem itself
        pass


def _start(context: Any, task: Task, running: dict[int, _Running]) -> None:
    """Fork the grading of ``task`` and add it to ``running``."""
    reader, writer = context.Pipe(duplex=False)
    inherited = [reader, *(job.reader for job in running.values())]
    process = context.Process(target=_child, args=(task, writer, inherited, os.getpid()),
                              daemon=True)
    # A Ctrl-C during the fork waits in the child until its own handler is in place, and in
    # this process until the child is in ``running``, so that _stop_all stops it too.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process.start()
        writer.close()
        running[task.key] = _Running(task, process, reader, time.monotonic())
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _collect(running: dict[int, _Running], on_done: Callable[[Outcome], None],
             timeout: float = 1.0) -> None:
    handles = {}
    for key, job in running.items():
        handles[job.reader] = key
        handles[job.process.sentinel] = key
    ready = wait(list(handles), timeout=timeout)
    finished = {handles[handle] for handle in ready}
    now = time.monotonic()
    for key, job in list(running.items()):
        if key in finished:
            outcome = _receive(job)
        elif now - job.started > job.task.watchdog_seconds:
            _kill(job)
            outcome = Outcome(key, error=f"grading did not finish within "
                                         f"{job.task.watchdog_seconds:.0f} s and was stopped",
                              seconds=now - job.started)
        else:
            continue
        del running[key]
        job.reader.close()
        job.process.join(timeout=STOP_GRACE_SECONDS)
        on_done(outcome)


def _receive(job: _Running) -> Outcome:
    try:
        if job.reader.poll():
            return job.reader.recv()
    except (EOFError, OSError):
        pass
    job.process.join(timeout=STOP_GRACE_SECONDS)
    code = job.process.exitcode
    how = (f"was killed by {_signal_name(-code)}" if code is not None and code < 0
           else f"exited with status {code}")
    return Outcome(job.task.key, error=f"the grading process {how} before reporting",
                   seconds=time.monotonic() - job.started)


def _stop_all(running: dict[int, _Running], on_done: Callable[[Outcome], None]) -> None:
    for job in running.values():
        if job.process.is_alive():
            os.kill(job.process.pid, signal.SIGINT)
    deadline = time.monotonic() + STOP_GRACE_SECONDS
    for job in running.values():
        job.process.join(timeout=max(0.0, deadline - time.monotonic()))
        if job.process.is_alive():
            _kill(job)
        job.reader.close()
    running.clear()


def _kill(job: _Running) -> None:
    if job.process.is_alive():
        job.process.kill()
        job.process.join(timeout=STOP_GRACE_SECONDS)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _child(task: Task, writer: Connection, inherited: list[Connection], parent: int) -> None:
    """In the forked child: grade, send the outcome, exit."""
    signal.signal(signal.SIGINT, _stop_within_grace)
    sys.unraisablehook = _quiet_about_interrupts(sys.unraisablehook)
    try:
        # A Ctrl-C that came during the fork is delivered here, inside the try.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        _die_with_parent(parent)
        for reader in inherited:
            reader.close()
        outcome = _graded(task)
        writer.send(outcome)
        writer.close()
        sys.stdout.flush()
        sys.stderr.flush()
    except KeyboardInterrupt:
        os._exit(130)
    except (OSError, ValueError):
        os._exit(1)
    os._exit(0)


def _graded(task: Task) -> Outcome:
    """The outcome of grading ``task`` (a grader error as this submission's outcome)."""
    from grader.batch.stored import stored_output, stored_report_json
    from grader.batch.summaries import summarize
    from grader.grading.engine import grade_submission

    started = time.monotonic()
    try:
        # The batch keeps every core busy already: no helper process per grading.
        report = grade_submission(task.path, task.exercise, helper=False, **dict(task.options))
        data, text = stored_report_json(report)
        return Outcome(task.key, report_json=text, summary=summarize(data),
                       score=data["score"], max_score=data["max_score"],
                       student_output=stored_output(report.student_output),
                       seconds=time.monotonic() - started)
    except Exception as error:  # noqa: BLE001 - reported as this submission's grader error
        last = traceback.extract_tb(error.__traceback__)[-1:]
        where = f" at {Path(last[0].filename).name}:{last[0].lineno}" if last else ""
        return Outcome(task.key, error=f"{type(error).__name__}: {error}{where}",
                       seconds=time.monotonic() - started)


def _quiet_about_interrupts(hook: Callable[[Any], None]) -> Callable[[Any], None]:
    """``hook``, but silent on a ``KeyboardInterrupt`` the interpreter could not raise (one
    raised inside a garbage-collector callback): the stop it stood for ends the child within
    the grace anyway."""

    def unraisable(info: Any) -> None:
        if not isinstance(info.exc_value, KeyboardInterrupt):
            hook(info)

    return unraisable


def _stop_within_grace(signum: int, frame: Any) -> None:
    """SIGINT in a child (Ctrl-C, the batch stopping it, or its parent's death): stop as
    ``KeyboardInterrupt`` does, cleaning up on the way out, but end within the grace even if
    the clean-up does not (after its parent's death nobody else would end it). Once stopping,
    a further SIGINT (the batch's own after the terminal's Ctrl-C) changes nothing."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    timer = threading.Timer(STOP_GRACE_SECONDS, os._exit, args=(130,))
    timer.daemon = True
    timer.start()
    raise KeyboardInterrupt


def _die_with_parent(parent: int) -> None:
    """Have the kernel send this process SIGINT when ``parent`` dies (Linux); exit now if it
    already has. Elsewhere a child only outlives a killed batch until its grading ends."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGINT), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it died before the request was made
        os._exit(1)
