"""``grade bundle classroom``: the template repository's workflow and grading files, and the
grading step run as the workflow runs it (offline install, one grading, a result for the
reporter whatever happens), on the host and in the container simulation."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from grader.bundles.classroom import (
    BUNDLE_DIR,
    WORKFLOW_FILE,
    WorkflowOptionError,
    render_workflow,
)
from grader.commands.cli import main
from grader.spec import load_exercise
from support.container import container_available, container_command
from support.notebooks import DEMO_NOTES, demo_notebook
from support.host import host_environment
from support.wheels import shared_wheels  # noqa: F401 - the fixture, applied to every test here

pytestmark = pytest.mark.slow

EXERCISE = "bpe-train-encode"
TESTS = Path(__file__).parents[1]
SUBMISSIONS = TESTS / "submissions"
CUSTOM_SPEC = TESTS / "specs" / "valid-minimal.yaml"
SCHEMA = json.loads((TESTS / "schemas" / "classroom_result.schema.json").read_text())
NO_NETWORK = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
              "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
              "PIP_NO_INDEX": "1"}
STRICT_PENDING = ("strict sandbox mode refuses to grade in the container simulation until the "
                  "sandbox supports containers")


def steps_of(text: str) -> list[dict]:
    workflow = yaml.safe_load(text)
    assert workflow["permissions"]["checks"] == "write"
    return workflow["jobs"]["run-autograding-tests"]["steps"]


# --------------------------------------------------------------------------- the workflow


def test_the_workflow_grades_once_and_always_reports():
    steps = steps_of(render_workflow(load_exercise(EXERCISE)))
    names = [step["name"] for step in steps]
    assert names == ["Check out the submission", "Set up Python", "Install the grader", "Grade",
                     "Autograding Reporter"]
    install, grading, reporter = steps[2], steps[3], steps[4]
    assert install["continue-on-error"] is True
    assert grading["if"] == "always()" and reporter["if"] == "always()"
    assert grading["run"] == f"bash {BUNDLE_DIR}/run_grader"
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "grade submit" not in runs, "grading happens once, in run_grader"
    # the reporter reads <RUNNER>_RESULTS, base64 JSON, from its environment
    assert reporter["with"]["runners"] == grading["id"] == "bpe"
    assert reporter["env"]["BPE_RESULTS"] == "${{ steps.bpe.outputs.result }}"


def test_the_workflow_installs_from_the_shipped_wheels_by_default():
    steps = steps_of(render_workflow(load_exercise(EXERCISE), python_version="3.11"))
    install = next(step for step in steps if step["name"] == "Install the grader")
    assert install["run"] == f"BPE_AUTOGRADER_PYTHON=python bash {BUNDLE_DIR}/install.sh"
    assert "pip install" not in install["run"]
    assert any(step.get("with", {}).get("python-version") == "3.11" for step in steps)


def test_a_requirement_replaces_the_wheels():
    requirement = "bpe-autograder@git+https://github.com/example/bpe-autograder@v0.1.0"
    steps = steps_of(render_workflow(load_exercise(EXERCISE), install=requirement))
    install = next(step for step in steps if step["name"] == "Install the grader")
    assert f'pip install "{requirement}"' in install["run"]


@pytest.mark.parametrize(
    "update, arguments, fragment",
    [
        ({"id": "x; rm -rf ~"}, {}, "exercise id"),
        ({"student_file": "a b.py"}, {}, "submission file name"),
        ({}, {"install": "pkg && curl evil"}, "install requirement"),
        ({}, {"python_version": "latest"}, "Python version"),
    ],
)
def test_the_workflow_refuses_values_it_cannot_write_safely(update, arguments, fragment):
    exercise = load_exercise(EXERCISE).model_copy(update=update)
    with pytest.raises(WorkflowOptionError) as error:
        render_workflow(exercise, **arguments)
    assert fragment in str(error.value)


def test_a_workflow_file_as_output_is_refused_with_the_new_usage(tmp_path):
    result = CliRunner().invoke(main, ["bundle", "classroom", EXERCISE, "--install", "x",
                                       "-o", str(tmp_path / "classroom.yml")])
    assert result.exit_code == 2 and "template repository's directory" in result.output


def test_unsafe_requirements_are_usage_errors(tmp_path):
    result = CliRunner().invoke(main, ["bundle", "classroom", EXERCISE, "-o", str(tmp_path),
                                       "--install", "bpe-autograder; rm -rf /"])
    assert result.exit_code == 2 and "install requirement" in result.output


# --------------------------------------------------------------------------- the repository


def build_repository(directory: Path, exercise: str) -> None:
    result = CliRunner().invoke(main, ["bundle", "classroom", exercise, "-o", str(directory),
                                       "--for-this-python"])
    if result.exit_code != 0 and "pip could not" in result.output:
        pytest.skip(f"cannot obtain the wheels: {result.output.strip()[-300:]}")
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A template repository for a custom exercise (a spec file, not a shipped id)."""
    directory = tmp_path_factory.mktemp("template") / "repo"
    build_repository(directory, str(CUSTOM_SPEC))
    return directory


