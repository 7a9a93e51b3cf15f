"""The feedback as a Markdown document (``templates/report.md.j2``)."""

from __future__ import annotations

from ..result import GradeReport
from .documents import render_document
from .options import ReportOptions


def render_markdown(report: GradeReport, options: ReportOptions) -> str:
    return render_document("report.md.j2", report, options)
