"""The documents a person or a CI server reads: text, JUnit XML, Markdown and HTML."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from format_fixtures import INJECTION, empty_report, hostile_report, not_gradable_report, sample_report
from grader.report import FORMATS, render
from grader.result import CheckResult, GradeReport, MilestoneResult

CONTROL_OR_SURROGATE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


# --- text -------------------------------------------------------------------------------


def test_text_has_no_colour_unless_asked():
    plain = render(sample_report(), "text")
    coloured = render(sample_report(), "text", color=True)
    assert "\x1b" not in plain
    assert "\x1b[32m✓\x1b[0m" in coloured and "\x1b[31m✗\x1b[0m" in coloured
    assert re.sub("\x1b\\[[0-9;]*m", "", coloured).replace(" ", "") == plain.replace(" ", "")


def test_text_reports_each_milestone_with_its_score_and_the_total():
    text = render(sample_report(), "text", verbose=True)  # every check listed
    assert re.search(r"Milestone 1: Learn the merges \[train\] +20/40", text)
    assert re.search(r"Milestone 2: Encode new words \[encode\] +0/40", text)
    assert re.search(r"✓ the lesson's corpus +10/10", text)
    assert re.search(r"✗ ties between equal counts +0/10", text)
    assert "Total: 40/100" in text
    assert text.index("Milestone 3") < text.index("Total: 40/100")


def test_text_names_the_likely_mistake_with_its_hint():
    text = " ".join(render(sample_report(), "text").split())
    assert "Likely mistake: Ties broken by first appearance — When two pairs have the same count" in text
    assert "Likely mistake: Greedy longest match — Apply merges in the order" in text


def test_text_shows_the_first_differing_merge_step_as_a_table():
    lines = render(sample_report(), "text").splitlines()
    heading = next(i for i, line in enumerate(lines) if "First difference at step 4" in line)
    assert "the rule picks ('l', 'o'); your code picked ('o', 'w')" in lines[heading]
    table = lines[heading + 1 : heading + 7]
    assert table[0].split() == ["pair", "count", "note"]
    assert re.search(r"\('l', 'o'\) +7 +tied, the rule picks this", table[1])
    assert re.search(r"\('o', 'w'\) +7 +tied, your code picked this", table[2])
    assert re.search(r"\('n', 'e'\) +6$", table[3])
    assert any(line.strip().startswith("Tie-break rule: lexicographic") for line in lines[heading:])


def test_text_shows_encode_evidence():
    text = render(sample_report(), "text")
    assert re.search(r"Input word: +'lowest'", text)
    assert re.search(r"Expected tokens: +\['low', 'est</w>'\]", text)
    assert re.search(r"Your tokens: +\['lo', 'west</w>'\]", text)


def test_text_puts_errors_first_and_names_inactive_sandbox_layers():
    report = not_gradable_report()
    text = render(report, "text")
    assert text.index("Problems with the submission") < text.index("Milestone 1")
    assert "! student.py does not import: SyntaxError" in text
    assert "Not gradable:" not in text
    assert "Sandbox layers not available on this host: network, privilege." in text
    report.sandbox_layers = {name: True for name in report.sandbox_layers}
    assert "Sandbox layers" not in render(report, "text")


def test_text_caps_the_students_output_under_its_own_heading():
    report = sample_report()
    report.student_output = "x" * 50_000
    text = render(report, "text", exercise_options={"student_output_limit": 1000})
    after = text.split("Output printed by your code\n", 1)[1]
    assert after.count("x") == 1000
    assert "[... 49000 more characters not shown ...]" in after
    assert text.index("Total: ") < text.index("Output printed by your code")


def test_text_reduces_hidden_checks_to_pass_or_fail():
    text = render(sample_report(), "text", verbose=True)  # every check listed
    assert re.search(r"✓ hidden case 1 \(hidden\) +10/10\n +Hidden check: passed\.", text)
    assert re.search(r"✗ hidden case 2 \(hidden\) +0/10\n +Hidden check: failed\.", text)


def test_text_strips_terminal_control_sequences_from_student_text():
    text = render(hostile_report(), "text")
    assert not CONTROL_OR_SURROGATE.search(text)
    assert INJECTION in text  # shown as plain text, not dropped


# --- JUnit ------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [sample_report, hostile_report, not_gradable_report, empty_report])
def test_junit_parses_and_its_counts_match_the_report(build):
    report = build()
    root = ET.fromstring(render(report, "junit").encode("utf-8"))
    suites = root.findall("testsuite")
    milestone_suites = [suite for suite in suites if suite.get("name") != "submission"]
    assert len(milestone_suites) == len(report.milestones)
    for suite, milestone in zip(milestone_suites, report.milestones):
        cases = suite.findall("testcase")
        assert len(cases) == len(milestone.checks) == int(suite.get("tests"))
        failed = [case for case in cases if case.find("failure") is not None]
        expected_failures = sum(not check.passed for check in milestone.checks)
        assert len(failed) == expected_failures == int(suite.get("failures"))
    errors = root.findall("testsuite[@name='submission']/testcase/error")
    assert len(errors) == len(report.errors) == int(root.get("errors"))
    assert int(root.get("tests")) == len(report.checks) + len(report.errors)


def test_junit_points_are_properties_and_failures_carry_feedback():
    root = ET.fromstring(render(sample_report(), "junit"))
    case = root.find(".//testcase[@name='ties between equal counts']")
    properties = {p.get("name"): p.get("value") for p in case.findall("properties/property")}
    assert properties == {"score": "0", "max_score": "10"}
    failure = case.find("failure")
    assert failure.get("message") == "Your merges depart from the reference at step 4."
    assert failure.get("type") == "tie-first-seen"
    assert failure.text.startswith("Points: 0/10\n")
    assert "First difference at step 4" in failure.text
    passed = root.find(".//testcase[@name=\"the lesson's corpus\"]")
    assert passed is not None and [child.tag for child in passed] == ["properties"]


def test_junit_test_names_do_not_change_with_the_score():
    def names(report) -> list[tuple[str, str]]:
        root = ET.fromstring(render(report, "junit"))
        return [(case.get("classname"), case.get("name")) for case in root.iter("testcase")]

    failing = sample_report()
    passing = sample_report()
    for check in passing.checks:
        check.passed, check.score = True, check.max_score
    assert render(failing, "junit") != render(passing, "junit")
    assert names(failing) == names(passing)
    assert not any("points" in name for _, name in names(failing))
    assert len(set(names(failing))) == len(names(failing)), "names must be unique within the run"


def test_junit_keeps_hostile_text_as_text():
    document = render(hostile_report(), "junit")
    assert not CONTROL_OR_SURROGATE.search(document)
    root = ET.fromstring(document.encode("utf-8"))
    failure_texts = " ".join(element.text or "" for element in root.iter("failure"))
    assert INJECTION in failure_texts  # escaped on the way in, intact on the way out
    assert root.find(".//script") is None


# --- Markdown ---------------------------------------------------------------------------


def outside_code(markdown: str) -> str:
    """The Markdown with fenced blocks and inline code spans removed."""
    without_fences = re.sub(r"(?ms)^(`{3,})[^\n]*\n.*?^\1$", "", markdown)
    return re.sub(r"(?<![`\\])(`+)(?!`).*?(?<!`)\1(?!`)", "", without_fences)


def test_markdown_lists_milestones_checks_and_the_step_table():
    markdown = render(sample_report(), "markdown")
    assert "## ✗ Milestone 1: Learn the merges (20/40)" in markdown
    assert "### ✗ ties between equal counts (0/10)" in markdown
    assert "| ` ('l', 'o') ` | 7 | tied, the rule picks this |" in markdown
    assert "> **Likely mistake: Ties broken by first appearance**" in markdown
    assert "## Total: 40/100" in markdown


def test_markdown_keeps_student_text_inert():
    markdown = render(hostile_report(), "markdown")
    assert not CONTROL_OR_SURROGATE.search(markdown)
    prose = outside_code(markdown)
    assert "alert" in prose, "the message itself is shown outside code"
    assert not re.search(r"(?<!\\)<", prose), "every '<' outside code must be escaped"
    assert "\\*\\*bold\\*\\*" in prose


# --- HTML -------------------------------------------------------------------------------

VOID_ELEMENTS = {"meta", "link", "br", "hr", "img", "input", "col", "wbr", "source"}


class StrictStructure(HTMLParser):
    """Records tags, attributes and text, and every mismatched or unclosed element."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID_ELEMENTS:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def parse_html(document: str) -> StrictStructure:
    parser = StrictStructure()
    parser.feed(document)
    parser.close()
    assert not parser.problems and not parser.stack, (parser.problems, parser.stack)
    return parser


