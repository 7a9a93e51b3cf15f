"""What every check kind is given, and what a check kind is."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grader.grading.naming import MilestoneObservations
    from grader.grading.student_calls import SandboxLike, StudentCalls
    from grader.result import CheckResult
    from grader.spec import Check, Exercise, Milestone


@dataclass(frozen=True)
class CheckContext:
    """What every check kind is given: whom to call, against what, for how many points."""

    calls: "StudentCalls"
    box: "SandboxLike"
    exercise: "Exercise"
    milestone: "Milestone"
    check: "Check"
    points: float
    observations: "MilestoneObservations | None" = None  # failing inputs, for naming mistakes


@dataclass(frozen=True)
class CheckKind:
    title: str
    run: Callable[[CheckContext], "list[CheckResult]"]
