"""What a gradebook stores of a report, and the :class:`~grader.result.GradeReport` rebuilt
from it, so every report format can be rendered again without re-grading.

The stored report is the cleaned, bounded one every format renders
(:func:`grader.report.bounds.bounded_view`: every string encodable, every quote bounded): the
JSON result (``GradeReport.to_json``) with each visible check's step view beside it under
``steps``, which the JSON result leaves out, so the HTML reports written from the gradebook
show the view ``grade submit --format html`` shows. It is at most :data:`STORED_CHARS`
characters of JSON: a larger one is stored compact (no ``details``, no step views, short
messages). Whatever a student's code returned, one row stays small and writable.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from grader.report.bounds import OUTPUT_CHARS, bounded_text, bounded_view
from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult

STORED_CHARS = 1_000_000


def stored_report(report: GradeReport) -> dict[str, Any]:
    """``report`` as the gradebook keeps it: bounded, encodable, under the size cap."""
    return stored_report_json(report)[0]


def stored_report_json(report: GradeReport) -> tuple[dict[str, Any], str]:
    """:func:`stored_report` and its JSON text, as the gradebook's ``report`` column holds it."""
    data = _with_steps(bounded_view(report))
    text = json.dumps(data, ensure_ascii=False)
    if len(text) > STORED_CHARS:
        data = _with_steps(bounded_view(report, compact=True))
        text = json.dumps(data, ensure_ascii=False)
    return data, text


def _with_steps(report: GradeReport) -> dict[str, Any]:
    """``report.to_json()`` with each visible check's step view under ``steps``."""
    data = report.to_json()
    for milestone, stored in zip(report.milestones, data["milestones"]):
        for check, kept in zip(milestone.checks, stored["checks"]):
            if check.steps and check.visibility != "hidden":
                kept["steps"] = check.steps
    return data


def stored_output(text: str) -> str:
    """A student's printed output as the gradebook keeps it (cleaned, bounded)."""
    return bounded_text(text, OUTPUT_CHARS)


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
        notes=[note for note in data.get("notes", []) if isinstance(note, str)],
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
        steps=_steps(data),
    )


def _steps(data: Mapping[str, Any]) -> dict[str, Any] | None:
    steps = data.get("steps")
    return steps if isinstance(steps, dict) and data.get("visibility") != "hidden" else None
