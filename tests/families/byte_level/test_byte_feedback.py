"""Byte-level feedback shows bytes as bytes: merges as pairs of ``b'…'`` literals, in every
report format, and JSON carries the same literal."""

from __future__ import annotations

import json

from grader.grading.audit import exercise_without_efficiency, write_student
from grader.grading.engine import grade_submission
from grader.report import render
from grader.spec import load_exercise

EXERCISE = load_exercise("byte-bpe")


def test_merges_and_tokens_show_as_bytes_in_every_report(tmp_path):
    path = write_student(EXERCISE, tmp_path, "byte-ties-smaller")
    report = grade_submission(path, exercise_without_efficiency(EXERCISE))
    text = render(report, "text")
    assert "Expected merges: [(b'c', b'd')]" in text
    assert "Your merges:     [(b' ', b'c')]" in text
    for form in ("text", "markdown", "html"):
        assert "\"b'" not in render(report, form) and "&quot;b&#x27;" not in render(report, form)
    check = next(c for c in report.checks if c.id == "cases:tie-to-the-greater-pair")
    as_json = json.loads(render(report, "json"))
    shown = next(c for m in as_json["milestones"] for c in m["checks"]
                 if c["id"] == check.id)["details"]
    assert shown["expected_merges"] == {"literal": "[(b'c', b'd')]"}


def test_tokens_of_an_encoding_show_as_bytes(tmp_path):
    path = write_student(EXERCISE, tmp_path, "byte-encode-specials-as-text")
    text = render(grade_submission(path, exercise_without_efficiency(EXERCISE)), "text")
    assert "Expected tokens: [b'lo', b'west', b'<|endoftext|>', b'ne', b'we', b'r']" in text
