"""Grading one submission: find its exercise, open the submission, run every milestone's checks.

:func:`grade_submission` is the whole grading behind ``grade submit``. The exercise comes
from the caller or from the submission's ``# exercise: ID`` header line, and its family says
how the submission is opened (:mod:`grader.grading.submissions`): code in one sandbox that
serves every call (the student's code never runs in this process), or a data file read here.
A submission that does not load scores 0 everywhere with the reason in ``errors``; a missing
function zeroes only the milestones that need it. Both make the submission *not gradable*
(``GradeReport.mark_not_gradable``): platforms that tell an invalid submission from a wrong
one (PrairieLearn) return it without charging an attempt, while the other formats still show
the points of what did run. Each check kind lives in its own module; this one only splits the
points and dispatches. A milestone that shows no real work earns nothing
(:mod:`grader.grading.evidence`): that is settled on the milestones' results before the report
is built, and nothing changes the report afterwards. Only output printed on visible inputs is
kept (:mod:`grader.grading.output_ledger`). The submission file is read from disk once.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from pathlib import Path
from typing import Callable, Optional, Union

from grader.grading.checks import check_kind
from grader.grading.evidence import withhold_unearned
from grader.grading.feedback import graded
from grader.grading.naming import MilestoneObservations, asker
from grader.grading.scoring import check_points
from grader.grading.student_calls import StudentCalls
from grader.grading.submission_file import (
    HandedIn,
    SubmissionFileError,
    Submitted,
    exercise_header,
    handed_in,
    read_submission,
)
from grader.grading.submissions import GradingSetupError, submission_kind
from grader.grading.wall_clock import GradingClock
from grader.result import NOT_GRADABLE_PREFIX, GradeReport, MilestoneResult
from grader.spec.hooks import CheckContext, Opened, Submitter
from grader.spec import (
    ID_PATTERN,
    Exercise,
    ExerciseNotFound,
    Milestone,
    SpecError,
    exercise_ids,
    load_exercise,
)

EXERCISE_ID = re.compile(ID_PATTERN)


# --------------------------------------------------------------------------- the exercise


def resolve_exercise(submitted: Submitted,
                     exercise: Union[Exercise, str, os.PathLike, None]) -> Exercise:
    """The exercise to grade ``submitted`` against: the one given, else the header's."""
    if isinstance(exercise, Exercise):
        return exercise
    origin = "--exercise"
    if exercise is None:
        handed = handed_in(submitted)
        path = handed.path
        exercise = exercise_header(handed)
        origin = f"the '# exercise:' header of {path.name}"
        if exercise is None:
            unreadable = _why_unreadable(handed)
            if unreadable:
                raise GradingSetupError(unreadable)
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
            raise GradingSetupError(f"{origin}: {error}") from None
        if error.suggestion is not None:
            raise GradingSetupError(f"{origin}: {error}") from None
        raise GradingSetupError(
            f"{origin} names exercise {exercise!r}, which is not found: {error}\n"
            f"If it is your course's own exercise, grade with --exercise PATH/TO/{exercise}.yaml, "
            "or add its folder with --exercises-dir DIR or GRADE_EXERCISES_PATH."
        ) from None
    except SpecError as error:
        raise GradingSetupError(f"{origin}: {error}") from None


def _why_unreadable(handed: HandedIn) -> Optional[str]:
    """Why the file has no header when the reason is not a missing line: it is empty, not
    text, or too large (the student's fix comes first, before any talk of headers)."""
    path = handed.path
    try:
        text = read_submission(handed).text
    except SubmissionFileError as error:
        return str(error)
    if not text.strip():
        return (f"{path.name}: the file is empty; write your solution in it (start from the "
                "stub: grade stub EXERCISE -o student.py) and save it before submitting")
    return None


def _available() -> str:
    try:
        return "available: " + (", ".join(exercise_ids()) or "none")
    except FileNotFoundError as error:
        return str(error)


# --------------------------------------------------------------------------- grading


