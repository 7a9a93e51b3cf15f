"""PrairieLearn's external-grading ``results.json`` (docs: "External Grading", "Grading results").

``score`` is the fraction of points in [0, 1]. A submission that cannot be graded (see
:mod:`grader.result`) is ``gradable: false`` with ``format_errors``, so it
costs the student no attempt. The file must stay under 1 MB: every free-text field is
capped, and if the whole is still too large the longest texts are cut further, each with a
marker saying how much was left out.
"""

from __future__ import annotations

import json
from typing import Any

from grader.report.feedback import check_feedback
from grader.report.options import ReportOptions
from grader.report.safety import safe_text, truncate
from grader.report.summary import hidden_note, sandbox_note, score_line, student_output
from grader.result import CheckResult, GradeReport, MilestoneResult, display_error

SIZE_LIMIT_BYTES = 1_000_000
FIELD_LIMIT = 16_000
MIN_FIELD_LIMIT = 200


def render_prairielearn(report: GradeReport, options: ReportOptions) -> str:
    return fit_size(prairielearn_results(report, options))


def prairielearn_results(report: GradeReport, options: ReportOptions) -> dict[str, Any]:
    problems = report.format_errors
    if problems:
        return {
            "gradable": False,
            "format_errors": [safe_text(problem, FIELD_LIMIT) for problem in problems],
            "message": safe_text(" ".join(
                ["Your submission could not be graded; fix the problems listed and submit again."]
                + report.notes), FIELD_LIMIT),
            "output": safe_text("\n".join(report.notes + problems), FIELD_LIMIT),
        }
    return {
        "gradable": True,
        "score": fraction(report.score, report.max_score),
        "message": summary_message(report),
        "output": overall_output(report, options),
        "tests": [
            prairielearn_test(milestone, check)
            for milestone in report.milestones
            for check in milestone.checks
        ],
    }


def fraction(score: float, max_score: float) -> float:
    if max_score <= 0:
        return 0.0
    return round(min(1.0, max(0.0, score / max_score)), 6)


def summary_message(report: GradeReport) -> str:
    notes = [note if note.endswith(".") else note + "." for note in report.notes]
    parts = notes + [f"Score {score_line(report)}.", hidden_note(report)]
    return safe_text(" ".join(part for part in parts if part), FIELD_LIMIT)


def overall_output(report: GradeReport, options: ReportOptions) -> str:
    parts = [safe_text(note, FIELD_LIMIT) for note in report.notes]
    parts += [safe_text(display_error(error), FIELD_LIMIT) for error in report.errors]
    if sandbox_note(report):
        parts.append(sandbox_note(report))
    shown = student_output(report, options, platform=True)
    if shown is not None:
        parts.append("Output printed by your code:\n" + shown)
    return "\n\n".join(parts)


def prairielearn_test(milestone: MilestoneResult, check: CheckResult) -> dict[str, Any]:
    lines = check_feedback(check, include_measurements=False)
    return {
        "name": safe_text(f"{milestone.title}: {check.title or check.id}", 300),
        "description": safe_text(description(milestone, check), 300),
        "points": check.score,
        "max_points": check.max_score,
        "message": lines[0] if lines else ("Passed." if check.passed else "Failed."),
        "output": safe_text("\n".join(lines[1:]), FIELD_LIMIT),
    }


def description(milestone: MilestoneResult, check: CheckResult) -> str:
    hidden = " (hidden check: pass/fail only)" if check.visibility == "hidden" else ""
    return f"Milestone {milestone.title}{hidden}"


def encoded_size(results: dict[str, Any]) -> int:
    return len(serialize(results).encode("utf-8"))


def serialize(results: dict[str, Any]) -> str:
    return json.dumps(results, indent=2, ensure_ascii=False) + "\n"


def fit_size(results: dict[str, Any]) -> str:
    """The results serialized within :data:`SIZE_LIMIT_BYTES`.

    Every free-text field is cut to one common length, the largest that fits (found by
    bisection); if even :data:`MIN_FIELD_LIMIT` characters each is too much, the per-test
    texts are dropped.
    """
    if encoded_size(results) <= SIZE_LIMIT_BYTES:
        return serialize(results)
    low, high = MIN_FIELD_LIMIT, max(len(text) for text in text_values(results))
    if encoded_size(capped(results, low)) > SIZE_LIMIT_BYTES:
        return serialize(slimmest(results))
    while low < high:
        middle = (low + high + 1) // 2
        if encoded_size(capped(results, middle)) <= SIZE_LIMIT_BYTES:
            low = middle
        else:
            high = middle - 1
    return serialize(capped(results, low))


TEXT_KEYS = ("output", "message")


def text_values(results: dict[str, Any]) -> list[str]:
    holders = [results, *results.get("tests", [])]
    return [holder[key] for holder in holders for key in TEXT_KEYS if key in holder]


def capped(results: dict[str, Any], limit: int) -> dict[str, Any]:
    """A copy with every free-text field truncated to ``limit`` characters (plus a marker)."""

    def cap(holder: dict[str, Any]) -> dict[str, Any]:
        return {key: truncate(value, limit) if key in TEXT_KEYS else value for key, value in holder.items()}

    shortened = cap(results)
    if "tests" in results:
        shortened["tests"] = [cap(test) for test in results["tests"]]
    return shortened


def slimmest(results: dict[str, Any]) -> dict[str, Any]:
    """Last resort for thousands of checks: names and points only, or no per-check list at all."""
    slim = dict(results)
    slim["output"] = truncate(results.get("output", ""), MIN_FIELD_LIMIT)
    message = truncate(results.get("message", ""), MIN_FIELD_LIMIT)
    slim["tests"] = [
        {key: test[key] for key in ("name", "points", "max_points")} for test in results.get("tests", [])
    ]
    slim["message"] = message + " (per-check details were left out to keep the result under 1 MB)"
    if encoded_size(slim) > SIZE_LIMIT_BYTES:
        slim["tests"] = []
        slim["message"] = message + " (the list of checks was left out to keep the result under 1 MB)"
    return slim
