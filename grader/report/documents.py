"""What the Markdown and HTML reports show, prepared for their Jinja2 templates.

Templates stay free of logic: this module turns a (public) ``GradeReport`` into plain view
objects with cleaned text, and builds the Jinja2 environment (autoescaping for ``*.html.j2``,
Markdown-escaping filters for ``*.md.j2``). Templates are found by
:func:`grader.package_data.templates_path`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from grader.package_data import jinja_environment
from grader.report.details import Evidence, evidence
from grader.report.feedback import MESSAGE_LIMIT, shows_evidence
from grader.report.options import ReportOptions
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


@dataclass(frozen=True)
class MilestoneView:
    index: int
    id: str
    title: str
    passed: bool
    score: str
    max_score: str
    checks: list[CheckView]


@dataclass(frozen=True)
class DocumentView:
    exercise: str
    title: str
    score: str
    max_score: str
    errors: list[str]
    milestones: list[MilestoneView]
    hidden_note: str
    sandbox_note: str
    student_output: str | None


def document_view(report: GradeReport, options: ReportOptions) -> DocumentView:
    return DocumentView(
        exercise=safe_text(report.exercise, 200),
        title=safe_text(report.title or report.exercise, 200),
        score=points(report.score),
        max_score=points(report.max_score),
        errors=[safe_text(display_error(error), MESSAGE_LIMIT) for error in report.errors],
        milestones=[milestone_view(index, m) for index, m in enumerate(report.milestones, 1)],
        hidden_note=hidden_note(report),
        sandbox_note=sandbox_note(report),
        student_output=student_output(report, options, platform=False),
    )


def milestone_view(index: int, milestone: MilestoneResult) -> MilestoneView:
    return MilestoneView(
        index=index,
        id=safe_text(milestone.id, 200),
        title=safe_text(milestone.title or milestone.id, 200),
        passed=milestone.passed,
        score=points(milestone.score),
        max_score=points(milestone.max_score),
        checks=[check_view(check) for check in milestone.checks],
    )


def check_view(check: CheckResult) -> CheckView:
    hidden = check.visibility == "hidden"
    shown_evidence = evidence(check.details) if not hidden and shows_evidence(check) else Evidence()
    return CheckView(
        id=safe_text(check.id, 200),
        title=safe_text(check.title or check.id, 200),
        hidden=hidden,
        passed=check.passed,
        score=points(check.score),
        max_score=points(check.max_score),
        message=safe_text(check.message, MESSAGE_LIMIT),
        diagnoses=[] if hidden else [diagnosis_view(diagnosis) for diagnosis in check.diagnoses],
        evidence=shown_evidence,
    )


def diagnosis_view(diagnosis: Diagnosis) -> DiagnosisView:
    return DiagnosisView(safe_text(diagnosis.title, 200), safe_text(diagnosis.message, MESSAGE_LIMIT))


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


def report_environment() -> Environment:
    environment = jinja_environment(trim_blocks=True)
    environment.filters.update(
        md=markdown_inline,
        md_code=markdown_code,
        md_cell=markdown_cell_code,
        md_lines=markdown_lines,
        fence=fenced_block,
    )
    return environment


def render_document(template_name: str, report: GradeReport, options: ReportOptions) -> str:
    template = report_environment().get_template(template_name)
    return template.render(report=document_view(report, options))
