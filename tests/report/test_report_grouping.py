"""The HTML and Markdown reports take the text report's shape: passed checks summed up, a
failure's cause written out once, hidden failures in one row, the likely mistake once per
milestone, code in feedback shown as code; a fact the message states is not stated again;
no hidden-check warning at full marks."""

from __future__ import annotations

import json
from html.parser import HTMLParser

from grader.families.bpe.efficiency import honest_run_problem
from grader.report import render
from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult
from grader.spec import load_exercise

CRASH = "train_bpe raised IndexError: list index out of range (at line 4, in train_bpe)"
TIES = Diagnosis("ties-first-seen", "Ties broken by the pair met first",
                 "Your code picks the pair met first, as `max(pairs, key=pairs.get)` does.",
                 evidence="reproduces your output on all 2 failing inputs it was tried on")
RULE = "the smallest pair (a, b), comparing a first, then b"


def check(check_id, passed, message="", diagnoses=(), visibility="visible", details=None,
          cause=None):
    if cause:
        details = {"kind": "counterexample", "input": {"corpus": ["a"]}, "cause": cause}
    return CheckResult(check_id, check_id, passed, 1.0 if passed else 0.0, 1.0,
                       visibility=visibility, message=message or ("passed" if passed else "failed"),
                       diagnoses=list(diagnoses), details=details)


def tie_details():
    return {"kind": "merges", "input": {"corpus": ["low lower"], "num_merges": 3},
            "expected": [["l", "o"]], "actual": [["o", "w"]],
            "first_difference": {"step": 1, "expected": ["l", "o"], "actual": ["o", "w"],
                                 "pair_counts": [["l", "o", 2], ["o", "w", 2], ["w", "e", 1]],
                                 "tied": [["l", "o"], ["o", "w"]],
                                 "rule": "lexicographic", "rule_text": RULE}}


def class_report() -> GradeReport:
    stated = (f"merge 1 differs: expected ('l', 'o'), got ('o', 'w'). The tie rule "
              f"'lexicographic' ({RULE}) picks ('l', 'o').")
    train = MilestoneResult("train", "Train", max_score=10.0, checks=[
        check("ok-1", True), check("ok-2", True), check("ok-hidden", True, visibility="hidden"),
        check("tie-1", False, stated, [TIES], details=tie_details()),
        check("tie-2", False, "merge 2 differs", [TIES]),
        *[check(f"hidden-{i}", False, visibility="hidden") for i in range(3)],
        check("crash-1", False, CRASH, cause=CRASH), check("crash-2", False, CRASH, cause=CRASH),
    ])
    return GradeReport("ex", "Exercise", [train])


class Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.code: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.open.append(tag)

    def handle_endtag(self, tag):
        if self.open:
            self.open.pop()

    def handle_data(self, data):
        self.parts.append(data)
        if self.open and self.open[-1] == "code":
            self.code.append(data)

    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())


def parsed(html: str) -> Text:
    page = Text()
    page.feed(html)
    return page


def test_the_html_report_groups_as_the_text_report_does():
    report = class_report()
    html = render(report, "html")
    page = parsed(html)
    text = page.text()
    assert "3 checks passed (1 hidden)" in text and "ok-1" not in text
    assert "3 checks failed (hidden: input and expected result not shown)" in text
    assert "hidden-0" not in text and "hidden-2" not in text
    assert text.count("IndexError") == 1 and "and 1 more failed the same way (crash-2)" in text
    assert html.count('class="diagnosis"') == 1 and text.count("Ties broken by the pair met first") == 1
    plain = render(report, "text")
    assert plain.count("Ties broken by the pair met first") == 1 and plain.count("IndexError") == 1


def test_code_in_feedback_is_shown_as_code_not_as_backticks():
    report = class_report()
    page = parsed(render(report, "html"))
    assert "max(pairs, key=pairs.get)" in page.code and "`" not in page.text()
    markdown = render(report, "markdown")
    assert "` max(pairs, key=pairs.get) `" in markdown and "\\`" not in markdown
    assert markdown.count("Ties broken by the pair met first") == 1


def test_what_the_message_says_the_step_table_does_not_say_again():
    report = class_report()
    for fmt in ("text", "html", "markdown"):
        shown = render(report, fmt)
        words = parsed(shown).text() if fmt == "html" else " ".join(shown.split())
        assert words.count(RULE) == 1, fmt  # in the message only, not under the table again
        assert "Pair counts at step 1" in words and "First difference at step 1" not in words, fmt
    said_less = class_report()
    said_less.milestones[0].checks[3].message = "Your merges depart from the reference."
    words = parsed(render(said_less, "html")).text()
    assert "First difference at step 1: the rule picks ('l', 'o') ; your code picked ('o', 'w')" in words
    assert f"Tie-break rule lexicographic : {RULE}" in words


def test_full_marks_carry_no_warning_about_hidden_checks():
    passed = GradeReport("ex", "Exercise", [MilestoneResult("train", "Train", max_score=2.0, checks=[
        check("ok", True), check("ok-hidden", True, visibility="hidden")])])
    failed = GradeReport("ex", "Exercise", [MilestoneResult("train", "Train", max_score=2.0, checks=[
        check("ok", True), check("no-hidden", False, visibility="hidden")])])
    for fmt in ("text", "html", "markdown", "prairielearn"):
        assert "hidden check is worth" not in render(passed, fmt), fmt
        assert "hidden check is worth" in render(failed, fmt), fmt
    # Gradescope before the hidden results are shown: silence would tell, so the note stays
    withheld = json.loads(render(passed, "gradescope",
                                 exercise_options={"hidden_visibility": "after_published"}))
    assert "hidden check is worth" in withheld["output"]


def test_the_efficiency_message_is_neutral():
    exercise = load_exercise("bpe-train-encode")
    message = honest_run_problem("train_bpe", ["low lower"], [("q", "q"), ("l", "o")],
                                 [("l", "o"), ("lo", "w")], exercise)
    assert message and "honest" not in message and "a BPE run on this corpus" in message


def test_a_step_without_a_tie_does_not_explain_the_tie_rule():
    report = class_report()
    details = tie_details()
    details["first_difference"]["pair_counts"] = [["l", "o", 3], ["o", "w", 2], ["w", "e", 1]]
    details["first_difference"]["tied"] = []
    report.milestones[0].checks[3].details = details
    report.milestones[0].checks[3].message = "merge 1 differs: ('l', 'o') is the most frequent pair."
    for fmt in ("text", "markdown", "html"):
        shown = render(report, fmt)
        assert "Tie-break rule" not in shown and RULE not in shown, fmt
        assert "your code picked" in shown, fmt  # the table is still there
