"""Gradescope's ``results.json`` (gradescope-autograders.readthedocs.io, "Output format").

One test per check, numbered ``milestone.check``; hidden checks get the exercise's
``hidden_visibility`` (default ``after_published``). Test outputs are plain text because
they carry values the student's code produced; the top-level output is Markdown built only
from escaped or fenced text. Measured times go to ``execution_time`` and ``extra_data``.
"""

from __future__ import annotations

import json
from typing import Any

from grader.report.feedback import check_feedback
from grader.report.options import ReportOptions
from grader.report.safety import fenced_block, markdown_inline, safe_text
from grader.report.summary import (
    hidden_note,
    points,
    sandbox_note,
    score_line,
    student_output,
)
from grader.result import CheckResult, GradeReport, MilestoneResult, display_error

TEST_OUTPUT_LIMIT = 16_000

_WHEN_HIDDEN_SHOWN = {
    "after_published": "Their results appear once grades are published.",
    "after_due_date": "Their results appear after the due date.",
    "hidden": "Their results are not shown to students.",
    "visible": "Their results are shown as pass/fail only.",
}


def render_gradescope(report: GradeReport, options: ReportOptions) -> str:
    return json.dumps(gradescope_results(report, options), indent=2, ensure_ascii=False) + "\n"


def gradescope_results(report: GradeReport, options: ReportOptions) -> dict[str, Any]:
    tests = [
        gradescope_test(m_index, milestone, c_index, check, options)
        for m_index, milestone in enumerate(report.milestones, 1)
        for c_index, check in enumerate(milestone.checks, 1)
    ]
    return {
        "score": report.score,
        "execution_time": round(report.seconds or 0.0, 3),
        "output": top_output(report, options),
        "output_format": "md",
        "visibility": options.visibility,
        "stdout_visibility": "hidden",
        "tests": tests,
        "leaderboard": [],
    }


def gradescope_test(
    m_index: int, milestone: MilestoneResult, c_index: int, check: CheckResult, options: ReportOptions
) -> dict[str, Any]:
    hidden = check.visibility == "hidden"
    test: dict[str, Any] = {
        "name": safe_text(f"{milestone.title}: {check.title or check.id}", 300),
        "name_format": "text",
        "number": f"{m_index}.{c_index}",
        "score": check.score,
        "max_score": check.max_score,
        "status": "passed" if check.passed else "failed",
        "output": safe_text("\n".join(check_feedback(check, include_measurements=False)), TEST_OUTPUT_LIMIT),
        "output_format": "text",
        "tags": [milestone.id, *(diagnosis.id for diagnosis in check.diagnoses)],
        "visibility": options.hidden_visibility if hidden else "visible",
    }
    measured = measurements(check)
    if measured:
        test["extra_data"] = measured
    return test


def measurements(check: CheckResult) -> dict[str, float]:
    """Measured durations of a check, kept out of its output text."""
    found: dict[str, float] = {}
    if check.seconds is not None:
        found["seconds"] = check.seconds
    if isinstance(check.details, dict):
        for key, value in check.details.items():
            if str(key).endswith("_seconds") and isinstance(value, (int, float)):
                found[str(key)] = value
    return found


def top_output(report: GradeReport, options: ReportOptions) -> str:
    title = markdown_inline(report.title or report.exercise, 200)
    parts = [f"**Score: {score_line(report)}** — {title}"]
    note = hidden_note(report)
    if note:
        parts.append(f"{note} {_WHEN_HIDDEN_SHOWN[options.hidden_visibility]}")
    if report.errors:
        errors = "\n".join(safe_text(display_error(error), 2000) for error in report.errors)
        parts.append("**Problems with the submission**\n\n" + fenced_block(errors))
    milestone_rows = [
        f"- {markdown_inline(m.title or m.id, 200)}: {points(m.score)}/{points(m.max_score)}"
        for m in report.milestones
    ]
    if milestone_rows:
        parts.append("\n".join(milestone_rows))
    if sandbox_note(report):
        parts.append(markdown_inline(sandbox_note(report)))
    shown = student_output(report, options, platform=True)
    if shown is not None:
        parts.append("**Output printed by your code**\n\n" + fenced_block(shown))
    return "\n\n".join(parts)
