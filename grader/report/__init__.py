"""Every way a grading can be written out, all rendered from one ``GradeReport``.

``render(report, fmt)`` returns the document as a string; the trusted process writes it
after the student's code has finished. Hidden checks are reduced to pass/fail and points
before any format sees the report (:mod:`grader.report.redaction`), and every quoted string is
made encodable and bounded, the whole document capped (:mod:`grader.report.bounds`). The structure of
``CheckResult.details`` that rich formats read is documented in :mod:`grader.report.details`;
whether a submission was gradable at all is declared on the model (:mod:`grader.result`).
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from grader.report.bounds import (
    REPORT_CHARS,
    RenderFault,
    bounded_view,
    fault_report,
    minimal_fault_document,
)
from grader.report.classroom import render_classroom
from grader.report.gradescope import render_gradescope
from grader.report.html_report import render_html
from grader.report.json_report import render_json
from grader.report.junit import render_junit
from grader.report.markdown_report import render_markdown
from grader.report.options import ReportOptions, ReportOptionsError, parse_options
from grader.report.prairielearn import render_prairielearn
from grader.report.redaction import public_view
from grader.report.text import render_text
from grader.result import GradeReport

Renderer = Callable[[GradeReport, ReportOptions], str]

_RENDERERS: dict[str, Renderer] = {
    "text": render_text,
    "json": render_json,
    "gradescope": render_gradescope,
    "prairielearn": render_prairielearn,
    "classroom": render_classroom,
    "junit": render_junit,
    "markdown": render_markdown,
    "html": render_html,
}

FORMATS: tuple[str, ...] = tuple(_RENDERERS)
"""Format names accepted by ``grade submit --format``, in the order the CLI lists them."""

HUMAN_FORMATS: tuple[str, ...] = ("text", "markdown", "html")
"""Formats meant to be read by a person; the rest are read by programs and platforms."""


class UnknownFormatError(ValueError):
    """The requested format does not exist."""


def render(
    report: GradeReport,
    fmt: str,
    *,
    color: bool = False,
    exercise_options: Mapping[str, Any] | None = None,
    verbose: bool = False,
    failures_only: bool = False,
) -> str:
    """``report`` as a ``fmt`` document. ``color``, ``verbose`` (every check listed) and
    ``failures_only`` (passed checks left out) apply to ``text`` only.

    Raises :class:`RenderFault`, carrying a valid ``fmt`` document that says the grader
    failed, when the renderer fails or the document cannot be brought under the size cap.
    """
    if fmt not in _RENDERERS:
        raise UnknownFormatError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    options = parse_options(exercise_options)

    def write(shown: GradeReport) -> str:
        if fmt == "text":
            return render_text(shown, options, color=color, verbose=verbose,
                               failures_only=failures_only)
        return _RENDERERS[fmt](shown, options)

    public = public_view(report)
    try:
        document = write(bounded_view(public))
        if len(document) > REPORT_CHARS:
            document = write(bounded_view(public, compact=True))
        if len(document) <= REPORT_CHARS:
            return document
        reason = f"the report is over the {REPORT_CHARS:,}-character cap even without details"
    except Exception as error:  # noqa: BLE001 - any renderer fault becomes a valid report
        reason = f"{type(error).__name__} in the {fmt} renderer"
    try:
        document = write(fault_report(public, reason))
    except Exception:  # noqa: BLE001 - the renderer cannot write even that
        document = minimal_fault_document(fmt, report.exercise, reason)
    raise RenderFault(document, reason)


__all__ = [
    "FORMATS",
    "RenderFault",
    "HUMAN_FORMATS",
    "ReportOptionsError",
    "UnknownFormatError",
    "render",
]
