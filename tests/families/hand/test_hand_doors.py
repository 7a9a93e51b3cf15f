"""An answers file goes through every door a code submission does, graded by the same engine.

``grade batch --exercise hand-bpe`` takes a folder of ``STUDENT.yaml`` files; each LMS
bundle's entry point finds the uploaded answers file and grades it with the bundle's own
secret (the one the course renders its students' sheets with).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.bundles.common import write_grading_files
from grader.commands.cli import main
from grader.families.hand.audit import sheet_text
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.package_data import templates_path
from grader.spec import load_exercise
from support.doors import handed_in_by
from support.host import host_environment

EXERCISE = load_exercise("hand-bpe")
ENTRYPOINT = templates_path() / "lms" / "entrypoint.py"


def answers(student: str, secret: str, *, wrong: bool = False) -> str:
    """A student's answers file: right, or with a wrong first merge."""
    right = expected_answers(EXERCISE, diagnostic_variant(EXERCISE, student, secret))
    if wrong:
        right = {**right, "first-merge": {"pair": "x y", "count": 1}}
    return sheet_text(EXERCISE, student, right)


def test_a_class_of_answers_files_is_batched(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.yaml").write_text(answers("ada", "course"), encoding="utf-8")
    (folder / "bob").mkdir()
    (folder / "bob" / "answers.yaml").write_text(answers("bob", "course", wrong=True),
                                                 encoding="utf-8")
    (folder / "cyd.py").write_text("x = 1\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(out), "--exercise",
                                       "hand-bpe", "--seed-secret", "course", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    rows = {row["student"]: row for row in csv.DictReader((out / "grades.csv").open())}
    assert float(rows["ada"]["total"]) == EXERCISE.total_points
    assert float(rows["bob"]["total"]) == EXERCISE.total_points - 15
    assert "not a YAML answers file (.py)" in result.output
    assert rows["cyd"]["outcome"] == "unusable" and rows["cyd"]["total"] == ""  # listed, not graded


def load_entrypoint():
    spec = importlib.util.spec_from_file_location("lms_entrypoint_hand", ENTRYPOINT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_entry_point_finds_an_uploaded_answers_file(tmp_path):
    entrypoint = load_entrypoint()
    (tmp_path / "notes.txt").write_text("mine\n")
    (tmp_path / "hw").mkdir()
    (tmp_path / "hw" / "my-answers.yml").write_text("student: ada\n")
    found = entrypoint.find_submission(tmp_path, "answers.yaml", (".yaml", ".yml"))
    assert found.name == "my-answers.yml"
    with pytest.raises(entrypoint.SubmissionProblem, match="No files were submitted"):
        entrypoint.find_submission(tmp_path / "hw" / "none", "answers.yaml", (".yaml", ".yml"))
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "student.py").write_text("x = 1\n")
    with pytest.raises(entrypoint.SubmissionProblem, match=r"No \.yaml or \.yml file was submitted"):
        entrypoint.find_submission(tmp_path / "empty", "answers.yaml", (".yaml", ".yml"))


LAYOUTS = {  # platform: (bundle folder, submission folder, where results go), under the root
    "gradescope": ("source", "submission", "results/results.json"),
    "prairielearn": ("tests", "student", "results/results.json"),
    "classroom": (".bpe-autograder", ".", "runner/bpe-results/results.json"),
}


@pytest.mark.parametrize("platform", list(LAYOUTS))
@pytest.mark.parametrize("wrong", [False, True], ids=["right", "wrong"])
def test_every_bundles_entry_point_grades_an_answers_file(tmp_path, platform, wrong):
    root = tmp_path / "root"
    bundle_name, submission_name, results_name = LAYOUTS[platform]
    bundle = root / bundle_name
    write_grading_files(bundle, EXERCISE, sandbox="best-effort")
    config = json.loads((bundle / "bundle.json").read_text())
    assert config["submission_suffixes"] == [".yaml", ".yml"]
    # the course renders its students' sheets with the bundle's secret
    secret = (bundle / config["seed_secret_file"]).read_text().strip()
    submission = root / submission_name
    submission.mkdir(parents=True, exist_ok=True)
    (submission / "answers.yaml").write_text(answers("ada", secret, wrong=wrong), encoding="utf-8")
    variable = {"gradescope": "AUTOGRADER_ROOT", "prairielearn": "GRADE_ROOT",
                "classroom": "GITHUB_WORKSPACE"}[platform]
    environment = dict(host_environment(), **{variable: str(root), "RUNNER_TEMP": str(root / "runner")})
    environment.pop("GRADE_SEED_SECRET", None)
    environment.pop("GITHUB_OUTPUT", None)
    identity = handed_in_by(platform, "ada")  # the platform names ada as who handed it in
    environment.update(identity.get("extra_env", {}))
    for name, document in identity.get("metadata", {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(json.dumps(document), encoding="utf-8")
    finished = subprocess.run([sys.executable, str(bundle / "entrypoint.py"), platform],
                              env=environment, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    results = json.loads((root / results_name).read_text())
    full = EXERCISE.total_points
    if platform == "gradescope":
        assert results["score"] == (full - 15 if wrong else full), finished.stdout[-2000:]
    elif platform == "prairielearn":
        assert results["gradable"] is True
        assert results["score"] == pytest.approx((full - 15) / full if wrong else 1.0)
    else:
        total = sum(test.get("score", 0) for test in results["tests"])
        assert total == (full - 15 if wrong else full), finished.stdout[-2000:]
