"""Every report stays a valid document of bounded size, whatever the student's code returned.

Student code decides much of what a report quotes: the values it returned (in ``details``),
its exception messages, its printed output. Before any renderer sees a report,
:func:`bounded_view` makes every string encodable (lone surrogates and the like become
U+FFFD, control characters go) and quotes at most a bounded prefix of it:

- a string: at most :data:`VALUE_CHARS` characters (messages :data:`MESSAGE_CHARS`), with
  a marker saying how much was cut;
- a list or mapping inside ``details``: at most :data:`ITEMS` items; a cut ``details`` says
  ``"truncated": true``;
- nesting deeper than :data:`DEPTH` levels is replaced by a marker.

A rendered document may still hold at most :data:`REPORT_CHARS` characters (2,000,000, about
2 MB: every format, JSON, JUnit, Markdown and HTML included). A larger one is rendered again
without ``details`` or step views and with shorter messages; one that cannot be brought under
the cap, or a renderer that fails, is replaced by a valid document of the same format saying
the grader failed (:class:`RenderFault`, which ``grade submit`` turns into exit status 1).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from grader.report.safety import clean_text, truncation_marker
from grader.result import CheckResult, Diagnosis, GradeReport

VALUE_CHARS = 2_000
MESSAGE_CHARS = 8_000
SHORT_MESSAGE_CHARS = 500
OUTPUT_CHARS = 64_000
ITEMS = 200
DEPTH = 12
REPORT_CHARS = 2_000_000
DEPTH_MARKER = "[... nested too deep to show ...]"


class RenderFault(Exception):
    """The report could not be written as asked; ``document`` is a valid one saying so."""

    def __init__(self, document: str, reason: str) -> None:
        super().__init__(reason)
        self.document = document
        self.reason = reason


def bounded_text(text: Any, limit: int = VALUE_CHARS) -> str:
    """``text`` cleaned, at most ``limit`` characters of it kept (only those are scanned)."""
    text = text if isinstance(text, str) else str(text)
    if len(text) <= limit:
        return clean_text(text)
    return clean_text(text[:limit]) + truncation_marker(len(text) - limit)


class _Bounder:
    def __init__(self) -> None:
        self.cut = False

    def value(self, value: Any, depth: int = 0) -> Any:
        if value is None or isinstance(value, (bool, int, float)):
            return value
        if depth >= DEPTH:
            self.cut = True
            return DEPTH_MARKER
        if isinstance(value, str):
            bounded = bounded_text(value)
            self.cut = self.cut or len(value) > VALUE_CHARS
            return bounded
        if isinstance(value, (list, tuple)):
            if len(value) > ITEMS:
                self.cut = True
            items = [self.value(item, depth + 1) for item in value[:ITEMS]]
            return tuple(items) if isinstance(value, tuple) else items
        if isinstance(value, dict):
            if len(value) > ITEMS:
                self.cut = True
            return {self.value(key, depth + 1) if isinstance(key, str) else key:
                    self.value(item, depth + 1)
                    for key, item in list(value.items())[:ITEMS]}
        self.cut = True
        return bounded_text(repr(value))


def bounded_details(details: dict[str, Any] | None) -> dict[str, Any] | None:
    if details is None:
        return None
    bounder = _Bounder()
    bounded = bounder.value(details)
    if not isinstance(bounded, dict):
        return {"value": bounded, "truncated": True}
    if bounder.cut:
        bounded["truncated"] = True
    return bounded


def _check(check: CheckResult, message_chars: int, keep_details: bool) -> CheckResult:
    return replace(
        check,
        id=bounded_text(check.id, 200),
        title=bounded_text(check.title, 500),
        message=bounded_text(check.message, message_chars),
        diagnoses=[Diagnosis(bounded_text(d.id, 200), bounded_text(d.title, 500),
                             bounded_text(d.message, message_chars), bounded_text(d.evidence, 500))
                   for d in check.diagnoses],
        details=bounded_details(check.details) if keep_details else None,
        steps=check.steps if keep_details else None,
    )


def bounded_view(report: GradeReport, *, compact: bool = False) -> GradeReport:
    """A copy of ``report`` whose every string is encodable and every quote bounded.

    ``compact`` drops ``details`` and step views and shortens messages, for a document over
    the size cap."""
    message_chars = SHORT_MESSAGE_CHARS if compact else MESSAGE_CHARS
    milestones = [
        replace(milestone, id=bounded_text(milestone.id, 200),
                title=bounded_text(milestone.title, 500),
                checks=[_check(check, message_chars, not compact) for check in milestone.checks])
        for milestone in report.milestones
    ]
    return replace(
        report,
        exercise=bounded_text(report.exercise, 200),
        title=bounded_text(report.title, 500),
        milestones=milestones,
        errors=[bounded_text(error, message_chars) for error in report.errors],
        notes=[bounded_text(note, message_chars) for note in report.notes],
        sandbox_layers={bounded_text(k, 100): bool(v) for k, v in report.sandbox_layers.items()},
        student_output=bounded_text(report.student_output, SHORT_MESSAGE_CHARS if compact
                                    else OUTPUT_CHARS),
    )


def minimal_fault_document(fmt: str, exercise: str, reason: str) -> str:
    """A last-resort valid document of ``fmt`` saying the grader failed (no renderer used)."""
    import json
    from xml.sax.saxutils import escape, quoteattr

    message = (f"grader error: the report could not be written ({bounded_text(reason, 300)}); "
               "this is a fault of the grader, not of the submission")
    exercise = bounded_text(exercise, 200)
    if fmt == "gradescope":
        return json.dumps({"score": 0.0, "output": message, "tests": []}, indent=2) + "\n"
    if fmt == "prairielearn":
        return json.dumps({"gradable": False, "score": 0.0, "message": message}, indent=2) + "\n"
    if fmt in ("json", "classroom"):
        return json.dumps({"exercise": exercise, "score": 0.0, "errors": [message]}, indent=2) + "\n"
    if fmt == "junit":
        return ('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name=' + quoteattr(exercise)
                + ' tests="1" failures="0" errors="1">\n  <testsuite name="submission" tests="1" '
                'failures="0" errors="1" skipped="0">\n    <testcase classname="grader" '
                'name="report"><error message=' + quoteattr(message) + '/></testcase>\n'
                '  </testsuite>\n</testsuites>\n')
    if fmt == "html":
        return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{escape(exercise)}"
                f"</title></head><body><p>{escape(message)}</p></body></html>\n")
    return message + "\n"


def fault_report(report: GradeReport, reason: str) -> GradeReport:
    """A report with no checks that says the grader could not write the real one."""
    fault = GradeReport(exercise=bounded_text(report.exercise, 200),
                        title=bounded_text(report.title, 500))
    fault.mark_not_gradable(
        f"grader error: the report could not be written ({bounded_text(reason, 300)}); this is "
        "a fault of the grader, not of the submission: tell your course staff")
    return fault
