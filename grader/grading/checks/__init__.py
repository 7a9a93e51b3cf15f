"""Every kind of check a milestone can hold, behind one interface and one registry.

A check kind is a title and a function from a :class:`CheckContext` (the student's calls, the
sandbox, the exercise, the milestone, the check and its share of the points) to the check's
results. :data:`CHECK_KINDS` is the one registry: the engine dispatches through it, and a new
kind is one module with a ``TITLE`` and a ``run(context)`` plus one entry here.
"""

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


def _registry() -> dict[str, CheckKind]:
    from grader.grading.checks import cases, differential, efficiency, properties

    return {
        module.CHECK_ID: CheckKind(module.TITLE, module.run)
        for module in (cases, differential, properties, efficiency)
    }


CHECK_KINDS: dict[str, CheckKind] = {}


def check_kind(kind: str) -> CheckKind:
    """The registered check kind named ``kind`` (the spec's ``checks[].kind``)."""
    if not CHECK_KINDS:
        CHECK_KINDS.update(_registry())
    return CHECK_KINDS[kind]