@pytest.mark.parametrize("build", [sample_report, hostile_report, not_gradable_report, empty_report])
def test_html_is_well_formed(build):
    document = render(build(), "html")
    assert document.startswith("<!DOCTYPE html>")
    parsed = parse_html(document)
    assert [tag for tag, _ in parsed.tags][:1] == ["html"]


def test_html_shows_student_text_without_running_it():
    document = render(hostile_report(), "html")
    parsed = parse_html(document)
    assert [tag for tag, _ in parsed.tags].count("style") == 1
    assert "script" not in {tag for tag, _ in parsed.tags}
    assert INJECTION in "".join(parsed.text)  # visible as text
    assert not CONTROL_OR_SURROGATE.search(document)


def test_html_is_self_contained():
    parsed = parse_html(render(sample_report(), "html"))
    for tag, attributes in parsed.tags:
        assert "src" not in attributes and "href" not in attributes, tag


def test_html_has_a_merge_step_table_for_the_failed_tie():
    parsed = parse_html(render(sample_report(), "html"))
    row_classes = [attributes.get("class") for tag, attributes in parsed.tags if tag == "tr"]
    assert "tied expected" in row_classes and "tied actual" in row_classes
    text = " ".join("".join(parsed.text).split())
    assert "First difference at step 4: the rule picks ('l', 'o'); your code picked ('o', 'w')." in text
    assert "Likely mistake: Ties broken by first appearance" in text


