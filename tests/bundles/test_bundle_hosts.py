"""The Gradescope and PrairieLearn entry points as the platforms run them: in a default Docker
container (simulated by ``tests/support``), with the bundles' default flags, on a correct, a
wrong, a crashing and a missing submission and with a broken grader installation; and what
is secret in a bundle is readable by root only once it is set up.

Default flags mean ``--strict-sandbox``, whose guarantees hold inside a default container by
other mechanisms than namespaces (see the README's sandbox section); the same cases also run
with the bundles' ``best-effort`` mode. The Gradescope bundles share one root, set up once per
test process (``support/gradescope_root.py``): each bundle is set up by its own ``setup.sh``,
the grader installed by the first.
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema
import nbformat
import pytest

from grader.bundles.prairielearn import write_prairielearn_question
from grader.grading.engine import grade_submission
from grader.spec import load_exercise
from support.container import container_command
from support.gradescope_root import (
    BEST_EFFORT,
    STRICT,
    add_bundle,
    need_container,
    open_directory,
    readable_by_nobody,
    run_autograder,
)
from support.host import host_environment
from support.notebooks import DEMO_NOTES, demo_notebook
from support.wheels import shared_wheels  # noqa: F401 - the fixture, applied to every test here

pytestmark = pytest.mark.slow

EXERCISE = "bpe-train-encode"
HAND_EXERCISE = "hand-bpe"
COURSE_SECRET = "course-secret-in-the-container"
TESTS = Path(__file__).parents[1]
SUBMISSIONS = TESTS / "submissions"
SOURCES = {"strict": STRICT, "best-effort": BEST_EFFORT}  # the Gradescope bundle of each mode
GRADED = [("correct_counter.py", "full"), ("wrong_tie_first_seen.py", "partial"),
          ("broken_raises.py", "partial")]


def schema(name: str) -> dict:
    return json.loads((TESTS / "schemas" / name).read_text())


def graded_parameters():
    for submission, outcome in GRADED:
        yield pytest.param(submission, outcome, "strict")
        yield pytest.param(submission, outcome, "best-effort")


# --------------------------------------------------------------------------- Gradescope


@pytest.fixture(scope="module")
def hand_source(gradescope_root) -> str:
    """The answers exercise's bundle, built with the course's secret, beside the first."""
    return add_bundle(gradescope_root, HAND_EXERCISE, "source-hand", seed_secret=COURSE_SECRET)


@pytest.mark.parametrize("submission, outcome, sandbox", list(graded_parameters()))
def test_gradescope_grades_in_a_default_container(gradescope_root, submission, outcome, sandbox):
    results = run_autograder(gradescope_root, {"student.py": SUBMISSIONS / submission},
                             source=SOURCES[sandbox])
    names = [test["name"] for test in results["tests"]]
    assert "Autograder error" not in names, results["tests"][0]["output"]
    if outcome == "full":
        assert results["score"] == 100
    else:
        assert 0 <= results["score"] < 100


def notebook_of(source: Path, path: Path) -> Path:
    """``source`` as a notebook of two code cells around a markdown one, as a student saves it."""
    lines = source.read_text(encoding="utf-8").splitlines()
    # cut before a top-level def past the middle: each cell runs on its own, as in Jupyter
    cut = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("def "))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("\n".join(lines[:cut])),
                      nbformat.v4.new_markdown_cell("## Encoding"),
                      nbformat.v4.new_code_cell("\n".join(lines[cut:]))]
    nbformat.write(notebook, str(path))
    return path


@pytest.mark.parametrize("submission, outcome", [("correct_counter.py", "full"),
                                                 ("wrong_tie_first_seen.py", "partial")])
def test_gradescope_grades_an_uploaded_notebook_in_a_default_container(gradescope_root, tmp_path,
                                                                       submission, outcome):
    notebook = notebook_of(SUBMISSIONS / submission, tmp_path / "homework.ipynb")
    results = run_autograder(gradescope_root, {"homework.ipynb": notebook})
    assert [test["name"] for test in results["tests"]][0] != "Submission file", results["tests"][0]
    assert (results["score"] == 100) is (outcome == "full") and results["score"] > 0


def test_gradescope_shows_a_notebooks_notes_to_the_student_in_a_default_container(
        gradescope_root, tmp_path):
    notebook = demo_notebook(SUBMISSIONS / "wrong_tie_first_seen.py", tmp_path / "book.ipynb")
    results = run_autograder(gradescope_root, {"book.ipynb": notebook})
    assert 0 < results["score"] < 100
    assert "**About your submission**" in results["output"]
    for needle in DEMO_NOTES:
        assert needle in results["output"], needle


def answers_file(path: Path, student: str, *, named: str | None = None, wrong: bool = False) -> Path:
    """The answers file of ``student``'s variant under the course secret (``named``: the
    student: line it carries), right or with a wrong first merge."""
    from grader.families.hand.audit import sheet_text
    from grader.families.hand.expected import expected_answers
    from grader.families.hand.mistakes import diagnostic_variant

    exercise = load_exercise(HAND_EXERCISE)
    right = expected_answers(exercise, diagnostic_variant(exercise, student, COURSE_SECRET))
    if wrong:
        right = {**right, "first-merge": {"pair": "x y", "count": 1}}
    path.write_text(sheet_text(exercise, named or student, right), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["right", "wrong", "a classmate's"])
def test_gradescope_grades_an_answers_file_as_its_submitters_in_a_default_container(
        gradescope_root, hand_source, tmp_path, kind):
    metadata = {"users": [{"email": "ada@uni.edu", "id": 7, "name": "Ada"}]}
    named = "bob@uni.edu" if kind == "a classmate's" else None
    upload = answers_file(tmp_path / "answers.yaml", named or "ada@uni.edu", named=named,
                          wrong=kind == "wrong")
    results = run_autograder(gradescope_root, {"answers.yaml": upload}, source=hand_source,
                             metadata=metadata)
    names = [test["name"] for test in results["tests"]]
    assert "Autograder error" not in names and "Submission file" not in names, results["tests"][0]
    full = load_exercise(HAND_EXERCISE).total_points
    expected = {"right": full, "wrong": full - 15}.get(kind)
    if expected is not None:
        assert results["score"] == expected
    else:  # bob's right answers, handed in by ada, are graded on ada's corpus
        assert results["score"] < full and "handed in by 'ada@uni.edu'" in json.dumps(results)


@pytest.mark.parametrize("sandbox", ["strict", "best-effort"])
def test_gradescope_reports_a_missing_file_in_a_default_container(gradescope_root, sandbox):
    results = run_autograder(gradescope_root, {}, source=SOURCES[sandbox])
    [test] = results["tests"]
    assert test["name"] == "Submission file" and results["score"] == 0
    assert "upload" in test["output"] and test["visibility"] == "visible"


def test_gradescope_reports_a_grader_fault_in_a_default_container(gradescope_root):
    results = run_autograder(gradescope_root, {"student.py": SUBMISSIONS / "correct_counter.py"},
                             venv=str(gradescope_root / "no-such-venv"))
    [test] = results["tests"]
    assert test["name"] == "Autograder error" and results["score"] == 0
    assert "not installed" in test["output"]


def test_gradescope_secrets_are_root_only_after_set_up(gradescope_root):
    source = gradescope_root / STRICT
    config = json.loads((gradescope_root / BEST_EFFORT / "bundle.json").read_text())
    for name in (config["exercise_file"], "bundle.json", "entrypoint.py"):
        assert not readable_by_nobody(source / name), name
    assert stat.S_IMODE(source.stat().st_mode) & 0o077 == 0
    assert stat.S_IMODE((source / config["exercise_file"]).stat().st_mode) & 0o077 == 0


# --------------------------------------------------------------------------- PrairieLearn


@pytest.fixture(scope="module")
def question():
    """A question directory in a directory every user can traverse."""
    need_container()
    course = open_directory("bpe-pl-")
    try:
        directory = course / "questions" / "bpe"
        write_prairielearn_question(load_exercise(EXERCISE), directory, image="yourorg/bpe:0.1.0")
        yield directory
    finally:
        shutil.rmtree(course, ignore_errors=True)


@pytest.fixture(scope="module")
def upload_question():
    """A question offering a notebook upload beside the editor."""
    need_container()
    course = open_directory("bpe-pl-")
    try:
        directory = course / "questions" / "bpe"
        write_prairielearn_question(load_exercise(EXERCISE), directory, image="yourorg/bpe:0.1.0",
                                    notebook_upload=True)
        yield directory
    finally:
        shutil.rmtree(course, ignore_errors=True)


def grade_on_root(question: Path, submission: Path | None, *, sandbox: str = "strict",
                  venv: str = sys.prefix, name: str = "student.py", data: dict | None = None,
                  also: dict | None = None) -> dict:
    """Run the question's run_grader on a fresh /grade-like root in a default container."""
    root = open_directory("bpe-grade-")
    try:
        shutil.copytree(question / "tests", root / "tests")
        if sandbox != "strict":
            config = json.loads((root / "tests" / "bundle.json").read_text())
            (root / "tests" / "bundle.json").write_text(json.dumps(dict(config, strict_sandbox=False)))
        (root / "student").mkdir()
        if submission is not None:
            shutil.copy(submission, root / "student" / name)
        for other, path in (also or {}).items():  # more files of the same submission
            shutil.copy(path, root / "student" / other)
        if data is not None:  # what PrairieLearn writes for the variant
            (root / "data").mkdir()
            (root / "data" / "data.json").write_text(json.dumps(data))
        environment = dict(host_environment(), GRADE_ROOT=str(root), BPE_AUTOGRADER_VENV=venv)
        done = subprocess.run(container_command(["bash", str(root / "tests" / "run_grader")]),
                              env=environment, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
        results = json.loads((root / "results" / "results.json").read_text())
        jsonschema.Draft202012Validator(schema("prairielearn_results.schema.json")).validate(results)
        spec = root / "tests" / json.loads((question / "tests" / "bundle.json").read_text())["exercise_file"]
        results["_spec_readable_by_nobody"] = readable_by_nobody(spec)
        return results
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("submission, outcome, sandbox", list(graded_parameters()))
def test_prairielearn_grades_in_a_default_container(question, submission, outcome, sandbox):
    results = grade_on_root(question, SUBMISSIONS / submission, sandbox=sandbox)
    assert results["gradable"] is True, results.get("format_errors")
    assert (results["score"] == 1) is (outcome == "full")


@pytest.mark.parametrize("submission, outcome", [("correct_counter.py", "full"),
                                                 ("wrong_tie_first_seen.py", "partial")])
def test_prairielearn_grades_an_uploaded_notebook_in_a_default_container(question, tmp_path,
                                                                         submission, outcome):
    notebook = notebook_of(SUBMISSIONS / submission, tmp_path / "homework.ipynb")
    results = grade_on_root(question, notebook, name="homework.ipynb")
    assert results["gradable"] is True, results.get("format_errors")
    assert (results["score"] == 1) is (outcome == "full") and results["score"] > 0


def test_prairielearn_grades_the_uploaded_notebook_instead_of_the_editor_in_a_default_container(
        upload_question, tmp_path):
    page = (upload_question / "question.html").read_text(encoding="utf-8")
    assert '<pl-file-upload optional-file-names="student.ipynb">' in page
    assert "<pl-file-editor" in page
    notebook = demo_notebook(SUBMISSIONS / "wrong_tie_first_seen.py", tmp_path / "book.ipynb")
    editor = upload_question / "initial_code.py"  # the editor's file as the student left it
    results = grade_on_root(upload_question, editor, also={"student.ipynb": notebook})
    assert results["gradable"] is True, results.get("format_errors")
    assert 0 < results["score"] < 1
    for needle in DEMO_NOTES:
        assert needle in results["message"], needle
    assert "student.ipynb is a notebook" in results["message"]
    # its public verdicts are those of grading the notebook here (and so of check() in it)
    entries = {test["name"]: test for test in results["tests"]}
    report = grade_submission(notebook, EXERCISE)
    public = [(m.title, c) for m in report.milestones for c in m.checks if c.visibility != "hidden"]
    assert any(not check.passed for _, check in public)
    for title, check in public:
        entry = entries[f"{title}: {check.title}"]
        assert (entry["points"] == entry["max_points"]) is check.passed, check.title
    results = grade_on_root(upload_question, SUBMISSIONS / "correct_counter.py")
    assert results["score"] == 1, "without an upload, the editor's file is graded"


@pytest.mark.parametrize("submission, needle, sandbox", [
    (None, "No .py or .ipynb file was submitted", "strict"),
    (None, "No .py or .ipynb file was submitted", "best-effort"),
    ("broken_missing_encode.py", "does not define encode()", "strict"),
    ("broken_missing_encode.py", "does not define encode()", "best-effort"),
])
def test_prairielearn_returns_not_gradable_in_a_default_container(question, submission, needle, sandbox):
    path = SUBMISSIONS / submission if submission else None
    results = grade_on_root(question, path, sandbox=sandbox)
    assert results["gradable"] is False
    assert any(needle in error for error in results["format_errors"]), results["format_errors"]


def test_prairielearn_grades_the_answers_file_of_the_variant_it_showed_in_a_default_container(
        tmp_path):
    need_container()
    import importlib.util

    course = open_directory("bpe-pl-hand-")
    try:
        directory = course / "questions" / "hand"
        write_prairielearn_question(load_exercise(HAND_EXERCISE), directory, image="org/bpe:1",
                                    seed_secret=COURSE_SECRET, variants=2)
        server = importlib.util.spec_from_file_location("pl_hand_server", directory / "server.py")
        module = importlib.util.module_from_spec(server)
        server.loader.exec_module(module)
        data = {"params": {}, "variant_seed": 12345, "options": {"question_path": str(directory)}}
        module.generate(data)
        student = data["params"]["bpe_student"]
        for wrong, score in ((False, 1.0), (True, None)):
            upload = answers_file(tmp_path / f"answers-{wrong}.yaml", student, wrong=wrong)
            results = grade_on_root(directory, upload, name="answers.yaml",
                                    data={"params": data["params"]})
            assert results["gradable"] is True, results.get("format_errors")
            assert (results["score"] == 1.0) is (not wrong), results["score"]
    finally:
        shutil.rmtree(course, ignore_errors=True)


def test_prairielearn_reports_a_grader_fault_in_a_default_container(question, tmp_path):
    results = grade_on_root(question, SUBMISSIONS / "correct_counter.py", venv=str(tmp_path / "none"))
    assert results["gradable"] is False and "not installed" in results["format_errors"][0]


def test_prairielearn_secrets_are_root_only_once_grading_starts(question):
    spec = question / "tests" / json.loads((question / "tests" / "bundle.json").read_text())["exercise_file"]
    assert readable_by_nobody(spec), "as written the spec is readable: the check below is real"
    results = grade_on_root(question, SUBMISSIONS / "correct_counter.py", sandbox="best-effort")
    assert results["_spec_readable_by_nobody"] is False
