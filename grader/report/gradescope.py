"""Gradescope's ``results.json`` (gradescope-autograders.readthedocs.io, "Output format").

One test per check, numbered ``milestone.check``; hidden checks get the exercise's
``hidden_visibility`` (default ``after_published``).

Before publication a student must not be able to work out how the hidden checks went.
Gradescope hides the total score while any test is hidden, so when hidden checks exist (and
are not themselves ``visible``) everything visible counts visible points only: the
top-level output gives the visible checks' points per milestone and says that hidden
checks exist and what they are worth. The total and the per-milestone totals that include
hidden points go in one extra "Total score" test with the hidden checks' visibility, so
they appear exactly when the hidden results do. Test outputs are plain text because
they carry values the student's code produced; the top-level output is Markdown built only
from escaped or fenced text. Measured times go to ``execution_time`` and ``extra_data``.
"""

from __future__ import annotations

import json
from typing import Any

from grader.report.feedback import check_feedback
from grader.report.options import ReportOptions
from grader.report.redaction import hidden_checks
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
    if withholds_totals(report, options):
        tests.append(total_test(report, options))
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


def withholds_totals(report: GradeReport, options: ReportOptions) -> bool:
    """True when hidden checks exist whose results students do not see yet."""
    return bool(hidden_checks(report)) and options.hidden_visibility != "visible"


def visible_points(milestone: MilestoneResult) -> tuple[float, float]:
    shown = [check for check in milestone.checks if check.visibility != "hidden"]
    return sum(check.score for check in shown), sum(check.max_score for check in shown)


def total_test(report: GradeReport, options: ReportOptions) -> dict[str, Any]:
    """The score with hidden checks counted, shown only when the hidden checks are."""
    rows = [
        f"{m.title or m.id}: {points(m.score)}/{points(m.max_score)}" for m in report.milestones
    ]
    text = "\n".join([f"Total score, hidden checks included: {score_line(report)}", *rows])
    return {
        "name": "Total score (hidden checks included)",
        "name_format": "text",
        "number": str(len(report.milestones) + 1),
        "output": safe_text(text, TEST_OUTPUT_LIMIT),
        "output_format": "text",
        "tags": ["total"],
        "visibility": options.hidden_visibility,
    }


def top_output(report: GradeReport, options: ReportOptions) -> str:
    title = markdown_inline(report.title or report.exercise, 200)
    withheld = withholds_totals(report, options)
    if withheld:
        shown = [check for check in report.checks if check.visibility != "hidden"]
        earned, possible = sum(c.score for c in shown), sum(c.max_score for c in shown)
        parts = [f"**Visible checks: {points(earned)}/{points(possible)} points** — {title}"]
    else:
        parts = [f"**Score: {score_line(report)}** — {title}"]
    note = hidden_note(report, withheld=withheld)
    if note:
        when = _WHEN_HIDDEN_SHOWN[options.hidden_visibility]
        if withheld:
            when = when.replace("Their results", "Their results and your total score")
        parts.append(f"{note} {when}")
    if report.notes:
        notes = "\n".join(safe_text(note, 2000) for note in report.notes)
        parts.append("**About your submission**\n\n" + fenced_block(notes))
    if report.errors:
        errors = "\n".join(safe_text(display_error(error), 2000) for error in report.errors)
        parts.append("**Problems with the submission**\n\n" + fenced_block(errors))
    milestone_rows = [milestone_row(milestone, withheld) for milestone in report.milestones]
    if milestone_rows:
        parts.append("\n".join(milestone_rows))
    if sandbox_note(report):
        parts.append(markdown_inline(sandbox_note(report)))
    shown_output = student_output(report, options, platform=True)
    if shown_output is not None:
        parts.append("**Output printed by your code**\n\n" + fenced_block(shown_output))
    return "\n\n".join(parts)


def milestone_row(milestone: MilestoneResult, withheld: bool) -> str:
    name = markdown_inline(milestone.title or milestone.id, 200)
    if not withheld or not milestone.hidden_count:
        return f"- {name}: {points(milestone.score)}/{points(milestone.max_score)}"
    earned, possible = visible_points(milestone)
    hidden = milestone.hidden_count
    noun = "hidden check" if hidden == 1 else "hidden checks"
    if not possible:
        return f"- {name}: {hidden} {noun} only"
    return f"- {name}: {points(earned)}/{points(possible)} on visible checks, plus {hidden} {noun}"
