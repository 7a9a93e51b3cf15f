"""How a submission was read and run (a notebook's cells, the magics, a cell that raised)
reaches the student in every format, before the milestones."""

from __future__ import annotations

import json
import re

import pytest

from format_fixtures import not_gradable_report, sample_report
from grader.batch.stored import report_from_json
from grader.report import FORMATS, render
from grader.report.bounds import bounded_view
from grader.report.redaction import public_view

NOTES = [
    "student.ipynb is a notebook: its 5 code cell(s) were run in order, each as Jupyter runs it",
    "IPython magics and shell lines are not Python and were dropped: cell 6: "
    "!pip install some-package-with-a-long-name==1.2.3 --quiet --no-deps",
    "cell 5 raised IndexError: tuple index out of range (at cell 3, line 10, in encode); "
    "the next cells still ran and grading went on",
]


def with_notes(build=sample_report):
    report = build()
    report.notes = list(NOTES)
    return report


def words(text: str) -> str:
    """``text`` with markup, escapes and line breaks folded away, to find a note in it."""
    text = re.sub(r"<[^>]+>", " ", text)
    for escaped, plain in (("&#39;", "'"), ("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"),
                           ("&gt;", ">"), ("&#x27;", "'")):
        text = text.replace(escaped, plain)
    return " ".join(text.replace("\\", "").split())


def position(text: str, needle: str) -> int:
    found = words(text).find(" ".join(needle.split()))
    assert found >= 0, (needle, text[:3000])
    return found


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_human_formats_show_every_note_before_the_milestones(fmt):
    rendered = render(with_notes(), fmt)
    first_milestone = position(rendered, "Milestone 1")
    for note in NOTES:
        assert position(rendered, note) < first_milestone
    assert "About your submission" in rendered


def test_json_carries_the_notes():
    data = json.loads(render(with_notes(), "json"))
    assert data["notes"] == NOTES
    assert list(data).index("notes") > list(data).index("errors")
    assert "notes" not in json.loads(render(sample_report(), "json"))


def test_gradescope_output_shows_the_notes_before_the_milestones():
    data = json.loads(render(with_notes(), "gradescope"))
    top = data["output"]
    for note in NOTES:
        assert note in top
        assert top.index(note) < top.index("Learn the merges")


@pytest.mark.parametrize("build", [sample_report, not_gradable_report])
def test_prairielearn_message_and_output_hold_the_notes(build):
    data = json.loads(render(with_notes(build), "prairielearn"))
    for note in NOTES:
        assert note in data["message"]
        assert note in data["output"]


def test_classroom_lists_the_notes_first_without_points():
    report = with_notes()
    data = json.loads(render(report, "classroom"))
    notes = data["tests"][:len(NOTES)]
    assert [test["message"] for test in notes] == NOTES
    assert all(test["score"] == 0 and test["status"] == "pass" for test in notes)
    plain = json.loads(render(sample_report(), "classroom"))
    assert data["tests"][len(NOTES):] == plain["tests"]
    assert data["status"] == plain["status"]


def test_junit_shows_the_notes_in_a_first_suite_of_no_tests():
    rendered = render(with_notes(), "junit")
    assert rendered.index("About your submission") < rendered.index("Learn the merges")
    for note in NOTES:
        assert words(note) in words(rendered)
    plain = render(sample_report(), "junit")
    totals = re.compile(r'<testsuites [^>]*>')
    assert totals.search(rendered).group(0) == totals.search(plain).group(0)


def test_every_format_shows_the_notes():
    for fmt in FORMATS:
        rendered = render(with_notes(), fmt)
        assert "cell 5 raised IndexError" in rendered, fmt


def test_the_batch_reports_keep_the_notes():
    """A batch stores each report as JSON and renders STUDENT.html from it again."""
    stored = report_from_json(json.loads(json.dumps(bounded_view(with_notes()).to_json())))
    assert stored.notes == NOTES
    assert public_view(stored).notes == NOTES
    html = render(stored, "html")
    for note in NOTES:
        assert position(html, note) < position(html, "Milestone 1")
