"""Every submission kind through every LMS door, graded as the one who handed it in.

A notebook uploaded to Gradescope or PrairieLearn is graded like its ``.py``; an answers file
is graded on the variant of its submitter, as each platform names them (Gradescope's
``submission_metadata.json``, PrairieLearn's ``data/data.json``, Classroom's ``GITHUB_ACTOR``);
a PrairieLearn question of a per-student exercise draws its variants itself (``server.py``);
``grade stub --roster`` renders every student's file with the bundle's secret.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner

from grader.bundles import prairielearn as bundle_prairielearn
from grader.bundles.classroom import classroom_starter
from grader.bundles.common import SEED_SECRET_NAME, per_student, write_grading_files
from grader.commands.cli import main
from grader.families.hand.audit import sheet_text
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.package_data import templates_path
from grader.spec import load_exercise
from support.doors import points, run_door
from support.host import host_environment

EXAMPLES = Path(__file__).parents[2] / "examples"
HAND = load_exercise("hand-bpe")
CODE = load_exercise("bpe-train-encode")
ENTRYPOINT = templates_path() / "lms" / "entrypoint.py"
def load_entrypoint():
    spec = importlib.util.spec_from_file_location("lms_entrypoint_variants", ENTRYPOINT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


entrypoint = load_entrypoint()


def notebook_text(source: str) -> str:
    lines = source.splitlines()
    # cut before a top-level def past the middle: each cell runs on its own, as in Jupyter
    cut = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("def "))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("\n".join(lines[:cut])),
                      nbformat.v4.new_markdown_cell("## The rest"),
                      nbformat.v4.new_code_cell("\n".join(lines[cut:]))]
    return nbformat.writes(notebook)


def answers(student: str, secret: str, *, wrong: bool = False, named: str | None = None) -> str:
    right = expected_answers(HAND, diagnostic_variant(HAND, student, secret))
    if wrong:
        right = {**right, "first-merge": {"pair": "x y", "count": 1}}
    return sheet_text(HAND, named or student, right)


# --------------------------------------------------------------------------- notebooks


@functools.cache
def submitted_score(kind: str) -> float:
    """The score ``grade submit`` gives the example's ``.py`` under the doors' course secret,
    computed once per process for both doors."""
    return json.loads(CliRunner().invoke(
        main, ["submit", str(EXAMPLES / "bpe-train-encode" / f"student_{kind}.py"),
               "--format", "json", "-q", "--seed-secret", "course-secret"]).output)["score"]


@pytest.mark.xdist_group("bundle-variants-notebooks")  # both doors read one grading per kind
@pytest.mark.parametrize("platform", ["gradescope", "prairielearn"])
@pytest.mark.parametrize("kind", ["correct", "wrong"])
def test_a_notebook_uploaded_to_gradescope_or_prairielearn_is_graded(tmp_path, platform, kind):
    source = (EXAMPLES / "bpe-train-encode" / f"student_{kind}.py").read_text(encoding="utf-8")
    expected = submitted_score(kind)
    results, log = run_door(tmp_path, platform, CODE, {"homework.ipynb": notebook_text(source)})
    assert "homework.ipynb" in log
    assert points(platform, results, CODE.total_points) == pytest.approx(expected)
    if kind == "wrong":
        assert expected < CODE.total_points
    # what the student sees says how the notebook was run
    shown = results["output"] + results.get("message", "")
    assert "homework.ipynb is a notebook: its 2 code cell(s) were run in order" in shown


# --------------------------------------------------------------------------- who handed it in


def test_the_submitter_is_read_from_what_each_platform_gives(tmp_path):
    layout = entrypoint.Layout("gradescope", {"AUTOGRADER_ROOT": str(tmp_path)})
    assert entrypoint.submitter(layout, {}) is None
    users = [{"email": "ada@uni.edu", "id": 1, "name": "Ada"}]
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": users}))
    assert entrypoint.submitter(layout, {}) == "ada@uni.edu"
    group = users + [{"email": "bob@uni.edu", "id": 2, "name": "Bob"}]
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": group}))
    assert entrypoint.submitter(layout, {}) is None  # a group: no one, and the reason
    assert entrypoint.who_handed_in(layout, {}) == (
        None, "Gradescope lists 2 submitters for it (a group submission)")
    (tmp_path / "submission_metadata.json").write_text("{ not json")
    assert entrypoint.submitter(layout, {}) is None
    layout = entrypoint.Layout("prairielearn", {"GRADE_ROOT": str(tmp_path)})
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "data.json").write_text(
        json.dumps({"params": {entrypoint.VARIANT_PARAM: "pl-0007"}}))
    assert entrypoint.submitter(layout, {}) == "pl-0007"
    layout = entrypoint.Layout("classroom", {"GITHUB_WORKSPACE": str(tmp_path)})
    assert entrypoint.submitter(layout, {"GITHUB_ACTOR": "octocat"}) == "octocat"
    assert entrypoint.submitter(layout, {"GITHUB_ACTOR": "a\nb"}) is None
    assert entrypoint.submitter(layout, {}) is None
    assert bundle_prairielearn.VARIANT_PARAM == entrypoint.VARIANT_PARAM


@pytest.mark.parametrize("platform", ["gradescope", "classroom"])
def test_an_answers_file_is_graded_on_the_variant_of_who_handed_it_in(tmp_path, platform):
    student = "ada@uni.edu" if platform == "gradescope" else "octocat"
    metadata = ({"submission_metadata.json": {"users": [{"email": student, "id": 1}]}}
                if platform == "gradescope" else None)
    extra = {"GITHUB_ACTOR": student} if platform == "classroom" else None
    full = HAND.total_points
    # their own file: full marks
    results, log = run_door(tmp_path / "own", platform, HAND,
                            {"answers.yaml": answers(student, "course-secret")},
                            metadata=metadata, extra_env=extra)
    assert f"handed in by {student}" in log
    assert points(platform, results, full) == full
    # a classmate's right answers under the submitter's name do not score
    other = answers("bob", "course-secret", named="bob")
    results, _ = run_door(tmp_path / "copied", platform, HAND, {"answers.yaml": other},
                          metadata=metadata, extra_env=extra)
    assert points(platform, results, full) < full
    assert f"handed in by {student!r}" in json.dumps(results)


# --------------------------------------------------------------------------- PrairieLearn variants


def test_a_per_student_question_draws_its_variants_and_grades_the_one_shown(tmp_path):
    question = tmp_path / "q"
    bundle_prairielearn.write_prairielearn_question(HAND, question, image="org/grader:1",
                                                    seed_secret="course-secret", variants=3)
    info = json.loads((question / "info.json").read_text())
    assert info["singleVariant"] is False
    assert not (question / bundle_prairielearn.STUB_FILE).exists()
    html = (question / "question.html").read_text()
    editors = EditorFinder.of(html)
    assert editors == [{"file-name": "answers.yaml", "ace-mode": "ace/mode/yaml",
                        "text": "{{params.bpe_sheet}}"}]
    # PrairieLearn's generate step, as it calls server.py for two new variants
    server = importlib.util.spec_from_file_location("pl_server", question / "server.py")
    module = importlib.util.module_from_spec(server)
    server.loader.exec_module(module)
    drawn = []
    for seed in (4, 5):
        data = {"params": {}, "variant_seed": seed, "options": {"question_path": str(question)}}
        module.generate(data)
        drawn.append(data["params"])
    assert drawn[0]["bpe_student"] != drawn[1]["bpe_student"]
    params = drawn[0]
    assert f'student: "{params["bpe_student"]}"' in params["bpe_sheet"]
    assert "Your corpus" in params["bpe_sheet"]
    # the grading job: the student's answers for the variant shown, and data.json's params
    root = tmp_path / "grade"
    (root / "student").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "tests").symlink_to(question / "tests")
    (root / "data" / "data.json").write_text(json.dumps({"params": params}))
    (root / "student" / "answers.yaml").write_text(answers(params["bpe_student"], "course-secret"))
    environment = dict(host_environment(), GRADE_ROOT=str(root))
    environment.pop("GRADE_SEED_SECRET", None)
    finished = subprocess.run([sys.executable, str(question / "tests" / "entrypoint.py"),
                               "prairielearn"], env=environment, capture_output=True, text=True,
                              timeout=300)
    assert finished.returncode == 0, finished.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 1.0, finished.stdout[-2000:]


def test_a_code_question_keeps_one_variant_and_the_python_editor(tmp_path):
    question = tmp_path / "q"
    bundle_prairielearn.write_prairielearn_question(CODE, question, image="org/grader:1")
    assert json.loads((question / "info.json").read_text())["singleVariant"] is True
    assert not (question / "server.py").exists()
    editors = EditorFinder.of((question / "question.html").read_text())
    assert editors[0]["ace-mode"] == "ace/mode/python"
    assert editors[0]["source-file-name"] == bundle_prairielearn.STUB_FILE


class EditorFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.editors: list[dict] = []
        self.inside = False

    def handle_starttag(self, tag, attrs):
        if tag == "pl-file-editor":
            self.editors.append({**dict(attrs), "text": ""})
            self.inside = True

    def handle_endtag(self, tag):
        self.inside = self.inside and tag != "pl-file-editor"

    def handle_data(self, data):
        if self.inside:
            self.editors[-1]["text"] += data

    @classmethod
    def of(cls, html: str) -> list[dict]:
        finder = cls()
        finder.feed(html)
        return [{key: value for key, value in editor.items() if key != "text" or value.strip()}
                for editor in finder.editors]


# --------------------------------------------------------------------------- starters from a roster


def test_a_roster_renders_every_students_own_file_with_the_bundles_secret(tmp_path):
    bundle = tmp_path / "bundle"
    write_grading_files(bundle, HAND, sandbox="best-effort", seed_secret="given-secret")
    assert (bundle / SEED_SECRET_NAME).read_text().strip() == "given-secret"
    roster = tmp_path / "roster.csv"
    roster.write_text("Name,Email\nAda,ada@uni.edu\nBob,bob@uni.edu\n,\n")
    out = tmp_path / "starters"
    runner = CliRunner()
    result = runner.invoke(main, ["stub", "hand-bpe", "--roster", str(roster), "--id-column",
                                  "email", "-o", str(out)],
                           env={"GRADE_SEED_SECRET": None,
                                "GRADE_SEED_SECRET_FILE": str(bundle / SEED_SECRET_NAME)})
    assert result.exit_code == 0, result.output
    assert sorted(path.name for path in out.iterdir()) == ["ada@uni.edu", "bob@uni.edu"]
    ada = (out / "ada@uni.edu" / "answers.yaml").read_text()
    single = runner.invoke(main, ["stub", "hand-bpe", "--student", "ada@uni.edu",
                                  "--seed-secret", "given-secret"])
    assert ada == single.output
    again = runner.invoke(main, ["stub", "hand-bpe", "--roster", str(roster), "--id-column",
                                 "email", "-o", str(out)])
    assert again.exit_code == 2 and "--force" in again.output


@pytest.mark.parametrize("roster, arguments, message", [
    ("Name,Email\nAda,ada@uni.edu\n", ["--id-column", "sid"], "has no column 'sid'"),
    ("Jane Doe\nada\n", [], "'Jane Doe'"),
    ("# nobody yet\n", [], "lists no student ids"),
])
def test_a_bad_roster_is_refused_with_the_reason_and_writes_nothing(tmp_path, roster, arguments,
                                                                   message):
    path = tmp_path / ("roster.csv" if "," in roster else "roster.txt")
    path.write_text(roster)
    out = tmp_path / "starters"
    result = CliRunner().invoke(main, ["stub", "hand-bpe", "--roster", str(path), "-o", str(out),
                                       "--seed-secret", "s", *arguments])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not out.exists()
    assert "Traceback" not in result.output


def test_a_code_exercise_has_one_stub_for_everyone():
    assert per_student(HAND) and not per_student(CODE)
    result = CliRunner().invoke(main, ["stub", "bpe-train-encode", "--roster", "r.txt", "-o", "x"])
    assert result.exit_code == 2


def test_the_classroom_template_says_where_each_students_file_comes_from():
    text = classroom_starter(HAND)
    assert text.startswith("# exercise: hand-bpe") and "GitHub username" in text
    assert classroom_starter(CODE).startswith("# exercise: bpe-train-encode")


def test_a_per_student_bundle_says_how_each_student_gets_their_file(tmp_path):
    from grader.bundles.classroom import write_classroom_bundle

    write_classroom_bundle(HAND, tmp_path / "repo", install="bpe-autograder==0.1.0",
                           seed_secret="course-secret")
    bundle = tmp_path / "repo" / ".github" / "bpe-autograder"
    readme = (bundle / "README.md").read_text()
    assert "grade stub hand-bpe --roster roster.csv" in readme
    assert "--id-column github_username" in readme
    assert "GRADE_SEED_SECRET_FILE=.github/bpe-autograder/seed-secret" in readme
    assert (bundle / SEED_SECRET_NAME).read_text().strip() == "course-secret"
    assert (tmp_path / "repo" / "answers.yaml").read_text() == classroom_starter(HAND)
    write_classroom_bundle(CODE, tmp_path / "code", install="bpe-autograder==0.1.0")
    assert not (tmp_path / "code" / ".github" / "bpe-autograder" / "README.md").exists()
