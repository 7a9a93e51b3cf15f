"""``grade bundle gradescope`` end to end: build the zip once, install it offline, grade with it.

The bundle is built for this interpreter (the test host is not Gradescope's Python 3.10),
unzipped into a temporary ``/autograder``-like root, installed by its own ``setup.sh`` with
pip cut off from the network, and run on a correct, a wrong, a crashing and a syntax-error
submission. Building downloads wheels; when the package index cannot be reached, the build
falls back to wheels already on this machine, and the test is skipped only when those are
not enough.
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from grader.bundles.gradescope import build_gradescope_bundle
from grader.bundles.wheels import WheelError, WheelSources, WheelTarget
from grader.bundles.common import BundleError
from grader.commands.cli import main
from grader.spec import load_exercise
from grader.package_data import templates_path
from support.host import host_environment
from support.wheels import shared_wheels  # noqa: F401 - the fixture, applied to every test here

pytestmark = pytest.mark.slow

SCHEMA = json.loads((Path(__file__).parents[1] / "schemas" / "gradescope_results.schema.json").read_text())
SUBMISSIONS = Path(__file__).parents[1] / "submissions"
EXERCISE = "bpe-train-encode"
LOCAL_WHEEL_DIRS = (Path("/opt/wheels"), Path.home() / ".cache" / "pip" / "wheels")
# A proxy nobody listens on: any attempt by pip to reach the network fails at once.
NO_NETWORK = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
              "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
              "PIP_NO_INDEX": "1"}


def build_for_this_interpreter(output: Path) -> None:
    exercise = load_exercise(EXERCISE)
    target = WheelTarget.this_interpreter()
    try:
        build_gradescope_bundle(exercise, output, target=target)
        return
    except (BundleError, WheelError) as online_error:
        local = tuple(directory for directory in LOCAL_WHEEL_DIRS if directory.is_dir())
        if not local:
            pytest.skip(f"cannot obtain the bundle's wheels: {online_error}")
        try:
            build_gradescope_bundle(exercise, output, target=target,
                                    sources=WheelSources(find_links=local, offline=True))
        except (BundleError, WheelError) as offline_error:
            pytest.skip(f"cannot obtain the bundle's wheels online ({online_error}) "
                        f"or from {', '.join(map(str, local))} ({offline_error})")


@pytest.fixture(scope="session")
def bundle_zip(tmp_path_factory) -> Path:
    output = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    build_for_this_interpreter(output)
    return output


@pytest.fixture(scope="session")
def installed_root(bundle_zip, tmp_path_factory) -> Path:
    """An /autograder-like root: the zip in source/, set up by its own setup.sh, offline."""
    root = tmp_path_factory.mktemp("autograder")
    with zipfile.ZipFile(bundle_zip) as archive:
        archive.extractall(root / "source")
    for name in ("setup.sh", "run_autograder", "entrypoint.py"):
        path = root / "source" / name
        path.chmod(path.stat().st_mode | stat.S_IXUSR)  # extractall drops modes; unzip keeps them
    environment = dict(host_environment(), AUTOGRADER_ROOT=str(root), BPE_AUTOGRADER_PYTHON=sys.executable,
                       **NO_NETWORK)
    finished = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=environment,
                              capture_output=True, text=True, timeout=600, cwd=root / "source")
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "grade, version" in finished.stdout
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    return root


def run_autograder(root: Path, files: dict) -> dict:
    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir()
    for name, source in files.items():
        shutil.copy(source, submission / name)
    results_file = root / "results" / "results.json"
    results_file.unlink(missing_ok=True)
    environment = dict(host_environment(), AUTOGRADER_ROOT=str(root), **NO_NETWORK)
    finished = subprocess.run(["bash", str(root / "run_autograder")], env=environment,
                              capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    results = json.loads(results_file.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(results)
    return results


def test_the_zip_has_gradescopes_layout_and_executable_scripts(bundle_zip):
    with zipfile.ZipFile(bundle_zip) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        config = json.loads(archive.read("bundle.json"))
    for script in ("setup.sh", "run_autograder"):
        assert script in infos
        assert (infos[script].external_attr >> 16) & stat.S_IXUSR
    wheels = [name for name in infos if name.startswith("wheels/")]
    assert any(name.startswith("wheels/bpe_autograder-") for name in wheels)
    assert any(name.startswith("wheels/pip-") for name in wheels)
    exercise = load_exercise(EXERCISE)
    assert config["exercise_file"] in infos and config["student_file"] == exercise.student_file
    assert config["max_score"] == exercise.total_points and config["strict_sandbox"] is True


@pytest.mark.parametrize(
    "submission, outcome",
    [
        ("correct_counter.py", "full"),
        ("wrong_tie_first_seen.py", "partial"),
        ("broken_raises.py", "partial"),
        ("broken_syntax.py", "zero"),
    ],
)
def test_run_autograder_writes_valid_results(installed_root, submission, outcome):
    exercise = load_exercise(EXERCISE)
    results = run_autograder(installed_root, {exercise.student_file: SUBMISSIONS / submission})
    names = [test["name"] for test in results["tests"]]
    assert "Autograder error" not in names, results["output"]
    assert results["stdout_visibility"] == "hidden"
    total = sum(test.get("max_score", 0) for test in results["tests"])  # the total test has none
    assert total == pytest.approx(exercise.total_points)
    if outcome == "full":
        assert results["score"] == pytest.approx(exercise.total_points)
    elif outcome == "partial":
        assert 0 <= results["score"] < exercise.total_points
    else:
        assert results["score"] == 0 and "SyntaxError" in results["output"]


def test_a_single_file_of_another_name_is_graded(installed_root):
    results = run_autograder(installed_root, {"my_bpe.py": SUBMISSIONS / "correct_counter.py"})
    assert results["score"] == pytest.approx(load_exercise(EXERCISE).total_points)


def test_without_its_environment_the_bundle_reports_an_autograder_error(installed_root, tmp_path):
    submission = installed_root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir()
    shutil.copy(SUBMISSIONS / "correct_counter.py", submission / "student.py")
    environment = dict(host_environment(), AUTOGRADER_ROOT=str(installed_root),
                       BPE_AUTOGRADER_VENV=str(tmp_path / "missing"), **NO_NETWORK)
    finished = subprocess.run(["bash", str(installed_root / "run_autograder")], env=environment,
                              capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0
    results = json.loads((installed_root / "results" / "results.json").read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(results)
    assert [test["name"] for test in results["tests"]] == ["Autograder error"]
    assert results["score"] == 0 and results["tests"][0]["visibility"] == "visible"


# --------------------------------------------------------------------------- without building


def test_the_dockerfile_rebuilds_the_bundle_on_a_gradescope_base(tmp_path):
    text = (templates_path() / "gradescope" / "Dockerfile.j2").read_text()
    assert "FROM ${BASE_REPO}:${TAG}" in text and "ARG BASE_REPO=gradescope/autograder-base" in text
    assert "COPY . /autograder/source" in text
    assert "/autograder/source/setup.sh" in text and "/autograder/run_autograder" in text


def test_setup_installs_with_no_index_only():
    text = (templates_path() / "lms" / "install.sh.j2").read_text()
    install_lines = [line for line in text.splitlines() if "install" in line and "pip" in line.lower()]
    assert install_lines and "--no-index" in text and "--find-links" in text
    assert "curl" not in text and "wget" not in text


@pytest.mark.parametrize(
    "output, message",
    [("bundle.tar", ".zip"), ("missing-dir/autograder.zip", "does not exist")],
)
def test_bad_outputs_are_refused_before_any_download(tmp_path, output, message):
    result = CliRunner().invoke(main, ["bundle", "gradescope", EXERCISE, "-o", str(tmp_path / output)])
    assert result.exit_code == 2 and message in result.output
    assert not list(tmp_path.rglob("*.whl"))


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["nope"], "no exercise 'nope'"),
        ([EXERCISE, "--python-version", "2.7"], "3.10 or later"),
        ([EXERCISE, "--offline"], "--wheels-from"),
        ([EXERCISE, "--sandbox", "off"], "strict"),
    ],
)
def test_bad_options_are_usage_errors(arguments, message):
    result = CliRunner().invoke(main, ["bundle", "gradescope", *arguments])
    assert result.exit_code == 2 and message in result.output
