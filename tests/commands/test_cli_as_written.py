"""The commands as the README writes them, on the inputs instructors and TAs hand them: each
runs to its documented end or stops with one clear line and the README's exit code."""

from __future__ import annotations

import csv
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from click.testing import CliRunner

from grader.commands.cli import main
from grader.spec.loading import ENV_VAR, exercise_ids, exercise_path, use_exercise_dirs

REPO = Path(__file__).resolve().parents[2]
SUBMISSIONS = REPO / "tests" / "submissions"
GRADE = Path(sys.executable).parent / "grade"


def grade(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="grade")


@pytest.fixture(autouse=True)
def no_course_folders(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    use_exercise_dirs([])
    yield
    use_exercise_dirs([])


def no_traceback(result) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


# --------------------------------------------------------------------------- grade new


def test_new_creates_the_course_folder_of_its_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = grade("new", "week3-bpe", "--tie-break", "concatenated", "-o", "course/week3-bpe.yaml")
    assert result.exit_code == 0, result.output
    assert grade("check", "course/").exit_code == 0


def test_new_from_a_spec_grade_new_wrote(tmp_path):
    first = tmp_path / "first.yaml"
    assert grade("new", "first", "-o", str(first)).exit_code == 0
    second = tmp_path / "second.yaml"
    result = grade("new", "second", "--from", str(first), "--tie-break", "first-seen",
                   "-o", str(second))
    no_traceback(result)
    assert result.exit_code == 0, result.output
    ids = [case["id"] for case in yaml.safe_load(second.read_text(encoding="utf-8"))["cases"]]
    assert len(ids) == len(set(ids))
    assert grade("check", str(second)).exit_code == 0


def test_new_from_every_shipped_exercise_writes_a_clean_spec_or_says_why_not(tmp_path):
    for exercise in exercise_ids():
        path = tmp_path / f"{exercise}-copy.yaml"
        result = grade("new", "copy", "--from", exercise, "-o", str(path))
        no_traceback(result)
        if result.exit_code == 0:
            checked = grade("check", str(path))
            assert checked.exit_code == 0, (exercise, checked.output)
        else:
            assert result.exit_code == 2, (exercise, result.output)
            assert "grade new cannot start from" in result.output


def test_new_from_bpe_steps_keeps_its_step_functions(tmp_path):
    path = tmp_path / "steps.yaml"
    result = grade("new", "steps", "--from", "bpe-steps", "--tie-break", "lexicographic",
                   "-o", str(path))
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["functions"]["count_pairs"]["name"] == "get_stats"
    assert data["functions"]["merge_pair"]["name"] == "merge_vocab"
    assert "get_stats(vocab)" in data["instructions"]
    # the base's "the one met first wins" is false under the new rule: not copied
    tie_case = next(case for case in data["cases"] if case["id"] == "tie-first-seen")
    assert "description" not in tie_case
    assert grade("check", str(path)).exit_code == 0


# --------------------------------------------------------------------------- grade list


def test_list_shows_the_good_specs_and_names_the_broken_one(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    good = course / "week3-bpe.yaml"
    assert grade("new", "week3-bpe", "-o", str(good)).exit_code == 0
    (course / "week4-wip.yaml").write_text("id: week4-wip\ntitle: [\n", encoding="utf-8")
    result = grade("list", "--exercises-dir", str(course))
    no_traceback(result)
    assert result.exit_code == 2
    assert "week3-bpe  (100 points)" in result.stdout
    assert "bpe-train-encode" in result.stdout
    assert "week4-wip.yaml:3: YAML syntax error" in result.stderr
    as_json = grade("list", "--exercises-dir", str(course), "--format", "json")
    assert as_json.exit_code == 2
    assert "week3-bpe" in {row["id"] for row in json.loads(as_json.stdout)}


# --------------------------------------------------------------------------- special files


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "student.py"
    os.mkfifo(path)
    return path


def test_submit_refuses_a_named_pipe_before_opening_it(fifo):
    """A real process: CliRunner would hang with the command if it opened the pipe."""
    result = subprocess.run([str(GRADE), "submit", str(fifo)], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert "is a named pipe (FIFO), not a file" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args", [
    ["trace", "--file", "{}", "--merges", "2"],
    ["stub", "{}"],
    ["check", "{}"],
    ["submit", str(SUBMISSIONS / "correct_counter.py"), "--exercise", "{}"],
])
def test_a_named_pipe_is_refused_wherever_a_file_is_read(fifo, args):
    argv = [str(GRADE), *(str(fifo) if arg == "{}" else arg for arg in args)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "is a named pipe (FIFO), not a file" in result.stderr


# --------------------------------------------------------------------------- grade check


@pytest.mark.parametrize("content, needle", [
    (b"", "the spec is empty"),
    (bytes(range(256)) * 4, "not UTF-8 text"),
    (b"id: x\ntitle: [\n", "YAML syntax error"),
])
def test_check_exits_two_on_a_file_that_is_not_a_spec_as_stub_and_audit_do(tmp_path, content,
                                                                              needle):
    path = tmp_path / "spec.yaml"
    path.write_bytes(content)
    for command in ("check", "stub", "audit"):
        result = grade(command, str(path))
        no_traceback(result)
        assert result.exit_code == 2, (command, result.output)
        assert needle in result.output


# --------------------------------------------------------------------------- did you mean


@pytest.mark.parametrize("args", [
    ["stub", "bpe-train-encod"],
    ["show", "bpe-train-encod"],
    ["check", "bpe-train-encod"],
    ["audit", "bpe-train-encod"],
    ["submit", str(SUBMISSIONS / "correct_counter.py"), "--exercise", "bpe-train-encod"],
])
def test_a_misspelt_exercise_gets_a_did_you_mean_and_no_install_path(args):
    result = grade(*args)
    no_traceback(result)
    assert result.exit_code == 2
    assert "no exercise 'bpe-train-encod'; did you mean 'bpe-train-encode'?" in result.output
    assert str(REPO) not in result.output


def test_a_misspelt_enum_value_gets_a_did_you_mean(tmp_path):
    path = tmp_path / "spec.yaml"
    assert grade("new", "x", "-o", str(path)).exit_code == 0
    text = path.read_text(encoding="utf-8").replace("tie_break: lexicographic",
                                                     "tie_break: concatenate")
    path.write_text(text, encoding="utf-8")
    result = grade("check", str(path))
    assert result.exit_code == 3
    assert "'concatenate' is not one of" in result.output
    assert "did you mean 'concatenated'?" in result.output


# --------------------------------------------------------------------------- grade batch


@pytest.mark.parametrize("args", [[], ["submissions/"], ["submissions/", "-o", "graded/",
                                                         "--jobs", "0"]])
def test_batch_usage_errors_point_at_the_help_as_typed(args):
    result = grade("batch", *args)
    assert result.exit_code == 2
    assert "Try 'grade batch --help' for help." in result.output
    assert "grade-folder" not in result.output


# --------------------------------------------------------------------------- grade submit


def test_submit_of_an_empty_file_says_the_file_is_empty(tmp_path):
    path = tmp_path / "empty.py"
    path.write_text("\n\n", encoding="utf-8")
    result = grade("submit", str(path))
    assert result.exit_code == 2
    assert "empty.py: the file is empty" in result.stderr
    assert "# exercise" not in result.stderr


def test_submit_of_a_binary_file_says_it_is_not_text(tmp_path):
    path = tmp_path / "student.py"
    path.write_bytes(bytes(range(128, 256)))
    result = grade("submit", str(path))
    assert result.exit_code == 2
    assert "student.py is not UTF-8 text" in result.stderr


# --------------------------------------------------------------------------- grade bundle


@pytest.mark.slow
def test_offline_without_the_project_wheel_names_project_wheel(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    result = grade("bundle", "gradescope", "bpe-train-encode", "-o", str(tmp_path / "a.zip"),
                   "--offline", "--wheels-from", str(wheels))
    no_traceback(result)
    assert result.exit_code == 2
    assert "--project-wheel FILE" in result.output.splitlines()[-1]


@pytest.mark.skipif(sys.version_info[:2] == (3, 10) and platform.machine() == "x86_64"
                    and sys.platform == "linux", reason="this Python is Gradescope's")
def test_for_this_python_does_not_say_upload_when_gradescope_cannot_run_it(tmp_path, monkeypatch):
    import grader.bundles.gradescope as gradescope

    def built(exercise, output, **options):  # the zip itself is another test's subject
        output.write_bytes(b"zip")
        return SimpleNamespace(path=output, size_bytes=3, wheels=SimpleNamespace(wheels=[]))

    monkeypatch.setattr(gradescope, "build_gradescope_bundle", built)
    result = grade("bundle", "gradescope", "bpe-train-encode", "-o", str(tmp_path / "local.zip"),
                   "--for-this-python")
    assert result.exit_code == 0, result.output
    assert "upload it under Configure Autograder" not in result.output
    assert "without --for-this-python" in result.output


# --------------------------------------------------------------------------- grade batch's files


@pytest.fixture
def quick_spec(tmp_path) -> Path:
    """bpe-train-encode without its timed milestone and with fewer generated inputs."""
    data = yaml.safe_load(exercise_path("bpe-train-encode").read_text(encoding="utf-8"))
    data["properties"]["examples"] = 8
    data["milestones"] = [m for m in data["milestones"]
                          if all(c["kind"] != "efficiency" for c in m["checks"])]
    path = tmp_path / "quick.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def test_batch_warns_on_another_exercise_header_and_lists_a_non_python_file(tmp_path, quick_spec):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    source = (SUBMISSIONS / "correct_counter.py").read_text(encoding="utf-8")
    (submissions / "bob.py").write_text(source, encoding="utf-8")
    (submissions / "eve.py").write_text("# exercise: lesson97-bpe\n" + source, encoding="utf-8")
    (submissions / "carol.txt").write_text("def train_bpe(): ...\n", encoding="utf-8")
    out = tmp_path / "graded"
    result = grade("batch", str(submissions), "-o", str(out), "--exercise", str(quick_spec),
                   "--csv", "canvas", "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert "eve.py says '# exercise: lesson97-bpe' but is graded as exercise" in result.output
    assert "bob.py says" not in result.output
    rows = {row["student"]: row for row in csv.DictReader(
        (out / "grades.csv").open(encoding="utf-8"))}
    assert rows["carol"]["outcome"] == "unusable"
    assert "carol.txt: not a Python file" in rows["carol"]["reason"]
    canvas = list(csv.reader((out / "grades-canvas.csv").open(encoding="utf-8")))
    assert "carol" in {row[2] for row in canvas[2:]}
    page = (out / "class-report.html").read_text(encoding="utf-8")
    table = page[page.index("Checks by failure rate"):]
    table = table[:table.index("</table>")]
    assert "<th></th>" not in table and "<td></td>" not in table


def test_batch_reason_names_a_classmate_s_answers_file(tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    secret = ["--seed-secret", "course-secret"]
    assert grade("stub", "hand-bpe", "--student", "bob", "-o", str(submissions / "alice.yaml"),
                 *secret).exit_code == 0
    assert grade("stub", "hand-bpe", "--student", "bob", "-o", str(submissions / "bob.yaml"),
                 *secret).exit_code == 0
    out = tmp_path / "graded"
    result = grade("batch", str(submissions), "-o", str(out), "--exercise", "hand-bpe", *secret)
    assert result.exit_code == 0, result.output
    rows = {row["student"]: row for row in csv.DictReader(
        (out / "grades.csv").open(encoding="utf-8"))}
    assert "handed in by 'alice'" in rows["alice"]["reason"]
    assert rows["bob"]["reason"] == ""


# --------------------------------------------------------------------------- student-facing text


def test_the_report_title_of_a_grade_new_spec_names_its_id_once(tmp_path):
    spec = tmp_path / "week3-bpe.yaml"
    assert grade("new", "week3-bpe", "-o", str(spec)).exit_code == 0
    empty = tmp_path / "student.py"
    empty.write_text("", encoding="utf-8")
    result = grade("submit", str(empty), "--exercise", str(spec))
    assert result.exit_code == 0, result.output
    title = result.stdout.splitlines()[0]
    assert title.count("week3-bpe") == 1, title


def test_a_broken_notebook_is_told_a_menu_current_jupyter_has(tmp_path):
    notebook = tmp_path / "student.ipynb"
    notebook.write_text("not json", encoding="utf-8")
    result = grade("submit", str(notebook), "--exercise", "bpe-train-encode", "--format", "json")
    assert result.exit_code == 0, result.output
    errors = " ".join(json.loads(result.stdout)["errors"])
    assert "Save and Export Notebook As > Executable Script" in errors
    assert "Download as" not in errors


def test_p_classes_under_re_get_a_hint_about_the_regex_module(tmp_path):
    student = tmp_path / "student.py"
    student.write_text(
        "# exercise: byte-bpe\n"
        "import re as regex\n"
        "PAT = r\"\"\" ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+\"\"\"\n\n"
        "def train_bpe(text, vocab_size, special_tokens):\n"
        "    regex.findall(PAT, text)\n"
        "    return {}, []\n\n"
        "def encode(text, vocab, merges, special_tokens):\n    return []\n\n"
        "def decode(ids, vocab):\n    return ''\n\n"
        "def encode_iterable(lines, vocab, merges, special_tokens):\n    yield from ()\n",
        encoding="utf-8")
    result = grade("submit", str(student), "--format", "json", "-q")
    assert result.exit_code == 0, result.output
    messages = [check["message"] or "" for milestone in json.loads(result.stdout)["milestones"]
                for check in milestone["checks"]]
    hinted = [m for m in messages if "bad escape \\p" in m]
    assert hinted and all("re has no \\p{...} classes, the regex module has" in m for m in hinted)


def test_a_quoted_count_in_an_answers_file_counts_as_the_number(tmp_path):
    sheet = tmp_path / "answers.yaml"
    secret = ["--seed-secret", "course-secret"]
    assert grade("stub", "hand-bpe", "--student", "ada", "-o", str(sheet), *secret).exit_code == 0
    first = grade("submit", str(sheet), "--student", "ada", "--format", "json", "-q", *secret)
    check = json.loads(first.stdout)["milestones"][0]["checks"][0]
    expected = check["details"]["expected"]
    text = sheet.read_text(encoding="utf-8")
    text = text.replace('  pair: ""', f'  pair: "{expected["pair"]}"', 1)
    text = text.replace("  count: 0", f'  count: "{expected["count"]}"', 1)
    sheet.write_text(text, encoding="utf-8")
    result = grade("submit", str(sheet), "--student", "ada", "--format", "json", "-q", *secret)
    milestone = json.loads(result.stdout)["milestones"][0]
    assert milestone["score"] == milestone["max_score"], milestone["checks"][0]["message"]


def test_tokens_without_the_end_of_word_marker_are_told_about_it(tmp_path):
    sheet = tmp_path / "answers.yaml"
    secret = ["--seed-secret", "course-secret"]
    assert grade("stub", "hand-bpe", "--student", "ada", "-o", str(sheet), *secret).exit_code == 0
    first = grade("submit", str(sheet), "--student", "ada", "--format", "json", "-q", *secret)
    tokens = next(m for m in json.loads(first.stdout)["milestones"] if m["id"] == "tokens")
    check = tokens["checks"][0]  # id answers:tokens:WORD
    word, expected = check["id"].rsplit(":", 1)[1], check["details"]["expected"]
    last = expected[-1][:-len("</w>")]
    without = expected[:-1] + ([last] if last else [])
    text = sheet.read_text(encoding="utf-8").replace(f'"{word}": []',
                                                     f'"{word}": {json.dumps(without)}')
    sheet.write_text(text, encoding="utf-8")
    result = grade("submit", str(sheet), "--student", "ada", "--format", "json", "-q", *secret)
    tokens = next(m for m in json.loads(result.stdout)["milestones"] if m["id"] == "tokens")
    failed = next(c for c in tokens["checks"] if c["id"] == check["id"])
    assert "end with the end-of-word marker '</w>'" in failed["message"]
    # the word's encoding comes first, so a long training run is what a bound cuts
    assert failed["details"]["trace"].startswith(f"Encoding '{word}'")


def test_one_merge_too_few_is_said_without_pair_tables(tmp_path, quick_spec):
    source = (SUBMISSIONS / "correct_counter.py").read_text(encoding="utf-8")
    assert "for _ in range(num_merges):" in source
    student = tmp_path / "student.py"
    student.write_text(source.replace("for _ in range(num_merges):",
                                      "for _ in range(num_merges - 1):"), encoding="utf-8")
    result = grade("submit", str(student), "--exercise", str(quick_spec), "-q")
    assert result.exit_code == 0, result.output
    assert "your merges stop after" in result.stdout
    assert "One merge too few" in result.stdout
    assert "the list had ended" not in result.stdout  # no table of counts for a list cut short
    assert "count  note" not in result.stdout
