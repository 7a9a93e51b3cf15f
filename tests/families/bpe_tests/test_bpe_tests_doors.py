"""Five test files graded through ``grade batch`` and through the Gradescope bundle in the
simulated default Docker container (set up beside the other Gradescope bundles of the test
process, see ``support/gradescope_root.py``); one through the PrairieLearn question's entry
point."""

from __future__ import annotations

import csv
import json
import shutil

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.bpe_tests.audit import suite_text
from grader.spec import load_exercise
from support.gradescope_root import add_bundle, run_autograder
from support.wheels import shared_wheels  # noqa: F401 - the fixture, applied to every test here

# The Gradescope bundles of one test process share a root (support/gradescope_root.py): this
# test runs in the process of the module grading most through it.
GRADESCOPE_ROOT_GROUP = "tests/bundles/test_bundle_hosts.py"

EXERCISE = "bpe-tests"
SUITES = ("thorough", "tie-blind", "fails-on-reference", "assert-true", "no-tests")


@pytest.fixture(scope="module")
def suites(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bpe-tests-class")
    exercise = load_exercise(EXERCISE)
    for name in SUITES:
        (folder / f"{name.replace('-', '_')}.py").write_text(suite_text(exercise, name),
                                                            encoding="utf-8")
    return folder


def test_a_batch_of_five_test_files_is_graded(suites, tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(suites), "-o", str(out), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    with open(out / "grades.csv", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {name.replace("-", "_") for name in SUITES}
    score = {name: float(row["total"]) for name, row in rows.items()}
    assert score["thorough"] == 100
    assert 0 < score["tie_blind"] < score["thorough"]
    assert score["assert_true"] == score["no_tests"] == 0
    assert (out / "reports" / "tie_blind.html").is_file()


@pytest.mark.slow
@pytest.mark.xdist_group(GRADESCOPE_ROOT_GROUP)  # the process holding the Gradescope root
def test_the_gradescope_bundle_grades_test_files_in_a_default_container(gradescope_root, suites):
    source = add_bundle(gradescope_root, EXERCISE, "source-bpe-tests")
    graded = {name: run_autograder(gradescope_root, {"test_bpe.py": suites / f"{name}.py"},
                                   source=source)
              for name in (suite.replace("-", "_") for suite in SUITES)}
    for results in graded.values():
        assert "Autograder error" not in [test["name"] for test in results["tests"]], \
            results["tests"][0].get("output")
    assert graded["thorough"]["score"] == 100
    assert 0 < graded["tie_blind"]["score"] < 100
    assert graded["assert_true"]["score"] == graded["no_tests"]["score"] == 0
    assert 0 < graded["fails_on_reference"]["score"] < 100
    assert "passes all your tests" in json.dumps(graded["tie_blind"])
    assert "the correct BPE returns ['low', 'e', 'r', '</w>']" in json.dumps(
        graded["fails_on_reference"], ensure_ascii=False)


@pytest.mark.slow
def test_the_prairielearn_question_grades_a_test_file(suites, tmp_path):
    from bundles.test_bundle_prairielearn import validate
    from support.host import host_environment
    import os
    import subprocess
    import sys

    question = tmp_path / "course" / "bpe-tests"
    result = CliRunner().invoke(main, ["bundle", "prairielearn", EXERCISE, "-o", str(question),
                                       "--image", "myorg/bpe-grader:0.1.0"])
    assert result.exit_code == 0, result.output
    assert (question / "initial_code.py").read_text().startswith("# exercise: bpe-tests")
    root = tmp_path / "grade"
    (root / "student").mkdir(parents=True)
    shutil.copy(suites / "tie_blind.py", root / "student" / "test_bpe.py")
    os.symlink(question / "tests", root / "tests")
    environment = dict(host_environment(), GRADE_ROOT=str(root), BPE_AUTOGRADER_VENV=sys.prefix)
    finished = subprocess.run(["bash", str(root / "tests" / "run_grader")], env=environment,
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    results = validate(root / "results" / "results.json")
    assert results["gradable"] is True and 0 < results["score"] < 1

