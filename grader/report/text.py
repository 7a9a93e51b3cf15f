"""The terminal report: per-milestone feedback, colour only when asked for."""

from __future__ import annotations

import re
import textwrap

from grader.report.feedback import feedback_parts
from grader.report.options import ReportOptions
from grader.report.safety import safe_text
from grader.report.summary import (
    hidden_note,
    points,
    sandbox_note,
    score_line,
    student_output,
)
from grader.result import CheckResult, GradeReport, MilestoneResult, display_error

WIDTH = 72
INDENT = "      "

_STYLES = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36"}


class Painter:
    """Wraps text in ANSI styles, or leaves it alone when colour is off."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *styles: str) -> str:
        if not self.color or not styles:
            return text
        codes = ";".join(_STYLES[style] for style in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def render_text(report: GradeReport, options: ReportOptions, *, color: bool = False) -> str:
    paint = Painter(color)
    blocks = [header_lines(report, paint), error_lines(report, paint)]
    blocks += [milestone_lines(index, m, paint) for index, m in enumerate(report.milestones, 1)]
    blocks += [total_lines(report, paint), output_lines(report, options, paint)]
    return "\n\n".join("\n".join(block) for block in blocks if block) + "\n"


def header_lines(report: GradeReport, paint: Painter) -> list[str]:
    title = safe_text(f"{report.title} ({report.exercise})" if report.title else report.exercise, 200)
    return [paint(title, "bold"), "=" * min(len(title), WIDTH)]


def error_lines(report: GradeReport, paint: Painter) -> list[str]:
    if not report.errors:
        return []
    lines = [paint("Problems with the submission:", "bold", "red")]
    for error in report.errors:
        first, *rest = safe_text(display_error(error), 2000).splitlines() or [""]
        lines.append(f"  ! {first}")
        lines += [f"    {line}" for line in rest]
    return lines


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def with_points(left: str, right: str, visible_left_width: int) -> str:
    """``left`` and ``right`` on one line, ``right`` ending at column WIDTH (colour codes do not
    count towards the width)."""
    gap = max(2, WIDTH - visible_left_width - len(_ANSI.sub("", right)))
    return left + " " * gap + right


def milestone_lines(index: int, milestone: MilestoneResult, paint: Painter) -> list[str]:
    title = safe_text(f"Milestone {index}: {milestone.title} [{milestone.id}]", 200)
    score = f"{points(milestone.score)}/{points(milestone.max_score)}"
    style = ("bold", "green") if milestone.passed else ("bold",)
    lines = [with_points(paint(title, *style), paint(score, *style), len(title))]
    for check in milestone.checks:
        lines += check_lines(check, paint)
    return lines


def check_lines(check: CheckResult, paint: Painter) -> list[str]:
    mark = paint("✓", "green") if check.passed else paint("✗", "red")
    label = safe_text(check.title or check.id, 200)
    if check.visibility == "hidden":
        label += " (hidden)"
    score = f"{points(check.score)}/{points(check.max_score)}"
    lines = [with_points(f"  {mark} {label}", score, len(label) + 4)]
    prose, evidence = feedback_parts(check)
    for line in prose:
        style = ("yellow",) if line.startswith("Likely mistake:") else ()
        wrapped = textwrap.wrap(
            line, WIDTH - len(INDENT), subsequent_indent="  ", break_long_words=False, break_on_hyphens=False
        ) or [""]
        lines += [f"{INDENT}{paint(part, *style)}" for part in wrapped]
    lines += [f"{INDENT}{line}" for line in evidence]
    return lines


def total_lines(report: GradeReport, paint: Painter) -> list[str]:
    lines = [paint(f"Total: {score_line(report)}", "bold")]
    lines += [note for note in (hidden_note(report), sandbox_note(report)) if note]
    return lines


def output_lines(report: GradeReport, options: ReportOptions, paint: Painter) -> list[str]:
    shown = student_output(report, options, platform=False)
    if shown is None:
        return []
    heading = "Output printed by your code"
    return [paint(heading, "bold"), "-" * len(heading), *shown.splitlines()]
