"""A grading's wall time, the command's own start-up and the grader's own work included, stays
within the submission's budget, the stated margin for the grader's work, and the check under
way when that limit is reached."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from grader.grading.wall_clock import GradingClock, margin_seconds
from grader.sandbox import Sandbox, SandboxLimits

REPOSITORY = Path(__file__).resolve().parents[2]
GRADE = str(Path(sys.executable).with_name("grade"))
FINISHING_SECONDS = 5.0  # the check under way at the limit, closing the sandbox, the report
SLOW = '''
import time


def train_bpe(input_path, vocab_size, special_tokens):
    time.sleep(0.9)
    return {}, []


def encode(text, vocab, merges, special_tokens):
    time.sleep(0.9)
    return []


def decode(ids, vocab):
    time.sleep(0.9)
    return ""


def encode_iterable(lines, vocab, merges, special_tokens):
    time.sleep(0.9)
    yield 0
'''


def test_the_margin_is_a_quarter_of_the_budget_and_at_least_five_seconds():
    assert margin_seconds(120) == 30 and margin_seconds(2) == 5
    clock = GradingClock(2, started=time.monotonic() - 8)
    assert "time limit of 7 s" in clock.overrun() and "2 s" in clock.overrun()
    assert GradingClock(2).overrun() is None


def test_a_sandbox_past_the_gradings_deadline_runs_nothing_and_says_whose_limit(tmp_path):
    path = tmp_path / "student.py"
    path.write_text("def f():\n    return 1\n")
    with Sandbox(path, limits=SandboxLimits(total_seconds=30)) as box:
        assert box.call("f").value == 1
        box.deadline = time.monotonic() - 1
        outcome = box.call("f")
    assert outcome.kind == "budget" and outcome.error == "the grading reached its time limit"


def test_grade_submit_ends_within_the_budget_the_margin_and_one_check(tmp_path):
    # byte-bpe with a 2 s budget: the grader's own work (generated inputs, timing the
    # reference) is several times the budget, and every student call takes most of its limit.
    spec = yaml.safe_load((REPOSITORY / "exercises" / "byte-bpe.yaml").read_text())
    spec["id"] = "byte-small-budget"
    spec["limits"] = {"call_seconds": 1.0, "memory_mib": 512, "total_seconds": 2}
    (tmp_path / "byte-small-budget.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    (tmp_path / "student.py").write_text(SLOW)
    started = time.monotonic()
    done = subprocess.run([GRADE, "submit", "--exercise", str(tmp_path / "byte-small-budget.yaml"),
                           "--format", "json", "-q", str(tmp_path / "student.py")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    wall = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    limit = 2 + margin_seconds(2)
    assert wall <= limit + FINISHING_SECONDS, wall
    late = [check["message"] for milestone in json.loads(done.stdout)["milestones"]
            for check in milestone["checks"] if check["message"].startswith("not graded: this")]
    assert all("time limit of 7 s (the submission's budget of 2 s and 5 s" in message
               for message in late)
