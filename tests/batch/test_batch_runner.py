"""The parallel runner: a grading process that dies or hangs costs only its own submission."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

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
