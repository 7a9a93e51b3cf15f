"""Facts every format states the same way: points, hidden checks, sandbox layers, output."""

from __future__ import annotations

from grader.report.options import ReportOptions
from grader.report.redaction import hidden_checks, hidden_points
from grader.report.safety import safe_text
from grader.result import GradeReport
from grader.sandbox.layers import missing_layers


def points(value: float) -> str:
    """``12`` for whole numbers, otherwise up to two decimals (``2.5``, ``3.33``)."""
    rounded = round(float(value), 2)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:g}"


def score_line(report: GradeReport) -> str:
    return f"{points(report.score)}/{points(report.max_score)}"


def hidden_note(report: GradeReport, *, withheld: bool = False) -> str:
    """Says how many hidden checks count, so passing every visible one is not read as full marks;
    nothing at full marks, unless the total is ``withheld`` (then saying nothing would tell)."""
    count = len(hidden_checks(report))
    if not count:
        return ""
    if not withheld and report.max_score > 0 and report.score >= report.max_score:
        return ""
    noun = "check is" if count == 1 else "checks are"
    return (
        f"{count} hidden {noun} worth {points(hidden_points(report))} of the "
        f"{points(report.max_score)} points; they report pass/fail only, so passing every "
        "visible check does not by itself mean full marks."
    )


def inactive_layers(report: GradeReport) -> list[str]:
    return sorted(missing_layers(report.sandbox_layers, report.sandbox_layers))


def sandbox_note(report: GradeReport) -> str:
    inactive = inactive_layers(report)
    if not inactive:
        return ""
    return "Sandbox layers not available on this host: " + ", ".join(inactive) + "."


def student_output(report: GradeReport, options: ReportOptions, *, platform: bool) -> str | None:
    """The student's captured output to show, cleaned and capped; ``None`` when withheld.

    Platform formats withhold it by default when hidden checks exist: the code received
    their inputs and could have printed them.
    """
    if not report.student_output:
        return None
    if platform:
        allowed = options.show_student_output
        if allowed is None:
            allowed = not hidden_checks(report)
        if not allowed:
            return None
    return safe_text(report.student_output, options.student_output_limit)
