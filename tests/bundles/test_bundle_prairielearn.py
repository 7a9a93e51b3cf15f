"""``grade bundle prairielearn``: the question directory, its entrypoint on a /grade-like root,
and the grader image's build context (read, not built: no Docker engine here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

import grader.bundles.prairielearn as bundle_prairielearn
from grader.bundles.wheels import WheelSet, WheelTarget
from grader.bundles.common import BundleError
from grader.commands.cli import main
from grader.spec import load_exercise
from grader.spec.stubs import render_stub
from grader.package_data import templates_path
from support.host import host_environment
from support.wheels import shared_wheels  # noqa: F401 - the fixture, applied to every test here

SCHEMAS = Path(__file__).parents[1] / "schemas"
SUBMISSIONS = Path(__file__).parents[1] / "submissions"
EXERCISE = "bpe-train-encode"


def validate(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    schema = json.loads((SCHEMAS / "prairielearn_results.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)
    return data


@pytest.fixture(scope="module")
def question(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("course") / "bpe"
    result = CliRunner().invoke(main, ["bundle", "prairielearn", EXERCISE, "-o", str(directory),
                                       "--image", "myorg/bpe-grader:0.1.0"])
    assert result.exit_code == 0, result.output
    return directory


# --------------------------------------------------------------------------- the question


def test_info_json_enables_external_grading_through_the_tests_entrypoint(question):
    info = json.loads((question / "info.json").read_text())
    assert info["type"] == "v3" and info["gradingMethod"] == "External"
    options = info["externalGradingOptions"]
    assert options["enabled"] is True and options["image"] == "myorg/bpe-grader:0.1.0"
    assert options["entrypoint"] == "/grade/tests/run_grader"
    assert (question / "tests" / "run_grader").is_file()
    assert 0 < options["timeout"] <= 600
    assert len(info["uuid"]) == 36


class ElementCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_question_html_offers_an_editor_prefilled_with_the_stub(question):
    exercise = load_exercise(EXERCISE)
    parser = ElementCollector()
    parser.feed((question / "question.html").read_text())
    editors = [attrs for tag, attrs in parser.elements if tag == "pl-file-editor"]
    assert len(editors) == 1
    assert editors[0]["file-name"] == exercise.student_file
    assert (question / editors[0]["source-file-name"]).read_text() == render_stub(exercise)
    assert "pl-external-grader-results" in [tag for tag, _ in parser.elements]


def test_without_the_option_the_question_has_no_upload(question):
    assert "pl-file-upload" not in (question / "question.html").read_text()
    assert "notebook_file" not in json.loads((question / "tests" / "bundle.json").read_text())


def test_a_notebook_upload_is_offered_beside_the_editor_when_asked(tmp_path):
    directory = tmp_path / "bpe"
    result = CliRunner().invoke(main, ["bundle", "prairielearn", EXERCISE, "-o", str(directory),
                                       "--notebook-upload"])
    assert result.exit_code == 0, result.output
    parser = ElementCollector()
    parser.feed((directory / "question.html").read_text())
    tags = [tag for tag, _ in parser.elements]
    assert tags.index("pl-file-editor") < tags.index("pl-file-upload")
    [upload] = [attrs for tag, attrs in parser.elements if tag == "pl-file-upload"]
    assert upload == {"optional-file-names": "student.ipynb"}
    assert json.loads((directory / "tests" / "bundle.json").read_text())["notebook_file"] == "student.ipynb"
    refused = CliRunner().invoke(main, ["bundle", "prairielearn", "hand-bpe", "-o",
                                        str(tmp_path / "hand"), "--notebook-upload"])
    assert refused.exit_code != 0 and "takes no notebook" in refused.output


def test_question_html_escapes_text_and_hides_braces_from_mustache(tmp_path):
    exercise = load_exercise(EXERCISE).model_copy(
        update={"instructions": "Return {{ merges }} and <script>alert(1)</script> & more."}
    )
    html = bundle_prairielearn.question_html(exercise)
    assert "<script>" not in html and "{{ merges }}" not in html
    parser = ElementCollector()
    parser.feed(html)
    assert "Return {{ merges }} and <script>alert(1)</script> & more." in "".join(parser.text)


def test_tests_directory_holds_the_spec_and_the_grading_settings(question):
    exercise = load_exercise(EXERCISE)
    tests = question / "tests"
    config = json.loads((tests / "bundle.json").read_text())
    assert (tests / config["exercise_file"]).read_text() == exercise.source.read_text()
    assert config["student_file"] == exercise.student_file
    assert config["max_score"] == exercise.total_points
    assert config["strict_sandbox"] is True
    assert os.access(tests / "run_grader", os.X_OK) and os.access(tests / "entrypoint.py", os.X_OK)


def test_a_non_empty_directory_is_kept_unless_forced_and_the_uuid_survives(question):
    before = json.loads((question / "info.json").read_text())["uuid"]
    refused = CliRunner().invoke(main, ["bundle", "prairielearn", EXERCISE, "-o", str(question)])
    assert refused.exit_code == 2 and "--force" in refused.output
    forced = CliRunner().invoke(main, ["bundle", "prairielearn", EXERCISE, "-o", str(question), "--force",
                                       "--image", "myorg/bpe-grader:0.1.0"])
    assert forced.exit_code == 0, forced.output
    assert json.loads((question / "info.json").read_text())["uuid"] == before


@pytest.mark.parametrize("image", ["My Image", "bad;rm -rf", ""])
def test_a_malformed_image_name_is_refused(tmp_path, image):
    result = CliRunner().invoke(main, ["bundle", "prairielearn", EXERCISE, "-o", str(tmp_path / "q"),
                                       "--image", image])
    assert result.exit_code == 2 and "not a Docker image name" in result.output


# --------------------------------------------------------------------------- grading on a /grade root


def grade_on_root(question: Path, tmp_path: Path, submission: Path) -> Path:
    """Run the question's entrypoint as PrairieLearn would, with the grader of this test run."""
    root = tmp_path / "grade"
    (root / "student").mkdir(parents=True)
    (root / "student" / "student.py").write_bytes(submission.read_bytes())
    os.symlink(question / "tests", root / "tests")
    environment = dict(host_environment(), GRADE_ROOT=str(root), BPE_AUTOGRADER_VENV=sys.prefix)
    finished = subprocess.run(["bash", str(root / "tests" / "run_grader")], env=environment,
                              capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return root / "results" / "results.json"


def test_a_syntax_error_is_not_gradable(question, tmp_path):
    results = validate(grade_on_root(question, tmp_path, SUBMISSIONS / "broken_syntax.py"))
    assert results["gradable"] is False
    assert any("SyntaxError" in error for error in results["format_errors"])


@pytest.mark.parametrize("name, full_marks", [("correct_counter.py", True), ("wrong_encode_drops_marker.py", False)])
def test_a_loadable_submission_gets_a_score_between_zero_and_one(question, tmp_path, name, full_marks):
    results = validate(grade_on_root(question, tmp_path, SUBMISSIONS / name))
    assert results["gradable"] is True
    assert 0 <= results["score"] <= 1
    assert (results["score"] == 1) is full_marks


# --------------------------------------------------------------------------- the grader image


@pytest.fixture
def image_context(tmp_path, monkeypatch) -> Path:
    """The image's build context, with a stand-in wheel set (the real one is downloaded)."""
    def fake_wheels(directory: Path, target: WheelTarget, sources) -> WheelSet:
        directory.mkdir(parents=True)
        project = directory / "bpe_autograder-0.1.0-py3-none-any.whl"
        for name in (project.name, "pip-24.0-py3-none-any.whl"):
            (directory / name).write_bytes(b"")
        return WheelSet(directory=directory, project_wheel=project, wheels=sorted(directory.iterdir()))

    monkeypatch.setattr(bundle_prairielearn, "collect_wheels", fake_wheels)
    context = tmp_path / "image"
    bundle_prairielearn.write_grader_image(context, image="myorg/bpe-grader:0.1.0")
    return context


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    joined = text.replace("\\\n", " ")
    lines = [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]
    return [tuple(line.split(None, 1)) for line in lines]


def test_the_image_installs_the_grader_offline_from_its_context(image_context):
    instructions = dockerfile_instructions((image_context / "Dockerfile").read_text())
    assert instructions[0] == ("FROM", "python:3.10-slim")
    copied = [argument.split()[0] for keyword, argument in instructions if keyword == "COPY"]
    assert copied and all((image_context / source).exists() for source in copied)
    runs = " ".join(argument for keyword, argument in instructions if keyword == "RUN")
    assert "install.sh" in runs and "curl" not in runs and "wget" not in runs
    install = (image_context / "install.sh").read_text()
    assert "--no-index" in install and "bpe-autograder==0.1.0" in install
    env = " ".join(argument for keyword, argument in instructions if keyword == "ENV")
    assert "/opt/bpe-autograder/venv/bin" in env
    run_grader = templates_path() / "prairielearn" / "run_grader.j2"
    assert "/opt/bpe-autograder/venv" in run_grader.read_text()


def test_the_image_needs_a_python_version_for_its_base():
    with pytest.raises(BundleError, match="Python version"):
        bundle_prairielearn.write_grader_image(Path("unused"), target=WheelTarget.this_interpreter())


def test_the_image_command_refuses_this_python(tmp_path):
    result = CliRunner().invoke(main, ["bundle", "image", "-o", str(tmp_path / "img"), "--for-this-python"])
    assert result.exit_code == 2 and "--python-version" in result.output


# --------------------------------------------------------------------------- documented behaviour


def test_the_job_timeout_leaves_the_entrypoint_time_to_write_its_own_result(question):
    info = json.loads((question / "info.json").read_text())
    config = json.loads((question / "tests" / "bundle.json").read_text())
    job_timeout = info["externalGradingOptions"]["timeout"]
    assert job_timeout <= bundle_prairielearn.PRAIRIELEARN_MAX_TIMEOUT
    assert job_timeout - config["timeout_seconds"] >= 20


def test_a_long_exercise_is_capped_below_prairielearns_limit():
    exercise = load_exercise(EXERCISE)
    long = exercise.model_copy(update={"limits": exercise.limits.model_copy(update={"total_seconds": 5000})})
    deadline = bundle_prairielearn.entrypoint_deadline(long)
    timeout = bundle_prairielearn.question_info(long, image="a/b:1")["externalGradingOptions"]["timeout"]
    assert timeout == bundle_prairielearn.PRAIRIELEARN_MAX_TIMEOUT and deadline < timeout


def test_question_html_renders_the_markdown_instructions(question):
    html = (question / "question.html").read_text()
    assert "**" not in html and "`" not in html
    assert "<strong>Training.</strong>" in html
    assert "<code>&lt;/w&gt;</code>" in html
    parser = ElementCollector()
    parser.feed(html)
    assert "p" in [tag for tag, _ in parser.elements]


def test_markdown_lists_code_blocks_and_braces():
    from grader.bundles.instructions import markdown_to_html

    html = markdown_to_html("Intro *here*.\n\n- one `{a}`\n  continued\n- two\n\n```\nx = {1: 2} < 3\n```\n# Title")
    assert html.splitlines() == [
        "<p>Intro <em>here</em>.</p>",
        "<ul><li>one <code>&#123;a&#125;</code> continued</li><li>two</li></ul>",
        "<pre><code>x = &#123;1: 2&#125; &lt; 3</code></pre>",
        "<h1>Title</h1>",
    ]


def test_the_output_directory_is_created_with_its_parents(tmp_path):
    target = tmp_path / "COURSE" / "questions" / "bpeTrainEncode"
    result = CliRunner().invoke(main, ["bundle", "prairielearn", EXERCISE, "-o", str(target),
                                       "--image", "yourorg/bpe-autograder:0.1.0"])
    assert result.exit_code == 0, result.output
    assert (target / "info.json").is_file()


def test_a_missing_function_is_not_gradable_and_costs_no_attempt(question, tmp_path):
    results = validate(grade_on_root(question, tmp_path, SUBMISSIONS / "broken_missing_encode.py"))
    assert results["gradable"] is False
    assert any("does not define encode()" in error for error in results["format_errors"])
    html = (question / "question.html").read_text()
    assert "lacks a required function, comes back as not gradable" in " ".join(html.split())


# --------------------------------------------------------------------------- the README's commands


README = Path(__file__).parents[2] / "README.md"


def readme_commands(prefix: str) -> list[str]:
    """Shell commands of the README's code blocks starting with ``prefix``, continuations joined."""
    text = README.read_text(encoding="utf-8").replace("\\\n", " ")
    blocks = text.split("```")[1::2]
    lines = [line.strip() for block in blocks for line in block.splitlines()]
    return [" ".join(line.split()) for line in lines if line.startswith(prefix)]


def test_readme_image_names_are_valid_docker_names():
    import shlex

    names = []
    for command in readme_commands("grade bundle") + readme_commands("docker "):
        words = shlex.split(command)
        for flag in ("--image", "-t"):
            if flag in words:
                names.append(words[words.index(flag) + 1])
        if words[:2] == ["docker", "push"]:
            names.append(words[2])
    assert len(names) >= 5
    for name in names:
        bundle_prairielearn.check_image_name(name)


def test_readme_question_command_runs_as_copied(tmp_path, monkeypatch):
    import shlex

    [command] = readme_commands("grade bundle prairielearn")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "COURSE" / "questions" / "bpeTrainEncode" / "info.json").is_file()


def test_readme_makes_no_claim_that_topics_must_be_declared():
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert "expects the `topic`" not in text and "to be declared" not in text
