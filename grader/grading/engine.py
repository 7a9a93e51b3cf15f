"""Grading one submission: find its exercise, run every milestone's checks in one sandbox.

:func:`grade_submission` is the whole grading behind ``grade submit``. The exercise comes
from the caller or from the submission's ``# exercise: ID`` header line. One sandbox serves
every call of the submission; the student's code never runs in this process. A submission
that does not load scores 0 everywhere with the reason in ``errors``; a missing function
zeroes only the milestones that need it. Both make the submission *not gradable*
(``GradeReport.mark_not_gradable``): platforms that tell an invalid submission from a wrong
one (PrairieLearn) return it without charging an attempt, while the other formats still show
the points of what did run. Each check kind lives in its own module; this one
only splits the points and dispatches. Afterwards a milestone that shows no real work earns
nothing (:mod:`grader.grading.evidence`), and only output printed on visible inputs is kept
(:mod:`grader.grading.output_ledger`).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path
from typing import Optional, Union

from grader.grading import ahead
from grader.grading.checks import CheckContext, check_kind
from grader.grading.evidence import require_evidence
from grader.grading.feedback import graded
from grader.grading.output_ledger import OutputLedger
from grader.grading.naming import MilestoneObservations
from grader.grading.scoring import check_points
from grader.grading.secrets import SeedSecretError, resolve_secret
from grader.grading.student_calls import StudentCalls
from grader.grading.submission_file import (
    SubmissionFileError,
    exercise_header,
    explain_load_error,
    prepared_submission,
)
from grader.result import GradeReport, MilestoneResult
from grader.spec import (
    ID_PATTERN,
    Exercise,
    ExerciseNotFound,
    Milestone,
    SpecError,
    load_exercise,
)

EXERCISE_ID = re.compile(ID_PATTERN)

class GradingSetupError(Exception):
    """The submission or its exercise cannot be determined; the message says how to fix it."""


# --------------------------------------------------------------------------- the exercise


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
            # The header is the student's text: it may name an exercise by id, never a file.
            raise GradingSetupError(
                f"the '# exercise:' header of {path.name} says {exercise[:60]!r}, which is not "
                f"an exercise id; write one of the ids ({_available()}) or pass a spec file "
                "with --exercise PATH"
            )
    try:
        return load_exercise(exercise)
    except ExerciseNotFound as error:
        if origin == "--exercise":
            raise GradingSetupError(f"exercise {str(exercise)!r} from {origin}: {error}") from None
        raise GradingSetupError(
            f"{origin} names exercise {exercise!r}, which is not found: {error}\n"
            f"If it is your course's own exercise, grade with --exercise PATH/TO/{exercise}.yaml, "
            "or add its folder with --exercises-dir DIR or GRADE_EXERCISES_PATH."
        ) from None
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
    seed_secret: Optional[str] = None,
    helper: bool = True,
) -> GradeReport:
    """Grade the student file at ``path``; raise :class:`GradingSetupError` for bad input.

    ``seed_secret`` picks the generated inputs and the timed corpus; without it the secret
    comes from the environment or the user's configuration (:mod:`grader.grading.secrets`).
    Raises ``SandboxUnavailable`` (from :mod:`grader.sandbox`) when ``strict_sandbox`` is set
    and the host cannot provide an isolation layer it should. An answers exercise is graded
    without a sandbox (there is no code to run), its variants seeded by ``seed_secret``.
    With ``helper`` the work that does not depend on the student's code is done in a helper
    process on another core (:mod:`grader.grading.ahead`); callers that already keep every
    core busy with gradings pass False.
    """
    from grader.sandbox import Sandbox, SandboxLimits

    started = time.perf_counter()
    path = Path(path)
    if not path.is_file():
        raise GradingSetupError(f"no such file: {path}")
    spec = resolve_exercise(path, exercise)
    if spec.kind == "answers":
        from grader.grading.answers import grade_answers

        return grade_answers(path, spec, secret=seed_secret)
    try:
        secret = resolve_secret(seed_secret)
    except SeedSecretError as error:
        raise GradingSetupError(str(error)) from None
    report = GradeReport(exercise=spec.id, title=spec.title)
    limits = SandboxLimits(
        call_seconds=spec.limits.call_seconds,
        memory_mib=spec.limits.memory_mib,
        total_seconds=spec.limits.total_seconds,
    )
    with contextlib.ExitStack() as stack:
        if helper:  # forked before the sandbox exists, so it holds none of its pipes
            stack.callback(ahead.stop_helper, ahead.start_helper(spec, secret))
        try:
            sandboxed, _ = stack.enter_context(prepared_submission(path))
        except SubmissionFileError as error:
            report.mark_not_gradable(str(error))
            report.milestones = [grade_milestone(None, None, m, str(error))  # type: ignore[arg-type]
                                 for m in spec.milestones]
            report.seconds = round(time.perf_counter() - started, 4)
            return report
        box = stack.enter_context(Sandbox(sandboxed, limits=limits, strict=strict_sandbox,
                                          allowed_imports=spec.allowed_imports))
        report.sandbox_layers = dict(box.layers)
        loaded = box.load()
        ledger = OutputLedger(box)
        ledger.loaded()
        if loaded.ok:
            calls = StudentCalls(box, spec, loaded.functions, file_name=path.name,
                                 secret=secret, output=ledger)
            blocked = {role: calls.missing_message(role) for role in spec.functions.roles()}
            for message in dict.fromkeys(m for m in blocked.values() if m):
                report.mark_not_gradable(message)
        else:
            calls = StudentCalls(box, spec, (), file_name=path.name, secret=secret, output=ledger)
            error = explain_load_error(loaded.error, spec.allowed_imports)
            reason = f"{path.name} could not be loaded: {error}"
            report.mark_not_gradable(reason)
            blocked = {role: reason for role in spec.functions.roles()}
        for milestone in spec.milestones:
            report.milestones.append(
                grade_milestone(calls, box, milestone, blocked.get(milestone.function))
            )
        report.student_output = ledger.text()
    require_evidence(report, spec)
    report.seconds = round(time.perf_counter() - started, 4)
    return report


def grade_milestone(
    calls: StudentCalls, box: object, milestone: Milestone, blocked: Optional[str]
) -> MilestoneResult:
    """Every check of ``milestone``, its points split by weight; all zero when ``blocked``."""
    result = MilestoneResult(id=milestone.id, title=milestone.title, max_score=milestone.points)
    shares = check_points(milestone.points, [check.weight for check in milestone.checks])
    observations = (MilestoneObservations(calls.exercise, milestone.function)
                    if calls is not None else None)
    for check, share in zip(milestone.checks, shares):
        kind = check_kind(check.kind)
        if blocked:
            result.checks.append(graded(check.kind, kind.title, share, False, message=blocked))
        else:
            context = CheckContext(calls, box, calls.exercise, milestone, check, share, observations)
            result.checks.extend(kind.run(context))
    if observations is not None:
        observations.settle()
    return result
