"""A :class:`~grader.result.GradeReport` rebuilt from the JSON a gradebook stores, so every
report format can be rendered again without re-grading."""

from __future__ import annotations

from typing import Any, Mapping

from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult


def report_from_json(data: Mapping[str, Any], student_output: str = "") -> GradeReport:
    """The report whose ``to_json()`` is ``data`` (``student_output`` is stored beside it)."""
    return GradeReport(
        exercise=data["exercise"],
        title=data.get("title", ""),
        milestones=[_milestone(m) for m in data.get("milestones", [])],
        errors=list(data.get("errors", [])),
        sandbox_layers=dict(data.get("sandbox_layers", {})),
        student_output=student_output,
        seconds=data.get("seconds"),
    )


def _milestone(data: Mapping[str, Any]) -> MilestoneResult:
    return MilestoneResult(id=data["id"], title=data.get("title", ""),
                           checks=[_check(c) for c in data.get("checks", [])],
                           max_score=data.get("max_score", 0.0))


def _check(data: Mapping[str, Any]) -> CheckResult:
    return CheckResult(
        id=data["id"], title=data.get("title", ""), passed=bool(data["passed"]),
        score=data["score"], max_score=data["max_score"],
        visibility=data.get("visibility", "visible"), message=data.get("message", ""),
        diagnoses=[Diagnosis(d["id"], d.get("title", d["id"]), d.get("message", ""))
                   for d in data.get("diagnoses") or []],
        details=data.get("details"), seconds=data.get("seconds"),
    )
