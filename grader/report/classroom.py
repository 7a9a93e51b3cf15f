"""GitHub Classroom's grader-runner result, as ``autograding-grading-reporter`` reads it.

A grading step puts this JSON, base64-encoded, in a step output; the reporter action
sums each test's ``score`` against ``max_score`` and posts the total to Classroom. Shape
(from the classroom-resources grader actions)::

    {"version": 1, "status": "pass" | "fail" | "error", "max_score": 100,
     "tests": [{"name": ..., "status": "pass" | "fail" | "error", "score": 10,
                "message": ..., "test_code": "", "filename": "", "line_no": 0}]}

``status`` is ``error`` when the submission could not be graded at all. Points are rounded to
two decimals, the checks' by largest remainder so that they add up to the rounded total:
the reporter records the sum of the tests' scores, which is then the report's score. The workflow a
student template repository needs is rendered from ``templates/classroom/classroom.yml.j2``
by :func:`render_workflow`.
"""

from __future__ import annotations

import json
from typing import Any

from grader.report.feedback import check_feedback
from grader.report.options import ReportOptions
from grader.report.safety import safe_text
from grader.result import CheckResult, GradeReport, MilestoneResult, display_error

MESSAGE_LIMIT = 8_000


def render_classroom(report: GradeReport, options: ReportOptions) -> str:
    return json.dumps(classroom_result(report), indent=2, ensure_ascii=False) + "\n"


def classroom_result(report: GradeReport) -> dict[str, Any]:
    pairs = [(milestone, check) for milestone in report.milestones for check in milestone.checks]
    scores = rounded_scores([check.score for _, check in pairs], report.score)
    tests = [classroom_test(milestone, check, score) for (milestone, check), score in zip(pairs, scores)]
    tests += [error_test(error) for error in report.errors]
    return {
        "version": 1,
        "status": overall_status(report),
        "max_score": round(report.max_score, 2),
        "tests": tests,
    }


def rounded_scores(scores: list[float], total: float) -> list[float]:
    """``scores`` in hundredths, adjusted by largest remainder to add up to ``total`` rounded."""
    cents = [score * 100 for score in scores]
    floors = [int(c // 1) for c in cents]
    target = int(round(total * 100))
    order = sorted((i for i in range(len(cents)) if cents[i] - floors[i] > 1e-9),
                   key=lambda i: cents[i] - floors[i], reverse=True)
    missing = target - sum(floors)
    for index in order[:max(0, missing)]:
        floors[index] += 1
    return [value / 100 if value % 100 else value // 100 for value in floors]


def overall_status(report: GradeReport) -> str:
    if not report.gradable:
        return "error"
    all_passed = all(check.passed for check in report.checks) and not report.errors
    return "pass" if all_passed else "fail"


def classroom_test(milestone: MilestoneResult, check: CheckResult, score: float) -> dict[str, Any]:
    return {
        "name": safe_text(f"{milestone.title}: {check.title or check.id}", 300),
        "status": "pass" if check.passed else "fail",
        "score": score,
        "message": safe_text("\n".join(check_feedback(check, include_measurements=False)), MESSAGE_LIMIT),
        "test_code": "",
        "filename": "",
        "line_no": 0,
    }


def error_test(error: str) -> dict[str, Any]:
    """A submission-level problem, listed so the reporter prints it; it carries no points."""
    return {
        "name": "Submission",
        "status": "error",
        "score": 0,
        "message": safe_text(display_error(error), MESSAGE_LIMIT),
        "test_code": "",
        "filename": "",
        "line_no": 0,
    }
