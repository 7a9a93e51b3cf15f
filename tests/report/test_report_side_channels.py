"""Nothing hidden leaks through any format, and every format survives any string.

Real submissions are graded (in the sandbox, under the suite's pinned seed secret) and the
report is rendered in every format: a submission that prints every input it is given shows
only its output on public cases, hidden and generated checks carry no duration anywhere, and
answers holding lone surrogates, control characters and megabytes still give valid,
bounded documents.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.grading.engine import grade_submission
from grader.report import FORMATS, RenderFault, render
from grader.package_data import templates_path
from grader.report.bounds import REPORT_CHARS
from grader.result import CheckResult, GradeReport, MilestoneResult
from grader.spec import load_exercise

from exercise_variants import quick

ROOT = Path(__file__).resolve().parents[2]
JSON_FORMATS = ("json", "gradescope", "prairielearn", "classroom")

PRINTS_INPUTS = '''# exercise: bpe-train-encode
import json, time


def train_bpe(corpus, num_merges):
    print("INPUT " + json.dumps([corpus, num_merges]))
    time.sleep(0.002 * len(corpus))
    return []


def encode(word, merges):
    print("INPUT " + json.dumps([word]))
    return list(word) + ["</w>"]
'''

# Answers at once: the renderer-fault test needs a grading, not the time one takes (the
# sleeping trainer above makes a whole grading with the timed corpus last seconds).
ANSWERS_AT_ONCE = PRINTS_INPUTS.replace("    time.sleep(0.002 * len(corpus))\n", "")

HOSTILE_VALUES = '''# exercise: bpe-train-encode
def train_bpe(corpus, num_merges):
    return [("\\ud800" + "\\x1b[2J" * 1000, "b" * 300_000)] + [("x", "y")] * 5_000


def encode(word, merges):
    return ["\\udfff\\x00<script>]]>"] + ["t" * 50] * 20_000
'''


@pytest.fixture(scope="module")
def exercise():
    return quick(load_exercise("bpe-train-encode"))


def grade_source(tmp_path_factory, source: str, exercise) -> GradeReport:
    path = tmp_path_factory.mktemp("submission") / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(path, exercise)


@pytest.fixture(scope="module")
def printing(tmp_path_factory, exercise):
    return grade_source(tmp_path_factory, PRINTS_INPUTS, exercise)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, exercise):
    return grade_source(tmp_path_factory, HOSTILE_VALUES, exercise)


def rendered(report: GradeReport, fmt: str) -> str:
    options = {"show_student_output": True, "hidden_visibility": "visible"}
    return render(report, fmt, exercise_options=options)


def test_output_is_kept_only_for_calls_on_public_cases(printing, exercise):
    printed = [line[len("INPUT "):] for line in printing.student_output.splitlines()
               if line.startswith("INPUT ")]
    public = {json.dumps([case.corpus, case.num_merges]) for case in exercise.cases if case.public}
    public |= {json.dumps([item.word]) for case in exercise.cases if case.public
               for item in case.encode}
    assert printed and set(printed) <= public
    assert "[output from hidden checks withheld]" in printing.student_output


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_shows_a_hidden_or_generated_input(printing, exercise, fmt):
    document = rendered(printing, fmt)
    for case in exercise.hidden_cases:
        if case.corpus:
            assert json.dumps([case.corpus, case.num_merges]) not in document
            assert json.dumps(case.corpus)[1:-1] not in document


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_carries_a_duration_of_a_check_on_unseen_inputs(printing, fmt):
    document = rendered(printing, fmt)
    unseen = [c for c in printing.checks if c.visibility == "hidden" or c.id == "differential"
              or c.id.startswith("property:")]
    assert unseen and all(c.seconds is not None for c in printing.checks)
    if fmt == "json":
        data = json.loads(document)
        assert "seconds" not in data
        for milestone in data["milestones"]:
            for check in milestone["checks"]:
                if check["visibility"] == "hidden" or not check["id"].startswith("cases:"):
                    assert "seconds" not in check, check["id"]
    elif fmt == "junit":
        root = ET.fromstring(document)
        hidden = [case for case in root.iter("testcase") if "(hidden)" in case.get("name", "")]
        assert hidden and all("time" not in case.attrib for case in hidden)
    elif fmt == "gradescope":
        data = json.loads(document)
        assert data["execution_time"] == 0
        for test in data["tests"]:
            if "hidden" in test["name"].lower() or "generated" in test["name"].lower():
                assert "seconds" not in test.get("extra_data", {}), test["name"]


# The step view's own script, the one script a report may carry (student text never is one).
OWN_SCRIPT = (templates_path() / "partials" / "step_view_script.html.j2").read_text(
    encoding="utf-8").strip()


def valid(document: str, fmt: str) -> None:
    document.encode("utf-8")  # no lone surrogates
    assert len(document) <= REPORT_CHARS
    if fmt in JSON_FORMATS:
        json.loads(document)
    elif fmt == "junit":
        ET.fromstring(document)
    elif fmt == "html":
        HTMLParser().feed(document)
        assert "<script" not in document.replace(OWN_SCRIPT, "").lower()


@pytest.mark.parametrize("fmt", FORMATS)
def test_surrogates_controls_and_huge_answers_give_valid_bounded_reports(hostile, fmt):
    raw = json.dumps(hostile.to_json(), ensure_ascii=False)
    assert "\ud800" in raw and len(raw) > REPORT_CHARS  # what a renderer is handed, unbounded
    document = rendered(hostile, fmt)
    valid(document, fmt)
    assert "b" * 2_001 not in document  # a bounded prefix of any value, not the value
    assert "\x1b" not in document and "\x00" not in document


def test_sixty_maximum_size_answers_stay_under_the_cap():
    huge = {"kind": "tokens", "input": {"word": "w" * 10}, "expected": ["w"],
            "actual": ["\ud800" + "t" * 100_000] * 60}
    checks = [CheckResult(f"cases:c{i}", f"case {i}", False, 0.0, 1.0, details=dict(huge),
                          message="m" * 1_000_000) for i in range(60)]
    report = GradeReport("big", "Big", [MilestoneResult("m", "M", checks, 60.0)])
    for fmt in FORMATS:
        valid(render(report, fmt), fmt)


def test_a_renderer_fault_still_writes_a_valid_report_and_exits_1(monkeypatch, tmp_path):
    import grader.report as report_module

    def broken(report, options):
        raise RuntimeError("boom")

    for fmt in FORMATS:
        if fmt == "text":
            continue
        monkeypatch.setattr(report_module, "renderer_of", lambda asked: broken)
        with pytest.raises(RenderFault) as caught:
            render(GradeReport("x", "X"), fmt)
        assert "RuntimeError" in caught.value.reason
        valid(caught.value.document, fmt)
        assert "grader" in caught.value.document
    monkeypatch.undo()

    calls = {"count": 0}
    original = report_module.renderer_of("json")

    def fails_once(report, options):
        calls["count"] += 1
        if calls["count"] == 1:
            raise RuntimeError("boom")
        return original(report, options)

    monkeypatch.setattr(report_module, "renderer_of", lambda asked: fails_once)
    student = tmp_path / "student.py"
    assert "sleep" not in ANSWERS_AT_ONCE
    student.write_text(ANSWERS_AT_ONCE, encoding="utf-8")
    result = CliRunner().invoke(main, ["submit", str(student), "--format", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["milestones"] == [] and "grader error" in data["errors"][0]
