"""The feedback as a Markdown document (``templates/report.md.j2``)."""

from __future__ import annotations

from grader.report.documents import render_document
from grader.report.options import ReportOptions
from grader.result import GradeReport


def render_markdown(report: GradeReport, options: ReportOptions) -> str:
    return render_document("report.md.j2", report, options)
