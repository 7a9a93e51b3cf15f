"""PrairieLearn's external-grading ``results.json`` (docs: "External Grading", "Grading results").

``score`` is the fraction of points in [0, 1]. A submission that cannot be graded (see
:mod:`grader.formats.gradability`) is ``gradable: false`` with ``format_errors``, so it
costs the student no attempt. The file must stay under 1 MB: every free-text field is
capped, and if the whole is still too large the longest texts are cut further, each with a
marker saying how much was left out.
"""

from __future__ import annotations

import json
from typing import Any

from ..result import CheckResult, GradeReport, MilestoneResult
from .feedback import check_feedback
from .gradability import display_error, format_errors
from .options import ReportOptions
from .safety import safe_text, truncate
from .summary import hidden_note, sandbox_note, score_line, student_output

SIZE_LIMIT_BYTES = 1_000_000
FIELD_LIMIT = 16_000
MIN_FIELD_LIMIT = 200


def render_prairielearn(report: GradeReport, options: ReportOptions) -> str:
    return fit_size(prairielearn_results(report, options))


def prairielearn_results(report: GradeReport, options: ReportOptions) -> dict[str, Any]:
    problems = format_errors(report)
    if problems:
        return {
            "gradable": False,
            "format_errors": [safe_text(problem, FIELD_LIMIT) for problem in problems],
            "message": "Your submission could not be graded; fix the problems listed and submit again.",
            "output": safe_text("\n".join(problems), FIELD_LIMIT),
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
    return " ".join(part for part in (f"Score {score_line(report)}.", hidden_note(report)) if part)


def overall_output(report: GradeReport, options: ReportOptions) -> str:
    parts = [safe_text(display_error(error), FIELD_LIMIT) for error in report.errors]
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
        "description": safe_text(f"Milestone {milestone.title}" + (" (hidden check)" if check.visibility == "hidden" else ""), 300),
        "points": check.score,
        "max_points": check.max_score,
        "message": lines[0] if lines else ("Passed." if check.passed else "Failed."),
        "output": safe_text("\n".join(lines[1:]), FIELD_LIMIT),
    }


def encoded_size(results: dict[str, Any]) -> int:
    return len(serialize(results).encode("utf-8"))


def serialize(results: dict[str, Any]) -> str:
    return json.dumps(results, indent=2, ensure_ascii=False) + "\n"


def fit_size(results: dict[str, Any]) -> str:
    """The results serialized within :data:`SIZE_LIMIT_BYTES`, cutting the longest texts first."""
    while encoded_size(results) > SIZE_LIMIT_BYTES:
        holder, key = longest_text(results)
        text = holder[key]
        if len(text) <= MIN_FIELD_LIMIT:
            return serialize(without_test_outputs(results))
        holder[key] = truncate(text, len(text) // 2)
    return serialize(results)


def longest_text(results: dict[str, Any]) -> tuple[dict[str, Any], str]:
    holders = [(results, "output"), (results, "message")]
    holders += [(test, key) for test in results.get("tests", []) for key in ("output", "message")]
    return max((pair for pair in holders if pair[1] in pair[0]), key=lambda pair: len(pair[0][pair[1]]))


def without_test_outputs(results: dict[str, Any]) -> dict[str, Any]:
    """Last resort for thousands of checks: keep names and points, drop per-test texts."""
    slim = dict(results)
    slim["tests"] = [
        {key: test[key] for key in ("name", "points", "max_points")} for test in results.get("tests", [])
    ]
    slim["output"] = truncate(results.get("output", ""), MIN_FIELD_LIMIT)
    slim["message"] = truncate(results.get("message", ""), MIN_FIELD_LIMIT) + (
        " (per-check details were left out to keep the result under 1 MB)"
    )
    return slim
