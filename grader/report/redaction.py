"""The public view of a grading: hidden checks reduced to pass/fail and points.

The engine already withholds a hidden check's input, expected value and diagnosis; every
renderer still starts from :func:`public_view` so that no format can show them even if a
message, diagnosis or ``details`` slipped through. A hidden check's id and title stay
visible (students see which hidden check failed), so they must not describe its case.
"""

from __future__ import annotations

from dataclasses import replace

from grader.result import CheckResult, GradeReport


def hidden_message(passed: bool) -> str:
    if passed:
        return "Hidden check: passed."
    return "Hidden check: failed. Its input and expected result are not shown."


def public_check(check: CheckResult) -> CheckResult:
    if check.visibility != "hidden":
        return replace(check, diagnoses=list(check.diagnoses))
    return replace(check, message=hidden_message(check.passed), diagnoses=[], details=None)


def public_view(report: GradeReport) -> GradeReport:
    """A copy of ``report`` that is safe to show the student in any format."""
    milestones = [
        replace(milestone, checks=[public_check(check) for check in milestone.checks])
        for milestone in report.milestones
    ]
    public = replace(
        report,
        milestones=milestones,
        errors=list(report.errors),
        sandbox_layers=dict(report.sandbox_layers),
    )
    return public


def hidden_checks(report: GradeReport) -> list[CheckResult]:
    return [check for check in report.checks if check.visibility == "hidden"]


def hidden_points(report: GradeReport) -> float:
    return round(sum(check.max_score for check in hidden_checks(report)), 6)
