"""Every way a grading can be written out, all rendered from one ``GradeReport``.

``render(report, fmt)`` returns the document as a string; the trusted process writes it
after the student's code has finished. Hidden checks are reduced to pass/fail and points
before any format sees the report (:mod:`grader.report.redaction`), and every quoted string is
made encodable and bounded, the whole document capped (:mod:`grader.report.bounds`). The structure of
``CheckResult.details`` that rich formats read is documented in :mod:`grader.report.details`;
whether a submission was gradable at all is declared on the model (:mod:`grader.result`).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping

from grader.report.bounds import (
    REPORT_CHARS,
    RenderFault,
    bounded_view,
    fault_report,
    minimal_fault_document,
)
from grader.report.options import ReportOptions, ReportOptionsError, parse_options
from grader.report.redaction import public_view
from grader.result import GradeReport

Renderer = Callable[..., str]
"""``renderer(report, options)``; the text renderer also takes ``color``, ``verbose`` and
``failures_only``."""

_RENDERERS: dict[str, str] = {
    "text": "grader.report.text:render_text",
    "json": "grader.report.json_report:render_json",
    "gradescope": "grader.report.gradescope:render_gradescope",
    "prairielearn": "grader.report.prairielearn:render_prairielearn",
    "classroom": "grader.report.classroom:render_classroom",
    "junit": "grader.report.junit:render_junit",
    "markdown": "grader.report.markdown_report:render_markdown",
    "html": "grader.report.html_report:render_html",
}
"""Format -> the renderer's ``module:function``, imported when the format is asked for."""

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
    renderer = renderer_of(fmt)

    def write(shown: GradeReport) -> str:
        if fmt == "text":
            return renderer(shown, options, color=color, verbose=verbose,
                            failures_only=failures_only)
        return renderer(shown, options)

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


def renderer_of(fmt: str) -> Renderer:
    """The function rendering ``fmt`` (a key of the format table)."""
    module, function = _RENDERERS[fmt].split(":")
    return getattr(importlib.import_module(module), function)  # type: ignore[no-any-return]


__all__ = [
    "FORMATS",
    "RenderFault",
    "HUMAN_FORMATS",
    "ReportOptionsError",
    "UnknownFormatError",
    "render",
]
