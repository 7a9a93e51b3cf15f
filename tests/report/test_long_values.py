"""Long inputs are summarised in every human report: length and the window that matters."""

from __future__ import annotations

from grader.report.long_values import LONG, summarised
from grader.report.options import ReportOptions
from grader.report.text import render_text
from grader.result import CheckResult, GradeReport, MilestoneResult


def test_a_long_input_is_its_length_and_the_window_where_it_differs():
    given = "the cat sat on the mat " * 26
    returned = given[:300] + "X" + given[301:]
    text = summarised(f"encode({given!r}) returned {returned!r}")
    assert given not in text and len(text) < 250
    assert f"({len(given)} characters, from character 281)" in text
    assert "tXe" in text  # the difference is inside the window shown


def test_short_strings_and_prose_apostrophes_are_left_alone():
    prose = "the student's function isn't right: " + "y" * (LONG + 30) + " that's all"
    assert summarised(prose) == prose
    assert summarised("encode('low')") == "encode('low')"


def test_the_text_report_never_dumps_a_600_character_input():
    sentence = "a rather long sentence of words " * 19
    check = CheckResult("cases:long", "encode a long text", False, 0.0, 1.0,
                        message=f"encode({sentence!r}) returned [] instead.")
    report = GradeReport("x", "X", [MilestoneResult("m", "M", [check], 1.0)])
    shown = render_text(report, ReportOptions())
    assert sentence not in shown and f"({len(sentence)} characters)" in shown
