"""The parallel runner: a grading process that dies or hangs costs only its own submission, a
result of any size is recorded, and no grading process outlives a killed batch."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import grader.grading.engine as engine
from grader.batch import runner
from grader.batch.runner import Task, run_tasks

from batch_helpers import quick_exercise


def fake_grading(path, exercise, **options):
    name = Path(path).name
    if name == "dies.py":
        os.kill(os.getpid(), signal.SIGKILL)
    if name == "hangs.py":
        time.sleep(60)
    if name == "raises.py":
        raise RuntimeError("the grader broke")
    return engine.GradeReport(exercise=exercise.id, title=f"graded {name}")


def test_deaths_hangs_and_faults_stay_with_their_submission(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(engine, "grade_submission", fake_grading)
    monkeypatch.setattr(runner, "WATCHDOG_MARGIN_SECONDS", 1.0)
    exercise = quick_exercise(total_seconds=0.5)  # watchdog: 2 x 0.5 + 1 = 2 s
    names = ["ok1.py", "dies.py", "hangs.py", "raises.py", "ok2.py"]
    tasks = [Task(key, tmp_path / name, exercise) for key, name in enumerate(names)]
    outcomes = {}
    started = time.monotonic()
    interrupted = run_tasks(tasks, 2, lambda outcome: outcomes.setdefault(outcome.key, outcome))
    assert not interrupted and time.monotonic() - started < 20
    assert sorted(outcomes) == list(range(5))
    assert outcomes[0].report["title"] == "graded ok1.py" and outcomes[0].outcome == "graded"
    assert outcomes[4].report["title"] == "graded ok2.py"
    assert outcomes[1].outcome == "grader-error"
    assert outcomes[1].error == "the grading process was killed by SIGKILL before reporting"
    assert outcomes[2].error == "grading did not finish within 2 s and was stopped"
    assert outcomes[3].error.startswith("RuntimeError: the grader broke at test_batch_runner.py:")


PIPE_BUFFER = 65_536  # what a Linux pipe holds before a writer blocks


def large_report(exercise_id: str, name: str) -> engine.GradeReport:
    """A report whose stored JSON is several pipe buffers long (40 checks of 8,000 characters)."""
    from grader.result import CheckResult, MilestoneResult

    checks = [CheckResult(id=f"c{index}", title=name, passed=False, score=0.0, max_score=1.0,
                          message=f"{index:04d}" * 2_000) for index in range(40)]
    return engine.GradeReport(exercise=exercise_id, title=f"graded {name}",
                              milestones=[MilestoneResult("m", "m", checks, 40.0)])


def test_results_larger_than_a_pipe_holds_are_all_recorded(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(engine, "grade_submission",
                        lambda path, exercise, **options: large_report(exercise.id, path.name))
    monkeypatch.setattr(runner, "warm_up", lambda *args, **kwargs: None)
    exercise = quick_exercise(total_seconds=5.0)
    tasks = [Task(key, tmp_path / f"s{key}.py", exercise) for key in range(4)]
    outcomes = {}
    started = time.monotonic()
    assert not run_tasks(tasks, 2, lambda outcome: outcomes.setdefault(outcome.key, outcome))
    assert time.monotonic() - started < 30
    assert sorted(outcomes) == [0, 1, 2, 3]
    for key, outcome in outcomes.items():
        assert outcome.outcome == "graded", outcome.error
        assert len(outcome.report_json) > 4 * PIPE_BUFFER
        assert outcome.report["title"] == f"graded s{key}.py"
        assert outcome.report["milestones"][0]["checks"][39]["message"] == "0039" * 2_000


KILLED_BATCH = """
import os, signal, sys, time
from pathlib import Path

import grader.grading.engine as engine
from grader.batch import runner
from grader.spec import load_exercise
from test_batch_runner import large_report

marker, when = Path(sys.argv[1]), sys.argv[2]

def grading(path, exercise, **options):
    report = large_report(exercise.id, path.name)
    marker.write_text(str(os.getpid()))
    if when == "while-grading":
        time.sleep(120)
    return report  # next, the child sends its result

def die_before_reading(task):
    while not marker.exists():
        time.sleep(0.01)
    time.sleep(0.3)  # the child is sending by now, with nobody reading, or still grading
    os.kill(os.getpid(), signal.SIGKILL)

engine.grade_submission = grading
runner.warm_up = lambda *args, **kwargs: None
task = runner.Task(0, Path("st.py"), load_exercise("bpe-train-encode"))
runner.run_tasks([task], 1, print, on_start=die_before_reading)
"""


@pytest.mark.parametrize("when", ["while-sending", "while-grading"])
def test_a_killed_batch_leaves_no_grading_child_behind(tmp_path, when) -> None:
    marker = tmp_path / "child.pid"
    tests = Path(__file__).resolve().parent
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tests), str(tests.parent)] + os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    batch = subprocess.Popen([sys.executable, "-c", KILLED_BATCH, str(marker), when],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=environment, start_new_session=True)
    try:
        # The output pipes reach end of file only when every process holding them (the batch
        # and its forked grading) has ended.
        stdout, stderr = batch.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(batch.pid, signal.SIGKILL)
        batch.communicate()
        raise AssertionError("the grading child was still alive 20 s after its batch was killed")
    assert batch.returncode == -signal.SIGKILL, stderr
    child = int(marker.read_text())
    deadline = time.monotonic() + 10
    while alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(child)
    assert "Traceback" not in stderr, stderr


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False
