"""``grade submit``: reports on stdout or in a file, and the documented exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from grader.commands.cli import main
from grader.grading import engine
from grader.spec.loading import exercise_path

SUBMISSIONS = Path(__file__).parents[1] / "submissions"


@pytest.fixture(scope="module")
def spec_file(tmp_path_factory) -> Path:
    """bpe-train-encode without its (slow) efficiency milestone and with fewer generated
    examples, as a spec file: the CLI is under test here, not the checks."""
    data = yaml.safe_load(exercise_path("bpe-train-encode").read_text(encoding="utf-8"))
    data["properties"]["examples"] = 12
    data["milestones"] = [
        m for m in data["milestones"] if all(c["kind"] != "efficiency" for c in m["checks"])
    ]
    path = tmp_path_factory.mktemp("spec") / "bpe-train-encode.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def grade(*args: str):
    return CliRunner().invoke(main, ["submit", *args])


@pytest.fixture(scope="module")
def correct_json(spec_file):
    return grade(str(SUBMISSIONS / "correct_counter.py"), "--exercise", str(spec_file), "--format", "json")


def test_correct_submission_json_alone_on_stdout_with_full_marks(correct_json):
    assert correct_json.exit_code == 0, correct_json.stderr
    report = json.loads(correct_json.stdout)  # nothing but the report on stdout
    assert report["exercise"] == "bpe-train-encode"
    assert report["score"] == report["max_score"] == 85
    assert [m["id"] for m in report["milestones"]] == ["train", "encode"]
    assert report["errors"] == []
    check = report["milestones"][0]["checks"][0]
    assert set(check) >= {"id", "passed", "score", "max_score", "visibility", "message", "diagnosis"}


def test_output_file_is_written_and_stdout_stays_empty(spec_file, tmp_path):
    target = tmp_path / "results.json"
    result = grade(str(SUBMISSIONS / "broken_syntax.py"), "--exercise", str(spec_file),
                   "--format", "gradescope", "-o", str(target))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["score"] == 0
    assert f"report written to {target}" in result.stderr


@pytest.mark.parametrize(
    "name, needle",
    [
        ("broken_syntax", "SyntaxError on line 5"),
        ("broken_missing_encode", "does not define encode()"),
        ("broken_raises", "train_bpe raised KeyError"),
        ("broken_generator", "it returned a generator object"),
        ("broken_none", "it returned None"),
    ],
)
def test_broken_submissions_are_graded_with_exit_zero(name, needle, spec_file):
    result = grade(str(SUBMISSIONS / f"{name}.py"), "--exercise", str(spec_file), "--format", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["score"] < report["max_score"]
    assert needle in result.stdout


def test_empty_file_needs_the_exercise_named_and_is_then_graded_zero(spec_file):
    unnamed = grade(str(SUBMISSIONS / "broken_empty.py"))
    assert unnamed.exit_code == 2
    assert "the file is empty" in unnamed.stderr and "Traceback" not in unnamed.output
    named = grade(str(SUBMISSIONS / "broken_empty.py"), "--exercise", str(spec_file), "--format", "json")
    assert named.exit_code == 0
    assert "the file is empty" in json.loads(named.stdout)["errors"][0]


def test_text_report_without_colour_when_not_a_terminal(spec_file):
    result = grade(str(SUBMISSIONS / "wrong_tie_first_seen.py"), "--exercise", str(spec_file))
    assert result.exit_code == 0
    assert "\x1b[" not in result.stdout
    assert "Milestone 1" in result.stdout and "merge 1 differs" in result.stdout


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--exercise", "no-such-exercise"], "no-such-exercise"),
        (["--format", "pdf"], "pdf"),
        (["-o", "/no/such/dir/report.txt"], "does not exist"),
    ],
)
def test_usage_errors_exit_two(args, needle):
    result = grade(str(SUBMISSIONS / "correct_counter.py"), *args)
    assert result.exit_code == 2
    assert needle in result.stderr
    assert result.stdout == ""


def test_missing_submission_file_exits_two(tmp_path):
    result = grade(str(tmp_path / "absent.py"))
    assert result.exit_code == 2
    assert "absent.py" in result.stderr


def test_a_fault_of_the_grader_exits_one_with_a_short_message(monkeypatch, spec_file):
    def broken(*args, **kwargs):
        raise RuntimeError("the engine fell over")

    monkeypatch.setattr(engine, "grade_submission", broken)
    result = grade(str(SUBMISSIONS / "correct_counter.py"), "--exercise", str(spec_file))
    assert result.exit_code == 1
    assert "internal error while grading correct_counter.py: RuntimeError: the engine fell over" in result.stderr
    assert "report it" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
