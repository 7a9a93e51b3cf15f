"""The terminal report: per-milestone feedback, colour only when asked for, said once.

A milestone is written as :mod:`grader.report.grouping` shapes it for every human format:
passed checks summed up in one line, failures with the same cause written out once, hidden
failures in one line (``verbose`` lists every check; ``failures_only`` leaves passed checks
out). The likely mistakes of a milestone are shown once, after its checks, with their
evidence; when several remain, the report says that it is one of them.
"""

from __future__ import annotations

import re
import textwrap

from grader.report.feedback import diagnosis_line, feedback_parts
from grader.report.grouping import (
    FULL,
    NOTE,
    PASSED,
    Grouping,
    Row,
    milestone_diagnoses,
    milestone_rows,
)
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


def render_text(
    report: GradeReport, options: ReportOptions, *, color: bool = False,
    verbose: bool = False, failures_only: bool = False,
) -> str:
    paint = Painter(color)
    layout = Grouping(verbose=verbose, failures_only=failures_only)
    blocks = [header_lines(report, paint), note_lines(report, paint), error_lines(report, paint)]
    blocks += [milestone_lines(index, m, paint, layout) for index, m in enumerate(report.milestones, 1)]
    blocks += [total_lines(report, paint), output_lines(report, options, paint)]
    return "\n\n".join("\n".join(block) for block in blocks if block) + "\n"


def header_lines(report: GradeReport, paint: Painter) -> list[str]:
    title = safe_text(f"{report.title} ({report.exercise})" if report.title else report.exercise, 200)
    return [paint(title, "bold"), "=" * min(len(title), WIDTH)]


def note_lines(report: GradeReport, paint: Painter) -> list[str]:
    """How the submission was read and run (a notebook's cells), before anything graded."""
    if not report.notes:
        return []
    lines = [paint("About your submission:", "bold")]
    for note in report.notes:
        lines += wrapped_note(safe_text(note, 2000))
    return lines


def wrapped_note(note: str) -> list[str]:
    return textwrap.wrap(note, WIDTH, initial_indent="  - ", subsequent_indent="    ",
                         break_long_words=False, break_on_hyphens=False) or ["  -"]


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


def milestone_lines(
    index: int, milestone: MilestoneResult, paint: Painter, layout: Grouping | None = None
) -> list[str]:
    layout = layout or Grouping(verbose=True)
    title = safe_text(f"Milestone {index}: {milestone.title} [{milestone.id}]", 200)
    score = f"{points(milestone.score)}/{points(milestone.max_score)}"
    style = ("bold", "green") if milestone.passed else ("bold",)
    lines = [with_points(paint(title, *style), paint(score, *style), len(title))]
    for row in milestone_rows(milestone, layout):
        lines += row_lines(row, paint)
    return lines + diagnosis_lines(milestone, paint)


def row_lines(row: Row, paint: Painter) -> list[str]:
    if row.kind == FULL:
        return check_lines(row.checks[0], paint)
    if row.kind == NOTE:
        return wrapped([row.label], paint)
    mark = paint("✓", "green") if row.kind == PASSED else paint("✗", "red")
    if row.kind == PASSED and len(row.label) + 4 + len(row.points) + 2 > WIDTH:
        # a long summary (why its points are withheld, say): wrapped, the points on line one
        first, *rest = textwrap.wrap(row.label, WIDTH - 6 - len(row.points),
                                     break_long_words=False, break_on_hyphens=False)
        return ([with_points(f"  {mark} {first}", row.points, len(first) + 4)]
                + [f"{INDENT}{line}" for line in textwrap.wrap(" ".join(rest), WIDTH - len(INDENT),
                                                                break_long_words=False,
                                                                break_on_hyphens=False)])
    return [with_points(f"  {mark} {row.label}", row.points, len(row.label) + 4)]


def check_lines(check: CheckResult, paint: Painter, *, with_diagnoses: bool = False) -> list[str]:
    mark = paint("✓", "green") if check.passed else paint("✗", "red")
    label = safe_text(check.title or check.id, 200)
    if check.visibility == "hidden":
        label += " (hidden)"
    score = f"{points(check.score)}/{points(check.max_score)}"
    lines = [with_points(f"  {mark} {label}", score, len(label) + 4)]
    prose, evidence = feedback_parts(check, with_diagnoses=with_diagnoses)
    lines += wrapped(prose, paint)
    lines += [f"{INDENT}{line}" for line in evidence]
    return lines


def wrapped(prose: list[str], paint: Painter, indent: str = INDENT) -> list[str]:
    lines = []
    for line in prose:
        style = ("yellow",) if line.startswith("Likely mistake") else ()
        parts = textwrap.wrap(
            line, WIDTH - len(indent), subsequent_indent="  ", break_long_words=False,
            break_on_hyphens=False,
        ) or [""]
        lines += [f"{indent}{paint(part, *style)}" for part in parts]
    return lines


def diagnosis_lines(milestone: MilestoneResult, paint: Painter) -> list[str]:
    """The milestone's likely mistakes, once each, best first, with their evidence."""
    found = milestone_diagnoses(milestone)
    if not found:
        return []
    if len(found) == 1:
        return wrapped([diagnosis_line(found[0])], paint, "  ")
    lines = wrapped([f"Likely mistake, one of these {len(found)}:"], paint, "  ")
    for diagnosis in found:
        lines += wrapped([diagnosis_line(diagnosis, lead="- ")], paint, "    ")
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
