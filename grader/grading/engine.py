"""Grading one submission: find its exercise, run every milestone's checks in one sandbox.

:func:`grade_submission` is the whole grading behind ``grade submit``. The exercise comes
from the caller or from the submission's ``# exercise: ID`` header line. One sandbox serves
every call of the submission; the student's code never runs in this process. A submission
that does not load scores 0 everywhere with the reason in ``errors``; a missing function
zeroes only the milestones that need it. Each check kind lives in its own module; this one
only splits the points and dispatches.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Optional, Union

from grader.grading.checks import CheckContext, check_kind
from grader.grading.feedback import graded
from grader.grading.naming import MilestoneObservations
from grader.grading.scoring import check_points
from grader.grading.student_calls import StudentCalls
from grader.result import GradeReport, MilestoneResult
from grader.spec import ID_PATTERN, Exercise, Milestone, SpecError, load_exercise

HEADER = re.compile(r"^\s*#\s*exercise\s*:\s*(\S+)\s*$")
EXERCISE_ID = re.compile(ID_PATTERN)
HEADER_SEARCH_BYTES = 4096
HEADER_SEARCH_LINES = 20

class GradingSetupError(Exception):
    """The submission or its exercise cannot be determined; the message says how to fix it."""


# --------------------------------------------------------------------------- the exercise


def exercise_header(path: Path) -> Optional[str]:
    """The id in the submission's ``# exercise: ID`` line near the top, if there is one."""
    with path.open("rb") as handle:
        head = handle.read(HEADER_SEARCH_BYTES).decode("utf-8", errors="replace")
    for line in head.splitlines()[:HEADER_SEARCH_LINES]:
        match = HEADER.match(line)
        if match:
            return match.group(1)
    return None


def resolve_exercise(path: Path, exercise: Union[Exercise, str, os.PathLike, None]) -> Exercise:
    """The exercise to grade ``path`` against: the one given, else the header's."""
    if isinstance(exercise, Exercise):
        return exercise
    origin = "--exercise"
    if exercise is None:
        exercise = exercise_header(path)
        origin = f"the '# exercise:' header of {path.name}"
        if exercise is None:
            raise GradingSetupError(
                f"cannot tell which exercise {path.name} is for: it has no '# exercise: ID' "
                f"line at the top; add one or pass --exercise ID ({_available()})"
            )
        if not EXERCISE_ID.match(exercise):
            # The header is the student's text: it may name a shipped exercise, never a file.
            raise GradingSetupError(
                f"the '# exercise:' header of {path.name} says {exercise[:60]!r}, which is not "
                f"an exercise id; write one of the ids ({_available()}) or pass a spec file "
                "with --exercise"
            )
    try:
        return load_exercise(exercise)
    except SpecError as error:
        raise GradingSetupError(f"exercise {str(exercise)!r} from {origin}: {error}") from None


def _available() -> str:
    from grader.spec.loading import exercise_ids

    try:
        return "available: " + (", ".join(exercise_ids()) or "none")
    except FileNotFoundError as error:
        return str(error)


# --------------------------------------------------------------------------- grading


def grade_submission(
    path: Union[str, os.PathLike],
    exercise: Union[Exercise, str, os.PathLike, None] = None,
    *,
    strict_sandbox: bool = False,
) -> GradeReport:
    """Grade the student file at ``path``; raise :class:`GradingSetupError` for bad input.

    Raises ``SandboxUnavailable`` (from :mod:`grader.sandbox`) when ``strict_sandbox`` is set
    and the host cannot provide an isolation layer it should.
    """
    from grader.sandbox import Sandbox, SandboxLimits

    started = time.perf_counter()
    path = Path(path)
    if not path.is_file():
        raise GradingSetupError(f"no such file: {path}")
    spec = resolve_exercise(path, exercise)
    report = GradeReport(exercise=spec.id, title=spec.title)
    limits = SandboxLimits(
        call_seconds=spec.limits.call_seconds,
        memory_mib=spec.limits.memory_mib,
        total_seconds=spec.limits.total_seconds,
    )
    with Sandbox(path, limits=limits, strict=strict_sandbox) as box:
        report.sandbox_layers = dict(box.layers)
        loaded = box.load()
        if loaded.ok:
            calls = StudentCalls(box, spec, loaded.functions, file_name=path.name)
            blocked = {role: calls.missing_message(role) for role in spec.functions.roles()}
            report.errors.extend(message for message in blocked.values() if message)
        else:
            calls = StudentCalls(box, spec, (), file_name=path.name)
            reason = f"{path.name} could not be loaded: {loaded.error}"
            report.mark_not_gradable(reason)
            blocked = {role: reason for role in spec.functions.roles()}
        for milestone in spec.milestones:
            report.milestones.append(
                grade_milestone(calls, box, milestone, blocked.get(milestone.function))
            )
        report.student_output = box.output
    report.seconds = round(time.perf_counter() - started, 4)
    return report


def grade_milestone(
    calls: StudentCalls, box: object, milestone: Milestone, blocked: Optional[str]
) -> MilestoneResult:
    """Every check of ``milestone``, its points split by weight; all zero when ``blocked``."""
    result = MilestoneResult(id=milestone.id, title=milestone.title, max_score=milestone.points)
    shares = check_points(milestone.points, [check.weight for check in milestone.checks])
    observations = MilestoneObservations(calls.exercise, milestone.function)
    for check, share in zip(milestone.checks, shares):
        kind = check_kind(check.kind)
        if blocked:
            result.checks.append(graded(check.kind, kind.title, share, False, message=blocked))
        else:
            context = CheckContext(calls, box, calls.exercise, milestone, check, share, observations)
            result.checks.extend(kind.run(context))
    observations.settle()
    return result