def test_the_template_repository_holds_everything_the_workflow_uses(template):
    exercise = load_exercise(CUSTOM_SPEC)
    bundle = template / BUNDLE_DIR
    config = json.loads((bundle / "bundle.json").read_text())
    assert (bundle / config["exercise_file"]).read_text() == CUSTOM_SPEC.read_text()
    assert config["max_score"] == exercise.total_points and config["strict_sandbox"] is False
    for script in ("install.sh", "run_grader", "entrypoint.py"):
        assert os.access(bundle / script, os.X_OK), script
    wheels = sorted(path.name for path in (bundle / "wheels").iterdir())
    assert any(name.startswith("bpe_autograder-") for name in wheels)
    assert any(name.startswith("pip-") for name in wheels)
    assert (template / exercise.student_file).is_file(), "the stub is the student's starting file"
    workflow = (template / WORKFLOW_FILE).read_text()
    assert f"python-version: \"{sys.version_info.major}.{sys.version_info.minor}\"" in workflow


def test_building_again_needs_force_and_keeps_the_students_file(template):
    student = template / load_exercise(CUSTOM_SPEC).student_file
    student.write_text("# my work\n")
    refused = CliRunner().invoke(main, ["bundle", "classroom", str(CUSTOM_SPEC), "-o", str(template),
                                        "--install", "bpe-autograder==0.1.0"])
    assert refused.exit_code == 2 and "--force" in refused.output
    forced = CliRunner().invoke(main, ["bundle", "classroom", str(CUSTOM_SPEC), "-o", str(template),
                                       "--install", "bpe-autograder==0.1.0", "--force"])
    assert forced.exit_code == 0, forced.output
    assert student.read_text() == "# my work\n"
    assert not (template / BUNDLE_DIR / "wheels").exists()
    build_repository_forced(template)


def build_repository_forced(directory: Path) -> None:
    result = CliRunner().invoke(main, ["bundle", "classroom", str(CUSTOM_SPEC), "-o", str(directory),
                                       "--for-this-python", "--force"])
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------- running the workflow's steps


def run_steps(repository: Path, scratch: Path, submission: Path | None, *, in_container: bool = False,
              install: bool = True, notebook: Path | None = None) -> tuple[dict, str]:
    """The workflow's install and grading steps on a copy of ``repository``, as the runner
    runs them; returns the result handed to the reporter (decoded) and the job log.

    The install step runs once per environment and install step (its script and the wheels it
    installs, the same in every repository of this run): later runs reuse the runner's
    temporary directory it installed into (it depends on neither the submission, the exercise
    nor the workspace copy)."""
    workspace = scratch / "workspace"
    shutil.copytree(repository, workspace, symlinks=True)
    student = workspace / "student.py"
    if notebook is None or submission is not None:  # with a notebook alone: the template's file
        student.unlink(missing_ok=True)
    if submission is not None:
        shutil.copy(submission, student)
    if notebook is not None:
        shutil.copy(notebook, workspace / "student.ipynb")
    installed_key = (install_step(repository), in_container)
    runner_temp = _INSTALLED[installed_key][0] if install and installed_key in _INSTALLED \
        else scratch / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    output = scratch / "github-output"
    output.write_text("")
    environment = dict(host_environment(), GITHUB_WORKSPACE=str(workspace), RUNNER_TEMP=str(runner_temp),
                       GITHUB_OUTPUT=str(output), BPE_AUTOGRADER_PYTHON=sys.executable, **NO_NETWORK)
    environment.pop("BPE_AUTOGRADER_VENV", None)
    wrap = container_command if in_container else list
    log = ""
    if install and installed_key in _INSTALLED:
        assert (runner_temp / "bpe-venv" / "bin" / "grade").is_file(), "installed already"
        log += _INSTALLED[installed_key][1]
    elif install:
        installed = subprocess.run(wrap(["bash", str(workspace / BUNDLE_DIR / "install.sh")]),
                                   env=environment, capture_output=True, text=True, timeout=600,
                                   cwd=workspace)
        assert installed.returncode == 0, installed.stdout + installed.stderr
        log += installed.stdout
        _INSTALLED[installed_key] = (runner_temp, installed.stdout)
    graded = subprocess.run(wrap(["bash", str(workspace / BUNDLE_DIR / "run_grader")]),
                            env=environment, capture_output=True, text=True, timeout=600, cwd=workspace)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    log += graded.stdout
    lines = [line for line in output.read_text().splitlines() if line.startswith("result=")]
    assert len(lines) == 1, output.read_text()
    result = json.loads(base64.b64decode(lines[0].removeprefix("result=")))
    jsonschema.Draft202012Validator(SCHEMA).validate(result)
    return result, log


_INSTALLED: dict[tuple[str, bool], tuple[Path, str]] = {}


