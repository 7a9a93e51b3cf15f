"""No traceback reaches a user from any command on any input: every command, handed a missing
path, a folder, a named pipe, an empty file, a binary file or a huge one where it wants a file
(or a folder), ends with one clear message and an exit code of the README's table."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.spec.loading import ENV_VAR, use_exercise_dirs

REPO = Path(__file__).resolve().parents[2]
STUDENT = REPO / "tests" / "submissions" / "correct_counter.py"
GRADE = Path(sys.executable).parent / "grade"
README_CODES = {0, 1, 2, 3}

INPUTS = ("missing", "folder", "fifo", "empty", "binary", "huge")

# Each command with BAD where the bad input goes.
COMMANDS = {
    "submit": ["submit", "BAD"],
    "submit-exercise": ["submit", "BAD", "--exercise", "bpe-train-encode", "--format", "json"],
    "submit-spec": ["submit", str(STUDENT), "--exercise", "BAD"],
    "stub": ["stub", "BAD"],
    "show": ["show", "BAD"],
    "check": ["check", "BAD"],
    "audit": ["audit", "BAD"],
    "new-from": ["new", "x", "--from", "BAD"],
    "bundle": ["bundle", "classroom", "BAD", "--install", "bpe-autograder", "-o", "OUT"],
    "batch": ["batch", "BAD", "-o", "OUT"],
    "batch-merge": ["batch", "merge", "BAD", "-o", "OUT"],
    "similarity": ["similarity", "BAD", "-o", "OUT", "--exercise", "bpe-train-encode"],
    "trace": ["trace", "--file", "BAD", "--merges", "2"],
    "list": ["list", "--exercises-dir", "BAD"],
}

# What is not an input error: a file handed to submit with its exercise named is graded (0,
# with the reason), a folder where a folder is wanted is used.
GRADED = {("submit-exercise", "empty"), ("submit-exercise", "binary"),
          ("submit-exercise", "huge"), ("batch", "folder"), ("similarity", "folder"),
          ("list", "folder")}


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bad")
    paths = {name: folder / name for name in INPUTS}
    paths["folder"].mkdir()
    os.mkfifo(paths["fifo"])
    paths["empty"].write_bytes(b"")
    paths["binary"].write_bytes(bytes(range(256)) * 16)
    with paths["huge"].open("wb") as handle:  # 5 MB, past every limit on what is read
        handle.write(b"x = 1\n" * (5_000_000 // 6 + 1))
    return paths


@pytest.fixture(autouse=True)
def no_course_folders(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    use_exercise_dirs([])
    yield
    use_exercise_dirs([])


def argv(command: str, bad: Path, out: Path) -> list[str]:
    return [str(bad) if arg == "BAD" else str(out) if arg == "OUT" else arg
            for arg in COMMANDS[command]]


@pytest.mark.parametrize("what", INPUTS)
@pytest.mark.parametrize("command", COMMANDS)
def test_no_traceback_and_a_readme_exit_code(command, what, bad_inputs, tmp_path):
    args = argv(command, bad_inputs[what], tmp_path / "out")
    if what == "fifo":  # a real process: a command that opened the pipe would wait forever
        result = subprocess.run([str(GRADE), *args], capture_output=True, text=True, timeout=60,
                                cwd=tmp_path)
        output, code = result.stdout + result.stderr, result.returncode
    else:
        result = CliRunner().invoke(main, args, prog_name="grade")
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            result.exception
        output, code = result.output, result.exit_code
    assert "Traceback" not in output
    assert code in README_CODES
    if (command, what) in GRADED:
        assert code == 0, output
    else:
        assert code == 2, output
        assert output.strip(), "an input error says what is wrong"
