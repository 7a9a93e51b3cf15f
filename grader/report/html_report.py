"""The feedback as a self-contained HTML page (``templates/report.html.j2``, autoescaped)."""

from __future__ import annotations

from grader.report.documents import render_document
from grader.report.options import ReportOptions
from grader.result import GradeReport


def render_html(report: GradeReport, options: ReportOptions) -> str:
    return render_document("report.html.j2", report, options)
