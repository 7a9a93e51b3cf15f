"""The one internal result model every output format is rendered from.

A grading is a :class:`GradeReport`: milestones, each a list of checks with points,
pass/fail, visibility, a message and an optional diagnosis. ``to_json`` is the
``--format json`` contract in docs/architecture.md. Measured durations live only in fields named
``seconds`` or ending in ``_seconds``, never inside messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Visibility = Literal["visible", "hidden"]


@dataclass(frozen=True)
class Diagnosis:
    """A known mistake whose output equals the student's on the failing input."""

    id: str
    title: str
    message: str
    evidence: str = ""  # on how many failing inputs it reproduces the student's output

    def to_json(self) -> dict[str, str]:
        data = {"id": self.id, "message": self.message}
        if self.evidence:
            data["evidence"] = self.evidence
        return data


@dataclass
class CheckResult:
    """One graded check.

    ``details`` holds structured evidence for rich renderers (input, expected, actual, the
    first differing merge step with its pair counts...); it is always ``None`` for hidden
    checks, whose feedback says only pass or fail.
    """

    id: str
    title: str
    passed: bool
    score: float
    max_score: float
    visibility: Visibility = "visible"
    message: str = ""
    diagnoses: list[Diagnosis] = field(default_factory=list)
    details: dict[str, Any] | None = None
    seconds: float | None = None
    # The student's run beside the reference's, step by step, for the HTML step view (shape
    # in grader.report.step_view); None for hidden checks and checks without steps. Not part
    # of the JSON result.
    steps: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    # Whether this check is work a do-nothing implementation cannot do (a case or generated
    # input whose right answer is not the trivial one). Used for scoring, never rendered.
    real_work: bool = field(default=False, repr=False, compare=False)
    # passed, but only against what a do-nothing function answers (e.g. counts right for the
    # student's own do-nothing tokenize): no evidence of a solution
    trivial_pass: bool = field(default=False, repr=False, compare=False)

    @property
    def diagnosis(self) -> Diagnosis | None:
        return self.diagnoses[0] if self.diagnoses else None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "title": self.title,
            "passed": self.passed,
            "score": self.score,
            "max_score": self.max_score,
            "visibility": self.visibility,
            "message": self.message,
            "diagnosis": self._diagnosis_json(),
            "diagnoses": [d.to_json() | {"title": d.title} for d in self.diagnoses],
            "details": self.details,
        }
        if self.seconds is not None:
            data["seconds"] = self.seconds
        return data

    def _diagnosis_json(self) -> dict[str, str] | None:
        first = self.diagnosis
        return first.to_json() if first else None


@dataclass
class MilestoneResult:
    id: str
    title: str
    checks: list[CheckResult] = field(default_factory=list)
    max_score: float = 0.0
    # The id of the catalogued mistake that explains every visible input the milestone got
    # wrong, made on top of real work (grader.grading.evidence). Used for scoring, not rendered.
    work_explained_by: str | None = field(default=None, repr=False, compare=False)
    # every visible answer it got wrong is a crash or a do-nothing answer (for grade audit)
    answers_trivial: bool = field(default=False, repr=False, compare=False)
    # why its checks' points are withheld (no evidence of real work), None when they are not;
    # the human reports say it beside the passed checks that earn nothing
    withheld_because: str | None = field(default=None, repr=False, compare=False)

    @property
    def score(self) -> float:
        return round(sum(check.score for check in self.checks), 6)

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(check.passed for check in self.checks)

    @property
    def hidden_count(self) -> int:
        return sum(check.visibility == "hidden" for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "score": self.score,
            "max_score": self.max_score,
            "passed": self.passed,
            "checks": [check.to_json() for check in self.checks],
        }


NOT_GRADABLE_PREFIX = "Not gradable: "


def display_error(error: str) -> str:
    """An entry of ``GradeReport.errors`` as a student should read it (without the marker)."""
    return error[len(NOT_GRADABLE_PREFIX):] if error.startswith(NOT_GRADABLE_PREFIX) else error


@dataclass
class GradeReport:
    """The whole grading of one submission.

    ``errors`` lists what kept checks from running. An entry starting with
    :data:`NOT_GRADABLE_PREFIX` (added by :meth:`mark_not_gradable`) means the submission could
    not be graded at all: platforms that tell "invalid" from "wrong" (PrairieLearn's
    ``gradable`` flag) charge no attempt for it.
    """

    exercise: str
    title: str
    milestones: list[MilestoneResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    sandbox_layers: dict[str, bool] = field(default_factory=dict)
    student_output: str = ""
    seconds: float | None = None
    # How the submission was read and run, in plain words for the student (a notebook's cells
    # graded, magics dropped, a cell that raised): shown before the milestones.
    notes: list[str] = field(default_factory=list)

    def mark_not_gradable(self, reason: str) -> None:
        self.errors.append(NOT_GRADABLE_PREFIX + reason)

    @property
    def format_errors(self) -> list[str]:
        """Why the submission could not be graded, as students read it; empty when it could."""
        return [display_error(e) for e in self.errors if e.startswith(NOT_GRADABLE_PREFIX)]

    @property
    def gradable(self) -> bool:
        return not self.format_errors

    @property
    def score(self) -> float:
        return round(sum(m.score for m in self.milestones), 6)

    @property
    def max_score(self) -> float:
        return round(sum(m.max_score for m in self.milestones), 6)

    @property
    def checks(self) -> list[CheckResult]:
        return [check for milestone in self.milestones for check in milestone.checks]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "exercise": self.exercise,
            "title": self.title,
            "score": self.score,
            "max_score": self.max_score,
            "milestones": [m.to_json() for m in self.milestones],
            "errors": list(self.errors),
            "sandbox_layers": dict(self.sandbox_layers),
        }
        if self.notes:
            data["notes"] = list(self.notes)
        if self.seconds is not None:
            data["seconds"] = self.seconds
        return data