def install_step(repository: Path) -> str:
    """What the install step depends on: ``install.sh`` and the wheels beside it (names and
    contents), as one digest."""
    bundle = repository / BUNDLE_DIR
    digest = hashlib.sha256((bundle / "install.sh").read_bytes())
    for wheel in sorted((bundle / "wheels").iterdir()):
        digest.update(wheel.name.encode() + b"\0" + hashlib.sha256(wheel.read_bytes()).digest())
    return digest.hexdigest()


def recorded(result: dict) -> float:
    """What the grading reporter records: the sum of the tests' scores."""
    return sum(test["score"] for test in result["tests"])


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("shipped") / "repo"
    build_repository(directory, EXERCISE)
    return directory


@pytest.mark.parametrize(
    "submission, outcome",
    [
        ("correct_counter.py", "full"),
        ("wrong_tie_first_seen.py", "partial"),
        ("broken_raises.py", "zero"),  # graded, but no solution shows itself: no points
        (None, "missing"),
    ],
)
def test_the_grading_step_always_hands_the_reporter_a_result(shipped, tmp_path, submission, outcome):
    exercise = load_exercise(EXERCISE)
    path = SUBMISSIONS / submission if submission else None
    result, log = run_steps(shipped, tmp_path, path)
    assert result["max_score"] == exercise.total_points
    score = recorded(result)
    assert f"Score recorded by GitHub Classroom: {score:g}/100" in log
    assert all(abs(round(test["score"], 2) - test["score"]) < 1e-9 for test in result["tests"])
    if outcome == "full":
        assert score == exercise.total_points and result["status"] == "pass"
    elif outcome == "partial":
        assert 0 < score < exercise.total_points and result["status"] == "fail"
        passed = sum(test["status"] == "pass" for test in result["tests"])
        share = passed / len(result["tests"]) * 100
        assert f"Total points for bpe: {share:.2f}/100" in log, "the log says why the two differ"
    elif outcome == "zero":
        assert score == 0 and result["status"] == "fail" and len(result["tests"]) > 1
    else:
        assert score == 0 and result["status"] == "error"
        [test] = result["tests"]
        assert test["name"] == "Submission file" and "student.py is missing" in test["message"]


def test_a_failed_installation_is_recorded_as_zero_with_the_reason(shipped, tmp_path):
    result, log = run_steps(shipped, tmp_path, SUBMISSIONS / "correct_counter.py", install=False)
    assert recorded(result) == 0 and result["max_score"] == 100 and result["status"] == "error"
    [test] = result["tests"]
    assert test["name"] == "Autograder error" and "not installed" in test["message"]


def test_a_custom_exercise_is_graded_against_its_shipped_spec(template, tmp_path):
    result, _ = run_steps(template, tmp_path, SUBMISSIONS / "correct_counter.py")
    assert result["status"] == "pass"
    assert recorded(result) == result["max_score"] == load_exercise(CUSTOM_SPEC).total_points


CONTAINER_CASES = [
    ("correct_counter.py", "pass"),
    ("wrong_tie_first_seen.py", "fail"),
    ("broken_raises.py", "fail"),
    ("broken_syntax.py", "error"),
    (None, "error"),
]


@pytest.mark.parametrize("submission, status", CONTAINER_CASES)
def test_the_grading_step_in_a_default_container(shipped, tmp_path, submission, status):
    reason = container_available()
    if reason:
        pytest.skip(reason)
    path = SUBMISSIONS / submission if submission else None
    result, _ = run_steps(shipped, tmp_path, path, in_container=True)
    assert result["status"] == status, json.dumps(result)[:2000]
    assert not any(test["name"] == "Autograder error" for test in result["tests"])


def test_a_notebook_is_graded_in_a_default_container_and_the_log_says_so(shipped, tmp_path):
    """student.ipynb beside the template's student.py: the notebook is graded, the job log
    names it, and its notes reach the log and the reporter's entries."""
    reason = container_available()
    if reason:
        pytest.skip(reason)
    notebook = demo_notebook(SUBMISSIONS / "wrong_tie_first_seen.py", tmp_path / "book.ipynb")
    (tmp_path / "template").mkdir()
    result, log = run_steps(shipped, tmp_path / "template", None, in_container=True,
                            notebook=notebook)
    assert "graded file: student.ipynb: student.py is still the template's" in log
    assert 0 < recorded(result) < 100 and result["status"] == "fail"
    notes = [test["message"] for test in result["tests"] if test["name"] == "About your submission"]
    for needle in DEMO_NOTES:
        assert any(needle in note for note in notes), needle
        assert any(needle in line for line in log.splitlines() if line.startswith("[NOTE]")), needle
    (tmp_path / "changed").mkdir()
    result, log = run_steps(shipped, tmp_path / "changed", SUBMISSIONS / "correct_counter.py",
                            in_container=True, notebook=notebook)
    assert "student.py is no longer the template's, so student.py is graded" in log
    assert recorded(result) == 100
