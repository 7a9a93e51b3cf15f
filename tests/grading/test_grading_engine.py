"""The grading engine on correct submissions: full marks, exact points, deterministic JSON.

The efficiency milestone is left out of these gradings (an exercise copy without it) so the
tests stay fast; its own tests live with the efficiency check.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from exercise_variants import quick, without_efficiency

from grader.grading.engine import (
    GradingSetupError,
    exercise_header,
    grade_submission,
    resolve_exercise,
)
from grader.result import GradeReport
from grader.spec import Exercise, load_exercise
from support.reports import without_durations

SUBMISSIONS = Path(__file__).parents[1] / "submissions"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def train_encode() -> Exercise:
    return quick(load_exercise("bpe-train-encode"))


@pytest.fixture(scope="module")
def lesson97() -> Exercise:
    return quick(load_exercise("lesson97-bpe"))


def assert_full_marks(report: GradeReport, exercise: Exercise) -> None:
    failed = [(m.id, c.id, c.message) for m in report.milestones for c in m.checks if not c.passed]
    assert failed == []
    assert report.errors == []
    assert [m.id for m in report.milestones] == [m.id for m in exercise.milestones]
    for milestone, spec in zip(report.milestones, exercise.milestones):
        assert milestone.score == milestone.max_score == spec.points
    assert report.score == report.max_score == exercise.total_points


@pytest.mark.parametrize(
    "style", ["correct_counter", "correct_dicts", "correct_incremental", "correct_heap"]
)
def test_correct_submissions_in_every_style_get_full_marks(style, train_encode):
    report = grade_submission(SUBMISSIONS / f"{style}.py", train_encode)
    assert_full_marks(report, train_encode)
    kinds = {check.id.split(":")[0] for check in report.checks}
    assert {"cases", "differential", "property"} <= kinds


def test_correct_submission_gets_full_marks_under_the_exercises_own_settings():
    exercise = without_efficiency(load_exercise("bpe-train-encode"))
    report = grade_submission(SUBMISSIONS / "correct_counter.py", exercise)
    assert_full_marks(report, exercise)
    differential = next(c for c in report.checks if c.id == "differential")
    assert f"on {exercise.properties.examples} generated inputs" in differential.message


@pytest.fixture(scope="module")
def noisy_report(train_encode) -> GradeReport:
    return grade_submission(SUBMISSIONS / "correct_noisy.py", train_encode)


def test_noisy_submission_gets_full_marks(noisy_report, train_encode):
    assert_full_marks(noisy_report, train_encode)


def test_noisy_submission_output_is_captured_and_capped(noisy_report):
    report = noisy_report
    assert "loading student.py" in report.student_output
    assert len(report.student_output) < 100_000  # it printed megabytes


def test_lesson97_correct_submission_gets_full_marks(lesson97):
    report = grade_submission(SUBMISSIONS / "lesson97_correct.py", lesson97)
    assert_full_marks(report, lesson97)
    lengths = report.milestones[2]
    assert any(check.id.startswith("cases:") for check in lengths.checks)
    assert any(check.id == "property:ordered" for check in lengths.checks)


def test_hidden_and_visible_cases_all_count_and_points_add_up(train_encode):
    report = grade_submission(SUBMISSIONS / "correct_counter.py", train_encode)
    for milestone in report.milestones:
        assert sum(check.max_score for check in milestone.checks) == pytest.approx(
            milestone.max_score, abs=1e-9
        )
    train = report.milestones[0]
    hidden = [check for check in train.checks if check.visibility == "hidden"]
    assert len(hidden) == len(train_encode.hidden_cases)
    assert all(check.details is None and check.message == "passed" for check in hidden)


@pytest.mark.parametrize("name", ["correct_counter", "wrong_tie_first_seen"])
def test_grading_twice_gives_identical_json_apart_from_durations(name, train_encode):
    first = grade_submission(SUBMISSIONS / f"{name}.py", train_encode).to_json()
    second = grade_submission(SUBMISSIONS / f"{name}.py", train_encode).to_json()
    assert "seconds" in first  # the total duration is measured...
    assert without_durations(first) == without_durations(second)  # ...and is all that differs
    assert json.dumps(without_durations(first)) == json.dumps(without_durations(second))


def test_full_exercise_includes_the_efficiency_milestone_when_asked():
    exercise = load_exercise("bpe-train-encode")
    assert any(m.check("efficiency") for m in exercise.milestones)
    assert all(m.check("efficiency") is None for m in without_efficiency(exercise).milestones)


# --------------------------------------------------------------------------- finding the exercise


def test_the_header_line_names_the_exercise(tmp_path):
    student = tmp_path / "mine.py"
    student.write_text('"""My BPE."""\n# exercise: lesson97-bpe\n\ndef train_bpe(c, k):\n    return []\n')
    assert exercise_header(student) == "lesson97-bpe"
    assert resolve_exercise(student, None).id == "lesson97-bpe"
    assert resolve_exercise(student, "bpe-train-encode").id == "bpe-train-encode"  # given wins


def test_no_header_and_no_exercise_is_a_clear_setup_error(tmp_path):
    student = tmp_path / "student.py"
    student.write_text("def train_bpe(corpus, num_merges):\n    return []\n")
    with pytest.raises(GradingSetupError) as caught:
        grade_submission(student)
    message = str(caught.value)
    assert "# exercise: ID" in message and "--exercise" in message
    assert "bpe-train-encode" in message  # lists what is available


def test_the_header_may_name_a_shipped_exercise_but_never_a_spec_file(tmp_path):
    spec = tmp_path / "lesson97-bpe.yaml"
    spec.write_text((Path(__file__).parents[2] / "exercises" / "lesson97-bpe.yaml").read_text())
    student = tmp_path / "student.py"
    student.write_text(f"# exercise: {spec}\ndef train_bpe(corpus, num_merges):\n    return []\n")
    with pytest.raises(GradingSetupError, match="is not an exercise id"):
        resolve_exercise(student, None)
    assert resolve_exercise(student, str(spec)).id == "lesson97-bpe"  # an instructor's --exercise may


def test_unknown_exercise_is_a_clear_setup_error(tmp_path):
    student = tmp_path / "student.py"
    student.write_text("# exercise: no-such-exercise\n")
    with pytest.raises(GradingSetupError, match="no-such-exercise.*available: .*bpe-train-encode"):
        grade_submission(student)


def test_missing_submission_file_is_a_clear_setup_error(tmp_path):
    with pytest.raises(GradingSetupError, match="no such file"):
        grade_submission(tmp_path / "absent.py", "bpe-train-encode")


# --------------------------------------------------------------------------- one way through


OPEN_COUNTER = """
import os, sys
target = os.path.realpath(sys.argv[1])
opened = []


def hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
        if os.path.realpath(os.fsdecode(args[0])) == target:
            opened.append(args)


sys.addaudithook(hook)
from grader.commands.cli import main

try:
    main(["submit", sys.argv[1], "--format", "json", "-q", "--seed-secret", "s", "-o", sys.argv[2]])
except SystemExit as stop:
    assert not stop.code, stop.code
print(len(opened))
"""


@pytest.mark.parametrize("example", ["bpe-train-encode/student_wrong.py",
                                     "hand-bpe/answers_wrong.yaml"])
def test_grade_submit_opens_the_submission_file_once(tmp_path, example):
    import subprocess
    import sys

    student = tmp_path / Path(example).name
    student.write_bytes((ROOT / "examples" / example).read_bytes())
    ran = subprocess.run([sys.executable, "-c", OPEN_COUNTER, str(student), str(tmp_path / "r.json")],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split()[-1] == "1", ran.stdout
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["max_score"] > 0


def test_no_stage_changes_a_report_once_it_is_built(monkeypatch):
    """The engine settles every point (evidence of work included) before it builds the
    report; rendering reads it. A report's fields are never assigned after its construction."""
    from grader.report import render

    original_init = GradeReport.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        object.__setattr__(self, "_built", True)

    def assign(self, name, value):
        assert not getattr(self, "_built", False), f"{name} of a built report was changed"
        object.__setattr__(self, name, value)

    monkeypatch.setattr(GradeReport, "__init__", init)
    monkeypatch.setattr(GradeReport, "__setattr__", assign)
    exercise = without_efficiency(load_exercise("bpe-train-encode"))
    for example in ("student_wrong.py", "student_correct.py"):
        report = grade_submission(ROOT / "examples" / "bpe-train-encode" / example, exercise,
                                  seed_secret="s", helper=False)
        assert report._built
        for fmt in ("json", "text", "html", "gradescope"):
            render(report, fmt)