def grade_submission(
    submitted: Submitted,
    exercise: Union[Exercise, str, os.PathLike, None] = None,
    *,
    strict_sandbox: bool = False,
    seed_secret: Optional[str] = None,
    helper: bool = True,
    submitter: Submitter = None,
    on_check: Optional[Callable[[int, int, str], None]] = None,
    started: Optional[float] = None,
) -> GradeReport:
    """Grade the student file ``submitted`` (a path, or a file read already: it is read from
    disk once); raise :class:`GradingSetupError` for bad input.

    ``seed_secret`` picks the generated inputs and the timed corpus; without it the secret
    comes from the environment or the user's configuration (:mod:`grader.grading.secrets`).
    Raises ``SandboxUnavailable`` (from :mod:`grader.sandbox`) when ``strict_sandbox`` is set
    and the host cannot provide an isolation layer it should. A family whose students hand in
    a data file opens it its own way (no code runs, no sandbox starts); the checks are the same.
    With ``helper`` the work that does not depend on the student's code is done in a helper
    process on another core (:mod:`grader.grading.ahead`); callers that already keep every
    core busy with gradings pass False. ``submitter`` is who handed the file in, as the
    platform or the batch knows them (a family whose work is per student checks the file
    against it): an id, a ``NoSubmitter`` saying why the door names no one (no variant
    credit), or None where there is no door (the file's own ``student:`` line is taken).
    ``on_check(done, total, what)`` is told before each check starts (progress). ``started``
    (on the ``time.monotonic()`` clock, default now) is when the grading's wall-clock limit
    (:mod:`grader.grading.wall_clock`) began to run.
    """
    began = time.perf_counter()
    if not isinstance(submitted, HandedIn) and not Path(submitted).is_file():
        raise GradingSetupError(f"no such file: {Path(submitted)}")
    handed = handed_in(submitted)
    spec = resolve_exercise(handed, exercise)
    clock = GradingClock(spec.limits.total_seconds, started)
    milestones: list[MilestoneResult] = []
    with contextlib.ExitStack() as stack:
        if handed.problem is not None:
            unreadable = handed.problem
            opened = Opened(not_gradable=[unreadable], blocked=lambda milestone: unreadable)
        else:
            opened = submission_kind(spec).open(stack, handed.path, spec, seed_secret=seed_secret,
                                                strict_sandbox=strict_sandbox, helper=helper,
                                                submitter=submitter, content=handed.raw)
        total, done = sum(len(milestone.checks) for milestone in spec.milestones), 0
        current, at = "", 0
        calls = opened.calls if isinstance(opened.calls, StudentCalls) else None
        if hasattr(opened.box, "deadline"):  # no student call runs past the grading's limit
            opened.box.deadline = clock.deadline

        def progress(timeouts: str = "") -> None:
            if on_check is not None:  # the check under way, and the time-outs so far
                timeouts = timeouts or (calls.timeouts_note() if calls is not None else "")
                on_check(at, total, f"{timeouts}; {current}" if timeouts else current)

        if calls is not None and on_check is not None:
            calls.on_timeout = progress
        for milestone in spec.milestones:
            def told(what: str, where: str = milestone.id) -> None:
                nonlocal done, current, at
                current, at = f"{where}: {what}", done
                progress()
                done += 1
            milestones.append(
                grade_milestone(opened.calls, opened.box, milestone, opened.blocked(milestone), spec,
                                on_check=told, overrun=clock.overrun)
            )
        output = opened.output()
    withhold_unearned(milestones, spec)
    return GradeReport(
        exercise=spec.id, title=spec.title, milestones=milestones,
        errors=[NOT_GRADABLE_PREFIX + reason for reason in opened.not_gradable] + opened.notices,
        sandbox_layers=dict(opened.layers), student_output=output, notes=list(opened.notes),
        seconds=round(time.perf_counter() - began, 4))


def grade_milestone(
    calls: Optional[StudentCalls], box: object, milestone: Milestone, blocked: Optional[str],
    exercise: Optional[Exercise] = None, on_check: Optional[Callable[[str], None]] = None,
    overrun: Optional[Callable[[], Optional[str]]] = None,
) -> MilestoneResult:
    """Every check of ``milestone``, its points split by weight; all zero when ``blocked``.
    ``on_check`` is told the kind of each check before it starts; a check for which
    ``overrun`` gives a reason (the grading's time limit is reached) fails with it unstarted."""
    exercise = exercise or (calls.exercise if calls is not None else None)
    result = MilestoneResult(id=milestone.id, title=milestone.title, max_score=milestone.points)
    shares = check_points(milestone.points, [check.weight for check in milestone.checks])
    observations = (MilestoneObservations(calls.exercise, milestone.function,
                                          ask=asker(calls, milestone.function))
                    if calls is not None else None)
    for check, share in zip(milestone.checks, shares):
        kind = check_kind(check.kind, exercise)
        if on_check is not None:
            on_check(check.kind)
        late = overrun() if overrun is not None and not blocked else None
        if blocked or late:
            result.checks.append(graded(check.kind, kind.title, share, False,
                                        message=blocked or late))
        else:
            context = CheckContext(calls, box, calls.exercise, milestone, check, share, observations)
            result.checks.extend(kind.run(context))
    if observations is not None:
        explained = observations.work_explained(observations.settle())
        result.work_explained_by = explained.mistake.id if explained is not None else None
        result.answers_trivial = observations.answers_trivial()
    return result
