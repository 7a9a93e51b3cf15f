"""A function stuck in a loop costs a few call limits, not the time budget.

After a function times out on two inputs without ever returning, its other calls are skipped
with one message naming the smallest input tried; its efficiency check is not run and gives
no advice on speed; the other functions are graded in full. A function that hangs on some
inputs only costs one hung batch: its calls are made one by one after that.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from grader.families.bpe.efficiency import STAFF_HINT
from grader.families.byte_level.efficiency import HINT as BYTE_HINT
from grader.grading.engine import grade_submission
from grader.grading.timing import call_failure_message
from grader.sandbox.api import Sandbox
from grader.spec import load_exercise
from grader.spec.registry import depends_on

ROOT = Path(__file__).resolve().parents[2]
LOOP = "\n\ndef {name}(*args, **kwargs):\n    while True:\n        pass\n"
# exercise -> the function that trains
TRAINERS = {
    "bpe-train-encode": "train_bpe",
    "lesson97-bpe": "train_bpe",
    "bpe-steps": "train_bpe",
    "byte-bpe": "train_bpe",
    "wordpiece": "train_wordpiece",
    "unigram-lm": "em_step",
}
SPEED_ADVICE = (STAFF_HINT[:40], BYTE_HINT[:40])


def looping(tmp_path: Path, exercise: str, name: str) -> Path:
    source = (ROOT / "examples" / exercise / "student_correct.py").read_text() + LOOP.format(name=name)
    path = tmp_path / "student.py"
    path.write_text(source)
    return path


@pytest.mark.parametrize("exercise_id", sorted(TRAINERS))
def test_a_trainer_that_never_returns_is_graded_in_seconds(tmp_path, exercise_id):
    name = TRAINERS[exercise_id]
    exercise = load_exercise(exercise_id)
    role = next(role for role, function in exercise.roles().items() if function.name == name)
    told: list[str] = []
    started = time.perf_counter()
    report = grade_submission(looping(tmp_path, exercise_id, name), exercise,
                              seed_secret="loops",
                              on_check=lambda done, total, what: told.append(what))
    assert time.perf_counter() - started < 15
    assert any(f"time-outs: {name} 2 (rest skipped)" in what for what in told)
    specs = {milestone.id: milestone for milestone in exercise.milestones}
    for milestone in report.milestones:
        messages = [check.message for check in milestone.checks]
        assert not any(advice in message for message in messages for advice in SPEED_ADVICE)
        assert not any("did not finish within" in message for message in messages)
        function = specs[milestone.id].function
        if function == role:
            assert milestone.score == 0
            visible = [m for check, m in zip(milestone.checks, messages)
                       if check.visibility == "visible"]
            assert any(f"{name} did not return on any input it was run on, even {name}(" in m
                       and "the smallest of its public cases" in m
                       and m.endswith(("look for a loop that never ends",
                                       "Its speed is not timed until it returns."))
                       for m in visible)
            assert all("timed out after" in m or "look for a loop that never ends" in m
                       for m in visible)
        elif role in depends_on(exercise, function) and milestone.score < milestone.max_score:
            # its own code may call the trainer: the message says so only as a condition
            assert any(f"if it calls {name}, which did not return on any input either" in m
                       for m in messages)
        else:
            assert milestone.score == milestone.max_score, (milestone.id, messages)


def test_a_function_that_returns_on_some_inputs_is_not_skipped(tmp_path, monkeypatch):
    source = (ROOT / "examples" / "bpe-train-encode" / "student_correct.py").read_text()
    source += ("\n\n_train = train_bpe\n\n\ndef train_bpe(corpus, num_merges):\n"
               "    if num_merges == 3:\n        while True:\n            pass\n"
               "    return _train(corpus, num_merges)\n")
    path = tmp_path / "student.py"
    path.write_text(source)
    told: list[str] = []
    hung: list[str] = []  # batches that answered nothing, each a call limit spent for nothing
    original_many = Sandbox.call_many

    def call_many(self, function, arg_lists, **kwargs):
        outcomes = original_many(self, function, arg_lists, **kwargs)
        if not outcomes:
            hung.append(function)
        return outcomes
    monkeypatch.setattr(Sandbox, "call_many", call_many)
    report = grade_submission(path, "bpe-train-encode", seed_secret="loops",
                              on_check=lambda done, total, what: told.append(what))
    assert hung.count("train_bpe") == 1  # after one hung batch, its calls are made one by one
    messages = [check.message for milestone in report.milestones for check in milestone.checks]
    assert not any("did not return on any" in message for message in messages)
    assert any("train_bpe timed out after" in message for message in messages)
    assert any(re.search(r"time-outs: train_bpe \d+", what) for what in told)
    assert not any("rest skipped" in what for what in told)
    assert report.milestones[0].checks[0].passed  # its other inputs are still run


class _Timeout:
    ok, kind, error, value = False, "timeout", "timed out", None


class _Limits:
    max_ratio, max_seconds = 30.0, 2.0


def test_a_timed_out_efficiency_run_names_the_cap_beside_where_it_was_stopped():
    message = call_failure_message("train_bpe", _Timeout(), 4.0, "on a large corpus",
                                   hint="Be quick.", first="'train'", settings=_Limits())
    assert "did not finish within 4 s" not in message
    assert "stopped after 4 s of wall-clock time" in message and "The cap is 2 s" in message
