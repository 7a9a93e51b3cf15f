"""The stdlib-only LMS entrypoint: finding the submission, and a valid result whatever happens.

The entrypoint runs on the grading host from the grader's environment. Here that
environment is either this test's own (``BPE_AUTOGRADER_VENV=sys.prefix``, whose ``grade``
is the checkout's) or a fake one whose ``grade`` fails the way a host can make it fail.
"""

from __future__ import annotations

import base64
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader.bundles.common import write_grading_files
from grader.spec import load_exercise
from grader.package_data import templates_path
from support.host import host_environment

SCHEMAS = Path(__file__).parents[1] / "schemas"
SUBMISSIONS = Path(__file__).parents[1] / "submissions"
ENTRYPOINT = templates_path() / "lms" / "entrypoint.py"


def load_entrypoint():
    spec = importlib.util.spec_from_file_location("lms_entrypoint", ENTRYPOINT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


entrypoint = load_entrypoint()


def validate(path: Path, schema_name: str) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads((SCHEMAS / schema_name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)
    return data


# --------------------------------------------------------------------------- finding the submission


def write(path: Path, text: str = "x = 1\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_the_spec_file_name_wins_even_among_other_files(tmp_path):
    write(tmp_path / "helper.py")
    expected = write(tmp_path / "student.py")
    assert entrypoint.find_submission(tmp_path, "student.py") == expected


def test_the_spec_file_name_is_found_in_a_subdirectory(tmp_path):
    expected = write(tmp_path / "hw" / "student.py")
    write(tmp_path / "hw" / "notes.txt")
    assert entrypoint.find_submission(tmp_path, "student.py") == expected


def test_a_single_python_file_of_another_name_is_accepted(tmp_path):
    expected = write(tmp_path / "my_bpe.py")
    write(tmp_path / "__pycache__" / "my_bpe.cpython-311.py")
    assert entrypoint.find_submission(tmp_path, "student.py") == expected


def test_several_python_files_without_the_expected_one_are_refused_by_name(tmp_path):
    write(tmp_path / "a.py")
    write(tmp_path / "b.py")
    with pytest.raises(entrypoint.SubmissionProblem) as caught:
        entrypoint.find_submission(tmp_path, "student.py")
    message = str(caught.value)
    assert "a.py" in message and "b.py" in message and "student.py" in message


@pytest.mark.parametrize("create", [False, True])
def test_no_python_file_is_refused(tmp_path, create):
    directory = tmp_path / "submission"
    if create:
        write(directory / "README.md")
    with pytest.raises(entrypoint.SubmissionProblem, match="student.py"):
        entrypoint.find_submission(directory, "student.py")


def test_a_link_is_refused_so_it_cannot_point_at_the_bundle(tmp_path):
    secret = write(tmp_path / "source" / "exercise.yaml", "hidden: case\n")
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "student.py").symlink_to(secret)
    with pytest.raises(entrypoint.SubmissionProblem, match="link"):
        entrypoint.find_submission(tmp_path / "submission", "student.py")


# --------------------------------------------------------------------------- running on a host


def make_host(tmp_path: Path, platform: str, submissions: dict, *, sandbox: str = "best-effort"):
    """A Gradescope- or PrairieLearn-like root with the grading files and the given files."""
    exercise = load_exercise("bpe-train-encode")
    root = tmp_path / "root"
    if platform == "gradescope":
        bundle_dir, submission_dir = root / "source", root / "submission"
    else:
        bundle_dir, submission_dir = root / "tests", root / "student"
    write_grading_files(bundle_dir, exercise, sandbox=sandbox)
    submission_dir.mkdir(parents=True)
    for name, source in submissions.items():
        shutil.copy(source, submission_dir / name) if isinstance(source, Path) else write(submission_dir / name, source)
    return root, bundle_dir, exercise


def run_entrypoint(platform: str, root: Path, bundle_dir: Path, python: str = sys.executable):
    variable = "AUTOGRADER_ROOT" if platform == "gradescope" else "GRADE_ROOT"
    environment = dict(host_environment(), **{variable: str(root)})
    finished = subprocess.run([python, str(bundle_dir / "entrypoint.py"), platform], env=environment,
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    return finished, root / "results" / "results.json"


def fake_environment(tmp_path: Path, grade_script: str) -> str:
    """An environment whose ``grade`` is ``grade_script``; returns its python's path."""
    bin_dir = tmp_path / "fake-venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.symlink_to(sys.executable)
    grade = bin_dir / "grade"
    grade.write_text(grade_script)
    grade.chmod(0o755)
    return str(python)


REFUSING_GRADE = """#!/bin/sh
echo "$@" > "$(dirname "$0")/arguments"
echo "grade submit: refusing to grade with --strict-sandbox: this host cannot set up network-namespace." >&2
exit 1
"""

CRASHING_GRADE = """#!/bin/sh
echo 'Traceback (most recent call last):' >&2
echo '  File "grader/grading/engine.py", line 1, in secret_internals' >&2
echo 'KeyError: hidden-case-expected-value' >&2
echo 'grade submit: internal error while grading student.py: KeyError: hidden-case-expected-value' >&2
exit 1
"""


def test_a_strict_sandbox_refusal_is_an_autograder_error_with_the_sandbox_message(tmp_path):
    root, bundle_dir, exercise = make_host(tmp_path, "gradescope", {"student.py": SUBMISSIONS / "correct_counter.py"},
                                           sandbox="strict")
    python = fake_environment(tmp_path, REFUSING_GRADE)
    finished, results_file = run_entrypoint("gradescope", root, bundle_dir, python)
    results = validate(results_file, "gradescope_results.schema.json")
    arguments = (Path(python).parent / "arguments").read_text().split()
    assert "--strict-sandbox" in arguments and arguments[arguments.index("--format") + 1] == "gradescope"
    assert results["score"] == 0
    [test] = results["tests"]
    assert test["name"] == "Autograder error" and test["visibility"] == "visible"
    assert test["max_score"] == exercise.total_points
    assert "network-namespace" in test["output"]
    assert results["stdout_visibility"] == "hidden"


def test_a_best_effort_bundle_does_not_ask_for_the_strict_sandbox(tmp_path):
    root, bundle_dir, _ = make_host(tmp_path, "gradescope", {"student.py": "x = 1\n"}, sandbox="best-effort")
    python = fake_environment(tmp_path, REFUSING_GRADE)
    run_entrypoint("gradescope", root, bundle_dir, python)
    assert "--strict-sandbox" not in (Path(python).parent / "arguments").read_text().split()


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
def test_a_grader_crash_keeps_its_traceback_out_of_the_students_result(tmp_path, platform):
    root, bundle_dir, _ = make_host(tmp_path, platform, {"student.py": "x = 1\n"})
    python = fake_environment(tmp_path, CRASHING_GRADE)
    finished, results_file = run_entrypoint(platform, root, bundle_dir, python)
    text = results_file.read_text()
    assert "Traceback" not in text and "hidden-case-expected-value" not in text
    assert "hidden-case-expected-value" in finished.stdout  # staff still see it in the log
    assert "internal error" in text
    if platform == "gradescope":
        results = validate(results_file, "gradescope_results.schema.json")
        assert [test["name"] for test in results["tests"]] == ["Autograder error"]
    else:
        results = validate(results_file, "prairielearn_results.schema.json")
        assert results["gradable"] is False


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
def test_a_missing_grader_installation_still_writes_a_valid_result(tmp_path, platform):
    root, bundle_dir, _ = make_host(tmp_path, platform, {"student.py": "x = 1\n"})
    bin_dir = tmp_path / "empty-venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").symlink_to(sys.executable)
    _, results_file = run_entrypoint(platform, root, bundle_dir, str(bin_dir / "python"))
    schema = f"{platform}_results.schema.json"
    results = validate(results_file, schema)
    shown = json.dumps(results)
    assert "not installed" in shown


def test_an_unreadable_bundle_config_is_an_autograder_error(tmp_path):
    root, bundle_dir, _ = make_host(tmp_path, "gradescope", {"student.py": "x = 1\n"})
    (bundle_dir / "bundle.json").write_text("{not json")
    _, results_file = run_entrypoint("gradescope", root, bundle_dir)
    results = validate(results_file, "gradescope_results.schema.json")
    assert results["tests"][0]["name"] == "Autograder error" and results["score"] == 0


def test_several_files_are_a_submission_problem_not_an_autograder_error(tmp_path):
    root, bundle_dir, exercise = make_host(tmp_path, "gradescope", {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    _, results_file = run_entrypoint("gradescope", root, bundle_dir)
    results = validate(results_file, "gradescope_results.schema.json")
    [test] = results["tests"]
    assert test["name"] == "Submission file" and test["max_score"] == exercise.total_points
    assert "a.py" in test["output"] and "b.py" in test["output"]


def test_several_files_are_not_gradable_on_prairielearn(tmp_path):
    root, bundle_dir, _ = make_host(tmp_path, "prairielearn", {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    _, results_file = run_entrypoint("prairielearn", root, bundle_dir)
    results = validate(results_file, "prairielearn_results.schema.json")
    assert results["gradable"] is False and "a.py" in results["format_errors"][0]


def test_an_unknown_platform_is_a_usage_error():
    finished = subprocess.run([sys.executable, str(ENTRYPOINT), "moodle"], capture_output=True, text=True)
    assert finished.returncode == 2 and "gradescope|prairielearn" in finished.stderr


HANGING_GRADE = """#!/bin/sh
sleep 60 &
sleep 60
"""


def test_a_hanging_grading_is_stopped_whole_and_reported(tmp_path):
    root, bundle_dir, _ = make_host(tmp_path, "gradescope", {"student.py": "x = 1\n"})
    config = json.loads((bundle_dir / "bundle.json").read_text())
    (bundle_dir / "bundle.json").write_text(json.dumps(dict(config, timeout_seconds=1)))
    python = fake_environment(tmp_path, HANGING_GRADE)
    _, results_file = run_entrypoint("gradescope", root, bundle_dir, python)
    results = validate(results_file, "gradescope_results.schema.json")
    # The background sleep holds the output pipe: only killing the whole group ends the wait.
    assert "did not finish within 1 seconds" in results["tests"][0]["output"]


# --------------------------------------------------------------------------- GitHub Classroom


def run_classroom(tmp_path: Path, files: dict, *, config_text: str | None = None,
                  extra_env: dict | None = None) -> tuple[dict, str]:
    exercise = load_exercise("bpe-train-encode")
    workspace = tmp_path / "workspace"
    bundle_dir = workspace / ".github" / "bpe-autograder"
    write_grading_files(bundle_dir, exercise, sandbox="best-effort")
    if config_text is not None:
        (bundle_dir / "bundle.json").write_text(config_text)
    for name, source in files.items():
        shutil.copy(source, workspace / name)
    output = tmp_path / "github-output"
    environment = dict(host_environment(), GITHUB_WORKSPACE=str(workspace), RUNNER_TEMP=str(tmp_path),
                       GITHUB_OUTPUT=str(output), **(extra_env or {}))
    finished = subprocess.run([sys.executable, str(bundle_dir / "entrypoint.py"), "classroom"],
                              env=environment, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    [line] = [line for line in output.read_text().splitlines() if line.startswith("result=")]
    result = json.loads(base64.b64decode(line.removeprefix("result=")))
    schema = json.loads((SCHEMAS / "classroom_result.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(result)
    return result, finished.stdout


def test_classroom_grades_the_repositorys_student_file_only(tmp_path):
    result, log = run_classroom(tmp_path, {"other.py": SUBMISSIONS / "correct_counter.py"})
    [test] = result["tests"]
    assert result["status"] == "error" and "student.py is missing" in test["message"]
    assert result["max_score"] == 100 and "Score recorded by GitHub Classroom: 0/100" in log


def test_classroom_records_zero_out_of_the_total_even_without_its_settings(tmp_path):
    result, _ = run_classroom(tmp_path, {"student.py": SUBMISSIONS / "correct_counter.py"},
                              config_text="{broken", extra_env={"BPE_AUTOGRADER_MAX_SCORE": "100"})
    assert result["max_score"] == 100 and result["tests"][0]["name"] == "Autograder error"
    assert result["tests"][0]["score"] == 0


def test_classroom_does_not_restrict_the_repositorys_files(tmp_path):
    run_classroom(tmp_path, {})
    spec = tmp_path / "workspace" / ".github" / "bpe-autograder" / "bpe-train-encode.yaml"
    assert spec.stat().st_mode & 0o044 == 0o044  # a student's own repository: nothing to hide


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
def test_the_bundle_is_root_only_once_the_entrypoint_has_run(tmp_path, platform):
    if os.geteuid() != 0:
        pytest.skip("the entry point restricts the bundle only when it runs as root")
    root, bundle_dir, exercise = make_host(tmp_path, platform, {})
    spec = bundle_dir / f"{exercise.id}.yaml"
    assert spec.stat().st_mode & 0o004, "written readable: the check below is real"
    run_entrypoint(platform, root, bundle_dir)
    for path in (bundle_dir, spec, bundle_dir / "bundle.json", bundle_dir / "entrypoint.py"):
        assert path.stat().st_mode & 0o077 == 0, path


SECRET_REPORTING_GRADE = """#!/bin/sh
echo "$GRADE_SEED_SECRET_FILE" > "$(dirname "$0")/secret-file"
echo "${GRADE_SEED_SECRET:-unset}" > "$(dirname "$0")/secret-variable"
exit 1
"""


def test_the_grader_is_run_with_the_bundles_seed_secret(tmp_path, monkeypatch):
    monkeypatch.delenv("GRADE_SEED_SECRET")  # without a course secret, the bundle makes one
    root, bundle_dir, _ = make_host(tmp_path, "gradescope", {"student.py": "x = 1\n"})
    python = fake_environment(tmp_path, SECRET_REPORTING_GRADE)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GRADE_SEED_SECRET")}
    # a secret the host happens to set does not replace the bundle's own
    variable_root = {"AUTOGRADER_ROOT": str(root), "GRADE_SEED_SECRET": "the host's"}
    subprocess.run([python, str(bundle_dir / "entrypoint.py"), "gradescope"],
                   env=dict(environment, **variable_root), capture_output=True, text=True, timeout=120)
    assert (Path(python).parent / "secret-variable").read_text().strip() == "unset"
    secret_file = Path((Path(python).parent / "secret-file").read_text().strip())
    assert secret_file == bundle_dir / "seed-secret"
    assert len(secret_file.read_text().strip()) >= 32
    assert secret_file.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("files, graded, why", [
    ({"student.py": "template"}, "student.py", "student.py"),
    ({"student.py": "template", "student.ipynb": "{}"}, "student.ipynb", "still the template's"),
    ({"student.py": "mine", "student.ipynb": "{}"}, "student.py", "no longer the template's"),
    ({"student.ipynb": "{}"}, "student.ipynb", "has no student.py"),
])
def test_classroom_grades_the_notebook_only_beside_the_templates_file(tmp_path, files, graded, why):
    import hashlib

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    config = {"student_file": "student.py", "notebook_file": "student.ipynb",
              "starter_sha256": hashlib.sha256(b"template").hexdigest()}
    path, reason = entrypoint.classroom_submission(tmp_path, config)
    assert path == tmp_path / graded and why in reason


def test_classroom_without_either_file_names_both(tmp_path):
    config = {"student_file": "student.py", "notebook_file": "student.ipynb", "starter_sha256": ""}
    with pytest.raises(entrypoint.SubmissionProblem, match=r"or your notebook as student.ipynb"):
        entrypoint.classroom_submission(tmp_path, config)
