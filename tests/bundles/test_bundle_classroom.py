"""``grade bundle classroom``: the GitHub Classroom workflow for a student template repository."""

from __future__ import annotations

import yaml
from click.testing import CliRunner

from grader.cli import main
from grader.spec import load_exercise

EXERCISE = "bpe-train-encode"


def test_the_workflow_grades_the_exercises_student_file(tmp_path):
    output = tmp_path / "classroom.yml"
    requirement = "bpe-autograder@git+https://github.com/example/bpe-autograder@v0.1.0"
    result = CliRunner().invoke(main, ["bundle", "classroom", EXERCISE, "-o", str(output),
                                       "--install", requirement, "--python-version", "3.11"])
    assert result.exit_code == 0, result.output
    workflow = yaml.safe_load(output.read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    commands = "\n".join(step.get("run", "") for step in steps)
    student_file = load_exercise(EXERCISE).student_file
    assert f"grade submit {student_file} --exercise {EXERCISE} --format classroom" in commands
    assert requirement in commands
    assert any(step.get("with", {}).get("python-version") == "3.11" for step in steps)


def test_without_an_output_the_workflow_goes_to_standard_output():
    result = CliRunner().invoke(main, ["bundle", "classroom", EXERCISE])
    assert result.exit_code == 0 and "Autograding Reporter" in result.output


def test_a_requirement_with_spaces_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["bundle", "classroom", EXERCISE, "--install", "bpe-autograder; rm -rf /"])
    assert result.exit_code == 2 and "install requirement" in result.output


def test_a_missing_output_directory_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["bundle", "classroom", EXERCISE, "-o", str(tmp_path / "nope" / "c.yml")])
    assert result.exit_code == 2 and "does not exist" in result.output
