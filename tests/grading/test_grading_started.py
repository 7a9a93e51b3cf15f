"""A grading's wall-clock limit counts from the moment its caller says it began, not from when
``grade_submission`` is entered: for ``grade submit`` run as its own program, the process's
start; for the command called inside a longer-lived program, the call."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from grader.commands.cli import main
from grader.grading.engine import grade_submission

REPOSITORY = Path(__file__).resolve().parents[2]
CORRECT = REPOSITORY / "examples" / "bpe-train-encode" / "student_correct.py"
CHECKS_CORRECT = REPOSITORY / "examples" / "lesson97-checks" / "answers_correct.yaml"


def test_a_grading_that_began_past_its_limit_runs_no_check_and_says_so():
    long_ago = time.monotonic() - 10_000
    report = grade_submission(CORRECT, "bpe-train-encode", seed_secret="started",
                              helper=False, started=long_ago)
    assert report.score == 0
    assert report.milestones, "every milestone is still reported"
    checks = [check for milestone in report.milestones for check in milestone.checks]
    assert checks, "every check is still reported"
    for check in checks:
        assert check.score == 0 and not check.passed
        assert "time limit" in check.message, check.message


PROGRAM = '''
import sys, time
import grader.grading.wall_clock as wall_clock
from grader.commands.cli import main

wall_clock.process_started = lambda: time.monotonic() - 10_000  # a start-up that took hours
sys.exit(main())
'''


def test_grade_submit_run_as_its_program_counts_from_its_process_start(tmp_path):
    program = tmp_path / "grade"
    program.write_text(PROGRAM)
    done = subprocess.run([sys.executable, str(program), "submit", str(CORRECT), "--format",
                           "json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["score"] == 0
    assert all("time limit" in check["message"]
               for milestone in report["milestones"] for check in milestone["checks"])


def test_grade_submit_called_inside_a_longer_lived_program_counts_from_its_call(monkeypatch):
    import grader.grading.wall_clock as wall_clock

    monkeypatch.setattr(wall_clock, "process_started", lambda: time.monotonic() - 10_000)
    result = CliRunner().invoke(main, ["submit", str(CHECKS_CORRECT), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    messages = [check["message"] for milestone in report["milestones"]
                for check in milestone["checks"]]
    assert messages and not any("time limit" in message for message in messages), messages
    assert report["score"] > 0
