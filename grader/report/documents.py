"""What the Markdown and HTML reports show, prepared for their Jinja2 templates.

Templates stay free of logic: this module turns a (public) ``GradeReport`` into plain view
objects with cleaned text, shaped as the text report is (:mod:`grader.report.grouping`: passed
checks summed up, a failure's cause written out once, hidden failures in one row, the likely
mistakes once per milestone), and builds the Jinja2 environment (autoescaping for
``*.html.j2``, Markdown-escaping filters for ``*.md.j2``; the ``code_spans`` filters show the
backticked code of feedback as code). Templates are found by
:func:`grader.package_data.templates_path`.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import re

from markupsafe import Markup, escape

from grader.package_data import jinja_environment
from grader.report.long_values import summarised
from grader.report.details import Evidence, evidence
from grader.report.feedback import MESSAGE_LIMIT, shows_evidence, states_rule, step_heading
from grader.report.grouping import FULL, Grouping, milestone_diagnoses, milestone_rows
from grader.report.options import ReportOptions
from grader.report.step_view import step_view
from grader.report.safety import (
    fenced_block,
    longest_backtick_run,
    markdown_inline,
    safe_text,
)
from grader.report.summary import hidden_note, points, sandbox_note, student_output
from grader.result import (
    CheckResult,
    Diagnosis,
    GradeReport,
    MilestoneResult,
    display_error,
)

if TYPE_CHECKING:  # Jinja2 is imported only when a template is rendered
    from jinja2 import Environment


@dataclass(frozen=True)
class DiagnosisView:
    title: str
    hint: str
    evidence: str = ""


@dataclass(frozen=True)
class CheckView:
    id: str
    title: str
    hidden: bool
    passed: bool
    score: str
    max_score: str
    message: str
    diagnoses: list[DiagnosisView] = field(default_factory=list)
    evidence: Evidence = field(default_factory=Evidence)
    step_heading: str = ""  # the line above the step table
    show_rule: bool = True  # the tie-break rule under the table (unless the message says it)
    steps: dict | None = None  # the step view (grader.report.step_view), visible failures only


@dataclass(frozen=True)
class RowView:
    """One row of a milestone: a check in full (``check``), or a summary of several."""

    kind: str
    passed: bool
    label: str = ""
    points: str = ""
    check: CheckView | None = None


@dataclass(frozen=True)
class MilestoneView:
    index: int
    id: str
    title: str
    passed: bool
    score: str
    max_score: str
    checks: list[CheckView]
    rows: list[RowView] = field(default_factory=list)
    diagnoses: list[DiagnosisView] = field(default_factory=list)


@dataclass(frozen=True)
class DocumentView:
    exercise: str
    title: str
    score: str
    max_score: str
    errors: list[str]
    milestones: list[MilestoneView]
    notes: list[str]
    hidden_note: str
    sandbox_note: str
    student_output: str | None
    has_steps: bool = False  # some check shows a step view: the page carries its script


def document_view(report: GradeReport, options: ReportOptions) -> DocumentView:
    grouping = Grouping()  # causes shown, across milestones
    milestones = [milestone_view(index, m, grouping) for index, m in enumerate(report.milestones, 1)]
    return DocumentView(
        exercise=safe_text(report.exercise, 200),
        title=safe_text(report.title or report.exercise, 200),
        score=points(report.score),
        max_score=points(report.max_score),
        errors=[safe_text(display_error(error), MESSAGE_LIMIT) for error in report.errors],
        notes=[safe_text(note, MESSAGE_LIMIT) for note in report.notes],
        milestones=milestones,
        hidden_note=hidden_note(report),
        sandbox_note=sandbox_note(report),
        student_output=student_output(report, options, platform=False),
        has_steps=any(row.check is not None and row.check.steps
                      for milestone in milestones for row in milestone.rows),
    )


def milestone_view(index: int, milestone: MilestoneResult,
                   grouping: Grouping | None = None) -> MilestoneView:
    rows = []
    for row in milestone_rows(milestone, grouping or Grouping()):
        if row.kind == FULL:
            check = row.checks[0]
            rows.append(RowView(FULL, check.passed, check=check_view(
                check, with_diagnoses=False, anchor=f"steps-{index}-{len(rows) + 1}")))
        else:
            rows.append(RowView(row.kind, all(check.passed for check in row.checks),
                                safe_text(row.label, MESSAGE_LIMIT), row.points))
    return MilestoneView(
        index=index,
        id=safe_text(milestone.id, 200),
        title=safe_text(milestone.title or milestone.id, 200),
        passed=milestone.passed,
        score=points(milestone.score),
        max_score=points(milestone.max_score),
        checks=[check_view(check) for check in milestone.checks],
        rows=rows,
        diagnoses=[diagnosis_view(diagnosis) for diagnosis in milestone_diagnoses(milestone)],
    )


def check_view(check: CheckResult, *, with_diagnoses: bool = True, anchor: str = "") -> CheckView:
    hidden = check.visibility == "hidden"
    shown_evidence = evidence(check.details) if not hidden and shows_evidence(check) else Evidence()
    table = shown_evidence.step_table
    return CheckView(
        id=safe_text(check.id, 200),
        title=safe_text(check.title or check.id, 200),
        hidden=hidden,
        passed=check.passed,
        score=points(check.score),
        max_score=points(check.max_score),
        message=summarised(safe_text(check.message, MESSAGE_LIMIT)),
        diagnoses=([] if hidden or not with_diagnoses
                   else [diagnosis_view(diagnosis) for diagnosis in check.diagnoses]),
        evidence=shown_evidence,
        step_heading=step_heading(table, check.message) if table is not None else "",
        show_rule=table is None or not states_rule(table, check.message),
        steps=step_view(check.steps, anchor) if anchor and not hidden else None,
    )


def diagnosis_view(diagnosis: Diagnosis) -> DiagnosisView:
    return DiagnosisView(safe_text(diagnosis.title, 200), safe_text(diagnosis.message, MESSAGE_LIMIT),
                         safe_text(diagnosis.evidence or "", 200))


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def html_code_spans(text: str) -> Markup:
    """``text`` HTML-escaped, with its ```code``` spans (as feedback writes them) as ``<code>``."""
    parts, last = [], 0
    for found in _CODE_SPAN.finditer(str(text)):
        parts.append(escape(str(text)[last:found.start()]))
        parts.append(Markup("<code>") + escape(found.group(1)) + Markup("</code>"))
        last = found.end()
    parts.append(escape(str(text)[last:]))
    return Markup("").join(parts)


def markdown_code_spans(text: str) -> str:
    """``text`` as escaped Markdown on one line, with its ```code``` spans kept as code."""
    one_line = " ".join(str(text).split())
    parts, last = [], 0
    for found in _CODE_SPAN.finditer(one_line):
        parts.append(_markdown_between(one_line[last:found.start()]))
        parts.append(markdown_code(found.group(1)))
        last = found.end()
    parts.append(_markdown_between(one_line[last:]))
    return "".join(parts)


def _markdown_between(text: str) -> str:
    """Escaped text between code spans, its spaces at either end kept."""
    if not text.strip():
        return " " if text else ""
    lead = " " if text[0].isspace() else ""
    trail = " " if text[-1].isspace() else ""
    return lead + markdown_inline(text) + trail


def markdown_code(text: str) -> str:
    """An inline code span ``text`` cannot break out of."""
    single_line = " ".join(str(text).split())
    ticks = "`" * (longest_backtick_run(single_line) + 1)
    return f"{ticks} {single_line} {ticks}"


def markdown_cell_code(text: str) -> str:
    """A code span for a table cell: GFM splits cells on ``|`` even inside code spans."""
    return markdown_code(text).replace("|", "\\|")


def markdown_lines(text: str) -> str:
    """Multi-line text as escaped Markdown lines joined by hard line breaks."""
    return "  \n".join(markdown_inline(line) for line in str(text).splitlines() if line.strip())


@functools.lru_cache(maxsize=1)
def report_environment() -> Environment:
    """The reports' environment, made once per process: a class's reports reuse its compiled
    templates."""
    environment = jinja_environment(trim_blocks=True)
    environment.filters.update(
        md=markdown_inline,
        md_code=markdown_code,
        md_cell=markdown_cell_code,
        md_lines=markdown_lines,
        md_spans=markdown_code_spans,
        code_spans=html_code_spans,
        fence=fenced_block,
    )
    return environment


def render_document(template_name: str, report: GradeReport, options: ReportOptions) -> str:
    template = report_environment().get_template(template_name)
    return template.render(report=document_view(report, options))
