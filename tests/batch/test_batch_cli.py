"""``grade batch`` as a command: exit statuses, the summary, and an interrupted batch that a
second run finishes without grading anyone twice."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main

from batch_helpers import LESSON_CORRECT, LESSON_WRONG, copy

GRADE = [sys.executable, "-c", "from grader.commands.cli import main; main()"]


def lesson_class(folder: Path, size: int) -> Path:
    for index in range(size):
        copy(LESSON_CORRECT if index % 2 else LESSON_WRONG, folder / f"st{index:02d}.py")
    return folder


def graded_students(out: Path) -> list[str]:
    if not (out / "gradebook.sqlite").exists():
        return []
    try:
        with closing(sqlite3.connect(out / "gradebook.sqlite")) as db:
            return [s for (s,) in db.execute("SELECT student FROM gradings ORDER BY id")]
    except sqlite3.OperationalError:
        return []


@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_an_interrupted_batch_keeps_its_gradings_and_a_rerun_grades_the_rest(tmp_path, how):
    # Forked gradings from a warm parent take well under a second each, and the interruption
    # comes within a poll (20 ms) of the first one in the gradebook: fifteen still to come leave
    # seconds of margin even on a loaded machine, and the rerun has a class to grade.
    size = 16
    folder = lesson_class(tmp_path / "class", size)
    out = tmp_path / "out"
    command = GRADE + ["batch", str(folder), "-o", str(out), "--jobs", "1"]
    # As from a terminal: Ctrl-C not ignored, even when this run inherited it ignored (a
    # background job of a script does).
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not graded_students(out) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert graded_students(out), process.communicate()
    if how == "ctrl-c":
        os.killpg(process.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
    else:
        process.kill()
    stdout, stderr = process.communicate(timeout=30)
    kept = graded_students(out)
    assert 1 <= len(kept) < size, (stdout, stderr)
    if how == "ctrl-c":
        assert process.returncode == 130, stderr
        assert "interrupted: every grading that finished is in the gradebook" in stdout
        # Every process of the batch got the Ctrl-C: none of them speaks of it in a traceback.
        assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    rerun = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert f"{size - len(kept)} graded, {len(kept)} unchanged since the last run" in rerun.stdout
    everyone = graded_students(out)
    assert sorted(everyone) == [f"st{i:02d}" for i in range(size)]  # nobody graded twice


def test_unusable_entries_are_summary_lines_and_exit_zero(tmp_path: Path) -> None:
    folder = lesson_class(tmp_path / "class", 2)
    copy(LESSON_CORRECT, folder / "st00" / "student.py")  # st00 twice
    (folder / "empty").mkdir()
    (folder / "notes.md").write_text("hi")
    (folder / "nb.ipynb").write_text("not json")
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(tmp_path / "out"),
                                       "--jobs", "2", "--csv", "canvas"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("1 submission(s) (file+folder layout): 1 graded, 0 unchanged")
    assert "; 5 unusable;" in lines[0]
    unusable = [line for line in lines if line.startswith("unusable: ")]
    assert unusable == [
        "unusable: empty: an empty folder: no .py or .ipynb file in it",
        "unusable: nb.ipynb (student nb): nb.ipynb is not a readable Jupyter notebook "
        "(NotJSONError: Notebook does not appear to be JSON: 'not json'); save it again from "
        "Jupyter, or submit a .py file (JupyterLab and Notebook 7: File > Save and Export "
        "Notebook As > Executable Script)",
        "unusable: notes.md (student notes): not a Python file or notebook (.md); submit "
        "STUDENT.py or "
        "STUDENT.ipynb",
        "unusable: st00.py (student st00): student id 'st00' has 2 submissions (st00.py, "
        "st00/student.py); none was graded: remove all but one",
        "unusable: st00/student.py (student st00): student id 'st00' has 2 submissions "
        "(st00.py, st00/student.py); none was graded: remove all but one",
    ]
    for name in ("gradebook.sqlite", "grades.csv", "grades-canvas.csv", "class-report.html"):
        assert f"wrote {tmp_path / 'out' / name}" in result.output or name == "gradebook.sqlite"
        assert (tmp_path / "out" / name).is_file()


@pytest.mark.parametrize("arguments, message", [
    (["missing-folder"], "no such folder"),
    (["{class}", "--shard", "3/2"], "K must be between 1 and N"),
    (["{class}", "--exercise", "no-such-exercise"], "no-such-exercise"),
])
def test_unusable_arguments_exit_2(tmp_path: Path, arguments, message) -> None:
    folder = lesson_class(tmp_path / "class", 1)
    arguments = [a.replace("{class}", str(folder)) for a in arguments]
    result = CliRunner().invoke(main, ["batch", *arguments, "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_merge_command(tmp_path: Path) -> None:
    folder = lesson_class(tmp_path / "class", 3)
    runner = CliRunner()
    for k in (1, 2):
        result = runner.invoke(main, ["batch", str(folder), "-o", str(tmp_path / f"part{k}"),
                                      "--shard", f"{k}/2", "--jobs", "2"])
        assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["batch", "merge", str(tmp_path / "part1"),
                                  str(tmp_path / "part2"), "-o", str(tmp_path / "all")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("merged 2 gradebook(s): 3 grading(s) copied, 3 student(s)")
    assert (tmp_path / "all" / "grades.csv").read_text().count("\n") == 4
    result = runner.invoke(main, ["batch", "merge", str(tmp_path / "nothing-here"), "-o", "x"])
    assert result.exit_code == 2


def test_names_a_student_chose_reach_the_terminal_and_the_csv_escaped(tmp_path: Path) -> None:
    folder = lesson_class(tmp_path / "class", 1)
    copy(LESSON_CORRECT, folder / "a\x1b]0;pwned\x07.py")
    (folder / "x\x1b[2Jy.txt").write_text("hi")
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "x\\x1b[2Jy.txt" in result.output
    grades = (tmp_path / "out" / "grades.csv").read_text(encoding="utf-8")
    assert "\x1b" not in grades and "\x07" not in grades


def test_answers_files_without_an_exercise_are_told_to_name_it(tmp_path: Path) -> None:
    """Without --exercise only code is graded; an answers file is told how to get graded, and
    with --exercise it is."""
    folder = tmp_path / "class"
    folder.mkdir()
    answers = Path(__file__).resolve().parents[2] / "examples" / "hand-bpe" / "answers_correct.yaml"
    (folder / "alice.yaml").write_text(answers.read_text())
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert ("unusable: alice.yaml (student alice): not a Python file or notebook (.yaml): a "
            "folder of answers files is graded for one exercise; run grade batch again with "
            "--exercise ID") in result.output
    again = CliRunner().invoke(main, ["batch", str(folder), "-o", str(tmp_path / "out2"),
                                      "--exercise", "hand-bpe"])
    assert again.exit_code == 0, again.output
    assert again.output.startswith("1 submission(s) (file layout): 1 graded"), again.output
