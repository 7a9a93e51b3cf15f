"""The feedback as a self-contained HTML page (``templates/report.html.j2``, autoescaped),
and a trace's step view as a page of its own (``templates/steps.html.j2``)."""

from __future__ import annotations

from typing import Any

from grader.report.documents import render_document, report_environment
from grader.report.options import ReportOptions
from grader.report.safety import safe_text
from grader.report.step_view import TEXT_LIMIT, step_view
from grader.result import GradeReport


def render_html(report: GradeReport, options: ReportOptions) -> str:
    return render_document("report.html.j2", report, options)


def render_trace_page(title: str, data: dict[str, Any]) -> str:
    """``grade trace --html``: one self-contained page holding the step view of ``data``."""
    template = report_environment().get_template("steps.html.j2")
    return template.render(title=safe_text(title, TEXT_LIMIT), view=step_view(data, "trace"))
