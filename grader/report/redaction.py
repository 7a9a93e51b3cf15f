"""The public view of a grading: hidden checks reduced to pass/fail and points.

The engine already withholds a hidden check's input, expected value and diagnosis; every
renderer still starts from :func:`public_view` so that no format can show them even if a
message, diagnosis, ``details`` or step view slipped through. A hidden check's id and title stay
visible (students see which hidden check failed), so they must not describe its case.

Durations are a side channel: code can encode what it was given in how long it takes. So
checks on inputs the student does not see (hidden cases, and the differential and property
checks, whose generated inputs come from the seed secret) carry no duration in any format,
and neither does the report as a whole when it has such checks. The captured output is
already limited to calls on visible inputs by the grading stage.
"""

from __future__ import annotations

from dataclasses import replace

from grader.result import CheckResult, GradeReport


def hidden_message(passed: bool) -> str:
    if passed:
        return "Hidden check: passed."
    return "Hidden check: failed. Its input and expected result are not shown."


GENERATED_CHECK_IDS = ("differential",)
GENERATED_CHECK_PREFIXES = ("property:",)


def unseen_inputs(check: CheckResult) -> bool:
    """Whether the check ran on inputs the student does not see (hidden or generated)."""
    return (check.visibility == "hidden" or check.id in GENERATED_CHECK_IDS
            or check.id.startswith(GENERATED_CHECK_PREFIXES))


def public_check(check: CheckResult) -> CheckResult:
    seconds = None if unseen_inputs(check) else check.seconds
    if check.visibility != "hidden":
        return replace(check, diagnoses=list(check.diagnoses), seconds=seconds)
    return replace(check, message=hidden_message(check.passed), diagnoses=[], details=None,
                   steps=None, seconds=None)


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
        notes=list(report.notes),
        sandbox_layers=dict(report.sandbox_layers),
        seconds=None if any(unseen_inputs(c) for c in report.checks) else report.seconds,
    )
    return public


def hidden_checks(report: GradeReport) -> list[CheckResult]:
    return [check for check in report.checks if check.visibility == "hidden"]


def hidden_points(report: GradeReport) -> float:
    return round(sum(check.max_score for check in hidden_checks(report)), 6)
