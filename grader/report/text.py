"""The terminal report: per-milestone feedback, colour only when asked for, said once.

By default a milestone lists its failing checks in full and sums up the passed ones in one
line (``verbose`` lists every check; ``failures_only`` leaves passed checks out). Failures
with the same cause (the same crash, say) are written out once: later ones in the milestone
become one "and N more checks ..." line, and in a later milestone one line referring back.
The likely mistakes of a milestone are shown once, after its checks, with their evidence;
when several remain, the report says that it is one of them.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field

from grader.report.feedback import diagnosis_line, feedback_parts
from grader.report.options import ReportOptions
from grader.report.safety import safe_text
from grader.report.summary import (
    hidden_note,
    points,
    sandbox_note,
    score_line,
    student_output,
)
from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult, display_error

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
    layout = Layout(verbose=verbose, failures_only=failures_only)
    blocks = [header_lines(report, paint), error_lines(report, paint)]
    blocks += [milestone_lines(index, m, paint, layout) for index, m in enumerate(report.milestones, 1)]
    blocks += [total_lines(report, paint), output_lines(report, options, paint)]
    return "\n\n".join("\n".join(block) for block in blocks if block) + "\n"


@dataclass
class Layout:
    """How much to write, and which causes of failure were already written out."""

    verbose: bool = False
    failures_only: bool = False
    causes_shown: dict[str, str] = field(default_factory=dict)  # cause -> milestone it is in


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


def milestone_lines(
    index: int, milestone: MilestoneResult, paint: Painter, layout: Layout | None = None
) -> list[str]:
    layout = layout or Layout(verbose=True)
    title = safe_text(f"Milestone {index}: {milestone.title} [{milestone.id}]", 200)
    score = f"{points(milestone.score)}/{points(milestone.max_score)}"
    style = ("bold", "green") if milestone.passed else ("bold",)
    lines = [with_points(paint(title, *style), paint(score, *style), len(title))]
    if layout.verbose:
        for check in milestone.checks:
            lines += check_lines(check, paint)
        return lines + diagnosis_lines(milestone, paint)
    passed = [check for check in milestone.checks if check.passed]
    if passed and not layout.failures_only:
        lines += passed_summary(passed, paint)
    lines += failed_lines(milestone, paint, layout)
    return lines + diagnosis_lines(milestone, paint)


def passed_summary(passed: list[CheckResult], paint: Painter) -> list[str]:
    """One line for all the passed checks of a milestone, timing figures kept."""
    timing = [c for c in passed if isinstance(c.details, dict) and c.details.get("kind") == "timing"]
    others = [check for check in passed if check not in timing]
    lines = []
    if others:
        hidden = sum(check.visibility == "hidden" for check in others)
        label = f"{_checks(len(others))} passed" + (f" ({hidden} hidden)" if hidden else "")
        earned = points(sum(check.score for check in others))
        lines.append(with_points(f"  {paint('✓', 'green')} {label}", earned, len(label) + 4))
    notes = [c.message for c in others if c.visibility == "visible" and _is_note(c.message)]
    if notes:
        more = f" (and {len(notes) - 1} more checks like it)" if len(notes) > 1 else ""
        lines += wrapped([f"Note: {notes[0]}{more}"], paint)
    for check in timing:
        lines += check_lines(check, paint)
    return lines


_ROUTINE = ("passed", "holds on ", "agrees with the reference")


def _is_note(message: str) -> bool:
    """A passed check's message worth reading (not just "passed"): e.g. follow-through."""
    return bool(message) and not message.startswith(_ROUTINE)


def failure_cause(check: CheckResult) -> str:
    """What makes two failures the same: the crash they report, else their whole message."""
    if isinstance(check.details, dict) and check.details.get("cause"):
        return str(check.details["cause"])
    return check.message


def failed_lines(milestone: MilestoneResult, paint: Painter, layout: Layout) -> list[str]:
    failed = [check for check in milestone.checks if not check.passed]
    groups: dict[str, list[CheckResult]] = {}
    for check in failed:
        key = "(hidden)" if check.visibility == "hidden" else failure_cause(check)
        groups.setdefault(key, []).append(check)
    lines: list[str] = []
    for cause, checks in groups.items():
        if cause == "(hidden)":
            lines += hidden_failures(checks, paint)
        elif cause in layout.causes_shown:
            label = (f"{_checks(len(checks))} failed the same way as in "
                     f"[{layout.causes_shown[cause]}]: {_short(cause)}")
            lines += [with_points(f"  {paint('✗', 'red')} {label}", _lost(checks), len(label) + 4)]
        else:
            layout.causes_shown[cause] = milestone.id
            lines += check_lines(checks[0], paint, with_diagnoses=False)
            if len(checks) > 1:
                more = checks[1:]
                label = f"and {len(more)} more failed the same way ({_titles(more)})"
                lines += [with_points(f"  {paint('✗', 'red')} {label}", _lost(more), len(label) + 4)]
    return lines


def hidden_failures(checks: list[CheckResult], paint: Painter) -> list[str]:
    label = f"{_checks(len(checks))} failed (hidden: input and expected result not shown)"
    if len(checks) == 1:
        label = f"{checks[0].title or checks[0].id} (hidden) failed"
    return [with_points(f"  {paint('✗', 'red')} {label}", _lost(checks), len(label) + 4)]


def _checks(count: int) -> str:
    return f"{count} check{'s' if count != 1 else ''}"


def _lost(checks: list[CheckResult]) -> str:
    return f"{points(sum(c.score for c in checks))}/{points(sum(c.max_score for c in checks))}"


def _titles(checks: list[CheckResult], shown: int = 3) -> str:
    titles = [safe_text(check.title or check.id, 60) for check in checks[:shown]]
    rest = len(checks) - shown
    return ", ".join(titles) + (f", +{rest}" if rest > 0 else "")


def _short(text: str, limit: int = 90) -> str:
    text = safe_text(text, 400).splitlines()[0] if text else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
    found: dict[str, Diagnosis] = {}
    for check in milestone.checks:
        if check.visibility == "visible" and not check.passed:
            for diagnosis in check.diagnoses:
                found.setdefault(diagnosis.id, diagnosis)
    if not found:
        return []
    if len(found) == 1:
        return wrapped([diagnosis_line(next(iter(found.values())))], paint, "  ")
    lines = wrapped([f"Likely mistake, one of these {len(found)}:"], paint, "  ")
    for diagnosis in found.values():
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
