"""Gradescope, PrairieLearn and GitHub Classroom results, validated against their published formats."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import jsonschema
import pytest

from format_fixtures import empty_report, hostile_report, not_gradable_report, sample_report
from grader.report import render
from grader.report.prairielearn import SIZE_LIMIT_BYTES
from grader.result import CheckResult, GradeReport, MilestoneResult

SCHEMAS = Path(__file__).parents[1] / "schemas"


def validate(document: str, schema_name: str) -> dict:
    data = json.loads(document)
    schema = json.loads((SCHEMAS / schema_name).read_text())
    jsonschema.Draft202012Validator(schema).validate(data)
    return data


def all_passing_report() -> GradeReport:
    checks = [CheckResult("a", "first", True, 5.0, 5.0), CheckResult("b", "second", True, 5.0, 5.0)]
    return GradeReport("tiny", "Tiny", [MilestoneResult("only", "Only", checks, 10.0)], student_output="hi\n")


# --- Gradescope -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build", [sample_report, hostile_report, not_gradable_report, all_passing_report, empty_report]
)
def test_gradescope_results_follow_the_published_format(build):
    data = validate(render(build(), "gradescope"), "gradescope_results.schema.json")
    required = ("score", "execution_time", "output", "output_format", "visibility", "stdout_visibility",
                "tests", "leaderboard")
    assert all(key in data for key in required)
    assert data["output_format"] == "md" and data["stdout_visibility"] == "hidden"
    assert data["leaderboard"] == []


def test_gradescope_has_one_numbered_test_per_check_with_its_points():
    report = sample_report()
    data = json.loads(render(report, "gradescope"))
    checks = [test for test in data["tests"] if "total" not in test["tags"]]
    assert [test["number"] for test in checks] == ["1.1", "1.2", "1.3", "1.4", "2.1", "2.2", "3.1"]
    assert sum(test["score"] for test in checks) == data["score"] == report.score
    assert [test["status"] for test in checks] == [
        "passed" if check.passed else "failed" for check in report.checks
    ]
    ties = data["tests"][1]
    assert ties["tags"] == ["train", "tie-first-seen"]
    assert "First difference at step 4" in ties["output"]
    # The whole grading's time would include the hidden checks': it is withheld.
    assert data["execution_time"] == 0
    visible_only = all_passing_report()
    visible_only.seconds = 1.37
    assert json.loads(render(visible_only, "gradescope"))["execution_time"] == pytest.approx(1.37)


def test_gradescope_hidden_checks_use_the_exercise_visibility():
    default = json.loads(render(sample_report(), "gradescope"))
    visibilities = [test["visibility"] for test in default["tests"]][:4]
    assert visibilities == ["visible", "visible", "after_published", "after_published"]
    options = {"hidden_visibility": "after_due_date", "visibility": "after_due_date"}
    chosen = json.loads(render(sample_report(), "gradescope", exercise_options=options))
    assert chosen["visibility"] == "after_due_date"
    assert {test["visibility"] for test in chosen["tests"][2:4]} == {"after_due_date"}
    assert "after the due date" in chosen["output"]


def test_gradescope_output_says_hidden_checks_exist():
    output = json.loads(render(sample_report(), "gradescope"))["output"]
    assert "**Visible checks: 30/80 points**" in output
    assert "2 hidden checks are worth 20 of the 100 points" in output
    assert "does not by itself mean full marks" in output
    assert "Their results and your total score appear once grades are published." in output
    assert "hidden" not in json.loads(render(all_passing_report(), "gradescope"))["output"]


def visible_to_students_now(data: dict) -> str:
    """Everything a student sees before grades are published."""
    shown = [data["output"]] if data["visibility"] == "visible" else []
    for test in data["tests"]:
        if test["visibility"] == "visible":
            shown.append(json.dumps({key: test.get(key) for key in ("name", "score", "max_score",
                                                                   "status", "output")}))
    return "\n".join(shown)


@pytest.mark.parametrize("hidden_passed", [(True, True), (True, False), (False, False)])
def test_gradescope_shows_nothing_before_publication_that_depends_on_hidden_results(hidden_passed):
    def graded(first: bool, second: bool) -> GradeReport:
        report = sample_report()
        for check, passed in zip(report.milestones[0].checks[2:], (first, second)):
            check.passed, check.score = passed, check.max_score if passed else 0.0
        return report

    reference = visible_to_students_now(json.loads(render(graded(False, False), "gradescope")))
    data = json.loads(render(graded(*hidden_passed), "gradescope"))
    assert visible_to_students_now(data) == reference
    assert "40/100" not in reference and "Learn the merges: 20/40" not in reference
    total = next(test for test in data["tests"] if "total" in test["tags"])
    assert total["visibility"] == "after_published" and "score" not in total
    expected = graded(*hidden_passed).score
    assert f"hidden checks included: {expected:g}/100" in total["output"]


def test_gradescope_total_follows_the_spec_hidden_visibility():
    options = {"hidden_visibility": "after_due_date"}
    data = json.loads(render(sample_report(), "gradescope", exercise_options=options))
    assert [t["visibility"] for t in data["tests"] if "total" in t["tags"]] == ["after_due_date"]
    shown = json.loads(render(sample_report(), "gradescope",
                              exercise_options={"hidden_visibility": "visible"}))
    assert "**Score: 40/100**" in shown["output"]
    assert not [t for t in shown["tests"] if "total" in t["tags"]]


def test_gradescope_keeps_measured_times_in_their_own_fields():
    data = json.loads(render(sample_report(), "gradescope"))
    timing = data["tests"][-2]  # the last is the total
    assert timing["extra_data"] == {
        "seconds": 0.9, "student_seconds": 0.82, "reference_seconds": 0.07, "limit_seconds": 10.0,
    }
    assert "0.82" not in timing["output"] and "11.7" not in timing["output"]


def test_gradescope_shows_student_output_only_when_no_hidden_case_could_be_printed():
    assert "training on 4 words" not in render(sample_report(), "gradescope")
    shown = render(sample_report(), "gradescope", exercise_options={"show_student_output": True})
    assert "training on 4 words" in json.loads(shown)["output"]
    assert "hi" in json.loads(render(all_passing_report(), "gradescope"))["output"]


def test_gradescope_fences_submission_errors_in_its_markdown():
    output = json.loads(render(hostile_report(), "gradescope"))["output"]
    fenced = output.split("**Problems with the submission**\n\n", 1)[1]
    assert fenced.startswith("```text\ntrain_bpe raised ValueError: <script>")
    assert "\x1b" not in output


# --- PrairieLearn -----------------------------------------------------------------------


@pytest.mark.parametrize("build", [sample_report, hostile_report, all_passing_report])
def test_prairielearn_results_follow_the_published_format(build):
    report = build()
    data = validate(render(report, "prairielearn"), "prairielearn_results.schema.json")
    assert data["gradable"] is True
    assert data["score"] == pytest.approx(report.score / report.max_score)
    assert len(data["tests"]) == len(report.checks)
    assert [test["points"] for test in data["tests"]] == [check.score for check in report.checks]
    assert [test["max_points"] for test in data["tests"]] == [check.max_score for check in report.checks]


def test_prairielearn_marks_an_unimportable_submission_not_gradable():
    data = validate(render(not_gradable_report(), "prairielearn"), "prairielearn_results.schema.json")
    assert data["gradable"] is False
    assert data["format_errors"] == ["student.py does not import: SyntaxError: invalid syntax (line 3)"]
    assert "score" not in data and "tests" not in data


def test_prairielearn_follows_the_reports_gradable_marker():
    report = sample_report()
    report.errors = ["train_bpe is missing from student.py"]
    assert json.loads(render(report, "prairielearn"))["gradable"] is True
    report.errors = []
    report.mark_not_gradable("train_bpe is missing from student.py")
    assert report.gradable is False
    data = json.loads(render(report, "prairielearn"))
    assert data["gradable"] is False and data["format_errors"] == ["train_bpe is missing from student.py"]


def test_prairielearn_test_messages_explain_each_check():
    tests = json.loads(render(sample_report(), "prairielearn"))["tests"]
    ties = tests[1]
    assert ties["name"] == "Learn the merges: ties between equal counts"
    assert ties["message"] == "Your merges depart from the reference at step 4."
    assert "Likely mistake: Ties broken by first appearance" in ties["output"]
    assert tests[3]["message"].startswith("Hidden check: failed") and tests[3]["output"] == ""


def huge_report(checks: int, message_size: int, output_size: int, title_size: int = 10) -> GradeReport:
    milestone = MilestoneResult(
        "big", "Big",
        [CheckResult(f"c{i}", f"{i} " + "t" * title_size, False, 0.0, 1.0, message="m" * message_size)
         for i in range(checks)],
        float(checks),
    )
    return GradeReport("big", "Big", [milestone], student_output="o" * output_size)


@pytest.mark.parametrize(
    "checks, message_size, output_size, title_size, listed",
    [
        (400, 200_000, 5_000_000, 10, "with texts"),  # long texts are cut to a common length
        (4000, 1000, 0, 10, "names only"),            # per-check texts are dropped
        (3000, 10, 0, 280, "nothing"),                # even the names do not fit
    ],
)
def test_prairielearn_results_stay_under_one_megabyte(checks, message_size, output_size, title_size, listed):
    document = render(
        huge_report(checks, message_size, output_size, title_size), "prairielearn",
        exercise_options={"show_student_output": True, "student_output_limit": 10_000_000},
    )
    assert len(document.encode("utf-8")) <= SIZE_LIMIT_BYTES
    data = validate(document, "prairielearn_results.schema.json")
    if listed == "with texts":
        assert len(data["tests"]) == checks
        assert "more characters not shown" in data["output"]
        assert all(len(test["message"]) < message_size for test in data["tests"])
        assert len(document.encode("utf-8")) > SIZE_LIMIT_BYTES * 0.9, "the cut keeps as much as fits"
    elif listed == "names only":
        assert len(data["tests"]) == checks and set(data["tests"][0]) == {"name", "points", "max_points"}
        assert "per-check details were left out" in data["message"]
    else:
        assert data["tests"] == [] and "list of checks was left out" in data["message"]
    assert data["score"] == 0.0


def test_prairielearn_score_is_zero_when_nothing_is_at_stake():
    empty = GradeReport("none", "None", [MilestoneResult("m", "M", [], 0.0)])
    assert json.loads(render(empty, "prairielearn"))["score"] == 0.0


# --- GitHub Classroom -------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, status",
    [
        (sample_report, "fail"),
        (hostile_report, "fail"),
        (not_gradable_report, "error"),
        (all_passing_report, "pass"),
    ],
)
def test_classroom_result_follows_the_runner_format(build, status):
    report = build()
    data = validate(render(report, "classroom"), "classroom_result.schema.json")
    assert data["status"] == status
    assert data["max_score"] == report.max_score
    assert sum(test["score"] for test in data["tests"]) == pytest.approx(report.score)
    assert len(data["tests"]) == len(report.checks) + len(report.errors)


def test_classroom_messages_carry_feedback_and_errors_are_listed():
    data = json.loads(render(not_gradable_report(), "classroom"))
    submission = data["tests"][-1]
    assert submission == {
        "name": "Submission", "status": "error", "score": 0,
        "message": "student.py does not import: SyntaxError: invalid syntax (line 3)",
        "test_code": "", "filename": "", "line_no": 0,
    }
    ties = json.loads(render(sample_report(), "classroom"))["tests"][1]
    assert "Likely mistake: Ties broken by first appearance" in ties["message"]


def test_classroom_result_survives_the_reporters_base64_round_trip():
    document = render(hostile_report(), "classroom")
    decoded = json.loads(base64.b64decode(base64.b64encode(document.encode("utf-8"))).decode("utf-8"))
    assert decoded == json.loads(document)


def test_classroom_points_are_rounded_and_add_up_to_the_rounded_total():
    thirds = [CheckResult(f"c{i}", f"check {i}", True, 10 / 3, 10 / 3) for i in range(3)]
    report = GradeReport("t", "T", [MilestoneResult("m", "M", thirds + [
        CheckResult("x", "failed", False, 0.0, 100 / 3)], 10 + 100 / 3)])
    data = json.loads(render(report, "classroom"))
    scores = [test["score"] for test in data["tests"]]
    assert all(round(score, 2) == score for score in scores)
    assert sorted(scores) == [0, 3.33, 3.33, 3.34]
    assert round(sum(scores), 2) == round(report.score, 2) == 10
    assert data["max_score"] == 43.33


def test_classroom_total_is_exactly_the_rounded_score_as_the_reporter_adds_it():
    # The reporter adds the tests' scores one by one in floating point (JavaScript numbers
    # are the same doubles): that sum must be the rounded score itself, not 99.99999999999999.
    import functools
    import operator
    import random

    generator = random.Random(7)
    for _ in range(300):
        weights = [generator.random() for _ in range(generator.randint(1, 60))]
        total = generator.choice([100, 45, 7.5, 33.3])
        checks = [
            CheckResult(f"c{i}", f"check {i}", passed, share if passed else 0.0, share)
            for i, weight in enumerate(weights)
            for share, passed in [(total * weight / sum(weights), generator.random() < 0.6)]
        ]
        report = GradeReport("t", "T", [MilestoneResult("m", "M", checks, total)])
        scores = [test["score"] for test in json.loads(render(report, "classroom"))["tests"]]
        assert functools.reduce(operator.add, scores, 0) == round(report.score, 2)
        assert all(abs(round(score, 2) - score) < 1e-9 for score in scores)