# --- evidence the engine may send ------------------------------------------------------


def report_with_details(details) -> GradeReport:
    check = CheckResult("c", "a check", False, 0.0, 5.0, message="It failed.", details=details)
    return GradeReport("ex", "Ex", [MilestoneResult("m", "M", [check], 5.0)])


MALFORMED_DETAILS = [
    "not a mapping",
    {"kind": "merges", "first_difference": {"step": "four", "pair_counts": [["a"]], "tied": 3}},
    {"kind": "tokens"},
    {"kind": "timing", "student_seconds": "slow"},
    {"kind": "something-new", "nested": {"deep": [1, 2, {"x": None}]}},
    {"kind": "something-new", "first_difference": {"step": "four", "pair_counts": [["a"]], "tied": 3}},
    {"kind": "something-new", "first_difference": {"step": 2, "pair_counts": [["a", "b", "x"]],
                                                   "expected": 5, "actual": [1, 2]}},
]


@pytest.mark.parametrize("details", MALFORMED_DETAILS)
@pytest.mark.parametrize("fmt", [fmt for fmt in FORMATS if fmt != "json"])
def test_malformed_details_never_break_a_report(details, fmt):
    rendered = render(report_with_details(details), fmt)
    assert "It failed." in rendered


def test_lengths_evidence_compares_the_summaries():
    details = {"kind": "lengths", "input": {"sentence": "the lowest", "merges": [["l", "o"]]},
               "expected": {"tokens": 4}, "actual": {"tokens": 5}}
    text = render(report_with_details(details), "text")
    assert re.search(r"Input sentence: +'the lowest'", text)
    assert re.search(r"Input merges: +\[\('l', 'o'\)\]", text)
    assert re.search(r"Expected: +\{'tokens': 4\}", text) and re.search(r"Yours: +\{'tokens': 5\}", text)


def test_timing_ratio_is_derived_when_the_engine_leaves_it_out():
    details = {"kind": "timing", "student_seconds": 2.5, "reference_seconds": 0.1,
               "limit_ratio": 20.0, "limit_seconds": 10.0}
    text = render(report_with_details(details), "text")
    assert re.search(r"Ratio: +25\.0x the reference", text)
    assert re.search(r"Allowed: +up to 20x the reference", text)
    platform = render(report_with_details(details), "prairielearn")
    assert "2.5" not in platform and "25.0" not in platform


def test_a_student_pick_that_is_not_a_pair_there_is_called_out():
    details = {"kind": "merges", "input": {"corpus": ["ab"], "num_merges": 1},
               "expected": [["a", "b"]], "actual": [["x", "y"]],
               "first_difference": {"step": 1, "expected": ["a", "b"], "actual": ["x", "y"],
                                    "pair_counts": [["a", "b", 1], ["b", "</w>", 1]], "tied": [],
                                    "rule": "lexicographic", "rule_text": "smallest"}}
    for fmt in ("text", "markdown", "html"):
        rendered = render(report_with_details(details), fmt)
        assert "Your pair is not among the pairs counted at this step." in rendered
