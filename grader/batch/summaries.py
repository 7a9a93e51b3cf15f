"""What the gradebook keeps of a report beside its JSON, so the class's statistics are SQL
queries: the title and whether it was gradable, each milestone's score, each check's outcome,
the named mistakes, the timed runs and the crashes and time-outs.

Each is what :mod:`grader.report.class_report` reads off the rebuilt report, computed once
when the grading is recorded (in the grading's own process when it is graded in a batch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from grader.batch.stored import report_from_json
from grader.report.class_report import failure_kind
from grader.result import display_error


@dataclass
class Summary:
    """The rows of one report: ``milestones`` (position, id, title, score, max score),
    ``mistakes`` (mistake, title, milestone, check id), ``checks`` (position, milestone.check,
    title, hidden, passed, counted: its milestone ran), ``timings`` (position, ratio, limit
    ratio, passed, score, max score) and ``problems`` (position, kind, detail)."""

    title: str = ""
    gradable: bool = True
    not_gradable: str = ""
    milestones: list[tuple] = field(default_factory=list)
    mistakes: list[tuple] = field(default_factory=list)
    checks: list[tuple] = field(default_factory=list)
    timings: list[tuple] = field(default_factory=list)
    problems: list[tuple] = field(default_factory=list)


def summarize(data: Mapping[str, Any] | None) -> Summary:
    """The summary of a stored report (``None``: grading failed, nothing to summarize)."""
    if not data:
        return Summary()
    report = report_from_json(data)
    # Why it could not be graded; for a graded one, what its report notes about the file (a
    # classmate's file graded under the submitter's name), so grades.csv's reason says it too.
    notes = report.format_errors or [display_error(error) for error in report.errors]
    summary = Summary(title=report.title, gradable=report.gradable,
                      not_gradable="; ".join(notes))
    summary.milestones = [(position, m["id"], m.get("title", ""), m["score"], m["max_score"])
                          for position, m in enumerate(data.get("milestones", []))]
    errors = {display_error(error) for error in report.errors}
    position = 0
    seen: set[str] = set()
    for milestone in report.milestones:
        counted = not (milestone.checks and all(c.message in errors for c in milestone.checks))
        for check in milestone.checks:
            key = f"{milestone.id}.{check.id}"
            hidden = check.visibility == "hidden"
            summary.checks.append((position, key, check.title, hidden, check.passed, counted))
            if not check.passed:
                summary.mistakes += [(d.id, d.title, milestone.id, check.id)
                                     for d in check.diagnoses]
            timing = _timing(check.details)
            if timing is not None:
                summary.timings.append((position, *timing, check.passed, check.score,
                                        check.max_score))
            kind = failure_kind(check.message)
            if kind and kind not in seen and not hidden:
                seen.add(kind)
                summary.problems.append((position, kind, f"{key}: {check.message[:200]}"))
            position += 1
    return summary


def _timing(details: Any) -> tuple[Any, Any] | None:
    """(ratio, limit ratio) of a timed run's details, else None."""
    details = details or {}
    if not isinstance(details, Mapping) or details.get("kind") != "timing":
        return None
    student, reference = details.get("student_seconds"), details.get("reference_seconds")
    ratio = details.get("ratio")
    if ratio is None and student is not None and reference:
        ratio = student / reference
    return ratio, details.get("limit_ratio")
