"""The command line for a course's own exercises, and what every command shares: exit codes,
course folders, colour, quick start-up, ``grade new``, ``grade show``, ``list --format json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from grader.commands.cli import COMMANDS, load_command, main
from grader.spec.loading import ENV_VAR, exercise_path, use_exercise_dirs
from reference import TIE_BREAKS, train_bpe

REPO = Path(__file__).resolve().parents[2]
SUBMISSIONS = REPO / "tests" / "submissions"


def grade(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture(autouse=True)
def no_course_folders(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    use_exercise_dirs([])
    yield
    use_exercise_dirs([])


@pytest.fixture
def course(tmp_path) -> Path:
    """A course folder holding 'week3-bpe' (a quick bpe-train-encode) as 'Week 3.yaml'."""
    data = yaml.safe_load(exercise_path("bpe-train-encode").read_text(encoding="utf-8"))
    data["id"] = "week3-bpe"
    data["properties"]["examples"] = 8
    data["milestones"] = [m for m in data["milestones"]
                          if all(c["kind"] != "efficiency" for c in m["checks"])]
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "Week 3.yaml").write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True),
                                        encoding="utf-8")
    return folder


def student(tmp_path: Path, header: str) -> Path:
    source = (SUBMISSIONS / "correct_counter.py").read_text(encoding="utf-8")
    lines = [line for line in source.splitlines() if not line.startswith("# exercise:")]
    path = tmp_path / "student.py"
    path.write_text(f"# exercise: {header}\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_course_exercise_resolves_by_id_in_every_command(course, tmp_path):
    path = student(tmp_path, "week3-bpe")
    folder = str(course)
    assert grade("stub", "week3-bpe", "--exercises-dir", folder).output.startswith("# exercise: week3-bpe")
    assert grade("check", "week3-bpe", "--exercises-dir", folder).exit_code == 0
    assert grade("show", "week3-bpe", "--exercises-dir", folder).output.startswith("id: week3-bpe")
    assert "week3-bpe" in grade("list", "--exercises-dir", folder).output
    bundled = grade("bundle", "classroom", "week3-bpe", "--exercises-dir", folder,
                    "--install", "bpe-autograder", "-o", str(tmp_path / "template"))
    assert bundled.exit_code == 0, bundled.output
    assert (tmp_path / "template" / ".github" / "bpe-autograder").is_dir()
    graded = grade("submit", str(path), "--format", "json", "--exercises-dir", folder)
    assert graded.exit_code == 0, graded.output
    assert json.loads(graded.stdout)["exercise"] == "week3-bpe"
    by_env = grade("submit", str(path), "--format", "json", env={ENV_VAR: folder})
    assert by_env.exit_code == 0
    graded_report = json.loads(by_env.stdout)
    assert graded_report["exercise"] == "week3-bpe"
    assert graded_report["score"] == graded_report["max_score"] == 85


def test_an_unresolvable_header_suggests_exercise_path(tmp_path):
    result = grade("submit", str(student(tmp_path, "my-ex")))
    assert result.exit_code == 2
    assert "names exercise 'my-ex', which is not found" in result.output
    assert "--exercise PATH/TO/my-ex.yaml" in result.output
    assert "--exercises-dir DIR or GRADE_EXERCISES_PATH" in result.output


def test_a_header_that_disagrees_with_exercise_is_reported(course, tmp_path):
    result = grade("submit", str(student(tmp_path, "lesson97-bpe")), "--exercise",
                   str(course / "Week 3.yaml"), "--format", "json")
    assert result.exit_code == 0
    assert "says '# exercise: lesson97-bpe' but is graded as exercise 'week3-bpe'" in result.stderr


@pytest.mark.parametrize("args", [
    ("check", "nope"), ("stub", "nope"), ("show", "nope"), ("audit", "nope"),
    ("bundle", "classroom", "nope"), ("submit", "README.md", "--exercise", "nope"),
])
def test_an_unknown_exercise_exits_two_from_every_command(args):
    result = grade(*args)
    assert result.exit_code == 2, (args, result.output)
    assert "nope" in result.output and "Traceback" not in result.output


def test_check_of_a_folder_checks_every_spec_in_it(course, tmp_path):
    (course / "broken.yaml").write_text("id: broken\n", encoding="utf-8")
    result = grade("check", str(course))
    assert result.exit_code == 3
    assert "ok: exercise 'week3-bpe'" in result.output
    assert "broken.yaml" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    assert grade("check", str(empty)).exit_code == 2


def test_fail_under_exits_three_below_the_bar(course, tmp_path):
    path = student(tmp_path, "week3-bpe")
    ok = grade("submit", str(path), "--exercises-dir", str(course), "--fail-under", "85", "-q")
    assert ok.exit_code == 0
    wrong = tmp_path / "wrong.py"
    wrong.write_text("# exercise: week3-bpe\n", encoding="utf-8")
    below = grade("submit", str(wrong), "--exercises-dir", str(course), "--fail-under", "50%")
    assert below.exit_code == 3
    assert "below --fail-under 50%" in below.stderr
    bad = grade("submit", str(wrong), "--exercises-dir", str(course), "--fail-under", "lots")
    assert bad.exit_code == 2


def test_a_file_that_does_not_load_is_graded_and_exits_zero(course, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("# exercise: week3-bpe\ndef (:\n", encoding="utf-8")
    result = grade("submit", str(broken), "--exercises-dir", str(course), "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["score"] == 0


def test_colour_follows_the_option_and_no_color(course, tmp_path):
    path = student(tmp_path, "week3-bpe")
    base = ("submit", str(path), "--exercises-dir", str(course), "-q")
    assert "\x1b[" in grade(*base, "--color").stdout
    assert "\x1b[" not in grade(*base).stdout  # not a terminal
    assert "\x1b[" not in grade(*base, "--no-color").stdout


def test_trace_refuses_word_counts_without_the_flag():
    result = grade("trace", "low=5", "lower=2", "--merges", "2")
    assert result.exit_code == 2
    assert "add --word-counts" in result.output
    assert grade("trace", "low=5", "lower=2", "--merges", "2", "--word-counts").exit_code == 0


def test_every_help_lists_the_exit_codes_and_the_summaries_match():
    assert "Exit codes" in grade("--help").output
    for name, (_, summary) in COMMANDS.items():
        command = load_command(name)
        assert "Exit codes" in grade(name, "--help").output, name
        first = " ".join((command.help or "").split("\n\n")[0].split())
        assert summary.split()[0] == first.split()[0], (name, summary, first)


def test_submit_formats_match_the_report_formats():
    from grader.commands.submit import FORMATS
    from grader.report import FORMATS as REPORT_FORMATS

    assert FORMATS == REPORT_FORMATS


def test_version_and_help_start_without_the_heavy_modules():
    code = ("import sys; from grader.commands.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('pydantic', 'hypothesis', 'yaml', 'jinja2', 'grader.sandbox') "
            "if m in sys.modules]\nprint(heavy, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert done.stderr.strip() == "[]"


def test_list_as_json(course):
    result = grade("list", "--format", "json", "--exercises-dir", str(course))
    listed = {item["id"]: item for item in json.loads(result.output)}
    assert {"bpe-train-encode", "lesson97-bpe", "week3-bpe"} <= set(listed)
    assert listed["lesson97-bpe"]["conventions"]["tie_break"] == "first-seen"
    assert [m["points"] for m in listed["bpe-train-encode"]["milestones"]] == [45, 40, 15]


@pytest.mark.parametrize("rule", TIE_BREAKS)
@pytest.mark.parametrize("corpus_form", ["texts", "word-counts"])
def test_grade_new_writes_a_spec_that_checks_clean(tmp_path, rule, corpus_form):
    path = tmp_path / "my-ex.yaml"
    result = grade("new", "my-ex", "-o", str(path), "--tie-break", rule, "--corpus-form", corpus_form)
    assert result.exit_code == 0, result.output
    checked = grade("check", str(path))
    assert checked.exit_code == 0, checked.output
    assert "warning" not in checked.output
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    public = [c for c in data["cases"] if c["id"].startswith("tie-rules-differ")]
    assert len(public) == 4
    for case in public:
        assert len({tuple(train_bpe(case["corpus"], 4, tie_break=r)) for r in TIE_BREAKS}) == 4
    stub = grade("stub", str(path))
    assert f"(rule {rule!r})" in " ".join(stub.output.split())


def test_grade_new_from_an_existing_exercise_keeps_its_structure(tmp_path):
    result = grade("new", "my-lesson", "--from", "lesson97-bpe", "--tie-break", "concatenated")
    data = yaml.safe_load(result.output)
    assert data["conventions"]["merge_form"] == "pairs-with-token"
    assert data["conventions"]["corpus_form"] == "word-counts"
    assert set(data["functions"]) == {"train", "encode", "sequence_lengths", "vocab_tradeoff"}
    assert data["functions"]["encode"]["name"] == "tokenize"
    path = tmp_path / "my-lesson.yaml"
    path.write_text(result.output, encoding="utf-8")
    assert grade("check", str(path)).exit_code == 0


def test_grade_new_refuses_a_bad_id_and_an_existing_file(tmp_path):
    assert grade("new", "My Exercise").exit_code == 2
    path = tmp_path / "x.yaml"
    path.write_text("mine", encoding="utf-8")
    assert grade("new", "x", "-o", str(path)).exit_code == 2
    assert path.read_text(encoding="utf-8") == "mine"


def test_stub_of_a_contradictory_spec_warns_and_check_reports_unavailable_imports(tmp_path):
    text = exercise_path("bpe-train-encode").read_text(encoding="utf-8")
    path = tmp_path / "copy.yaml"
    path.write_text(text.replace("tie_break: lexicographic", "tie_break: first-seen").replace(
        "student_file: student.py", "student_file: student.py\nallowed_imports: [regex, no_such_module]"),
        encoding="utf-8")
    stub = grade("stub", str(path))
    assert stub.exit_code == 0
    assert "warning:" in stub.stderr and "functions.train.doc" in stub.stderr
    assert "the Python standard library and regex, no_such_module" in " ".join(stub.stdout.split())
    checked = grade("check", str(path))
    assert checked.exit_code == 3
    assert "'no_such_module' is allowed but not installed" in checked.output
    assert "'regex' is allowed" not in checked.output


def test_check_of_a_folder_warns_about_an_id_declared_twice(course):
    (course / "again.yaml").write_text((course / "Week 3.yaml").read_text(encoding="utf-8"),
                                       encoding="utf-8")
    result = grade("check", str(course))
    assert "id 'week3-bpe' is declared by Week 3.yaml, again.yaml" in result.stderr


class FakeTerminal(__import__("io").StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_after_the_delay_and_is_erased():
    import time

    from grader.commands.progress import Progress

    terminal = FakeTerminal()
    with Progress("grading s.py", stream=terminal, delay=0.05):
        time.sleep(0.3)
    written = terminal.getvalue()
    assert "\rgrading s.py ... 0 s" in written and written.endswith("\r")
    for quiet, stream in ((True, FakeTerminal()), (False, __import__("io").StringIO())):
        with Progress("x", stream=stream, delay=0.0, quiet=quiet):
            time.sleep(0.1)
        assert stream.getvalue() == ""
    fast = FakeTerminal()
    with Progress("x", stream=fast, delay=2.0):
        pass
    assert fast.getvalue() == ""


def test_progress_of_a_grading_says_which_check_of_how_many_runs():
    import time

    from grader.commands.progress import Progress
    from grader.grading.engine import grade_submission
    from grader.spec import load_exercise

    exercise = load_exercise("bpe-train-encode")
    told = []
    grade_submission(Path(__file__).parents[2] / "examples" / "bpe-train-encode" /
                     "student_correct.py", exercise, seed_secret="progress",
                     on_check=lambda done, total, what: told.append((done, total, what)))
    total = sum(len(milestone.checks) for milestone in exercise.milestones)
    assert [done for done, _, _ in told] == list(range(total))
    assert {t for _, t, _ in told} == {total}
    assert told[0][2] == f"{exercise.milestones[0].id}: {exercise.milestones[0].checks[0].kind}"
    terminal = FakeTerminal()
    with Progress("grading s.py", stream=terminal, delay=0.0) as progress:
        progress.step(6, 19, "train: differential")
        time.sleep(0.7)  # one redraw after the step
    assert "\rgrading s.py: check 7/19 (train: differential) ... " in terminal.getvalue()
