"""Generated inputs and case inputs are answered in batched sandbox calls (one per check and
role; public and hidden cases apart): the report is the one the same grading gives calling
once per input, printed output included, in far fewer round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.grading.engine import grade_submission
from grader.grading.student_calls import StudentCalls
from grader.sandbox.api import Sandbox
from support.reports import without_durations

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions"
CASES = {
    "correct": ROOT / "examples" / "bpe-train-encode" / "student_correct.py",
    "wrong": SUBMISSIONS / "wrong_tie_first_seen.py",
    "mutates": SUBMISSIONS / "wrong_mutates_corpus.py",
    "raises": SUBMISSIONS / "broken_raises.py",
    "noisy": SUBMISSIONS / "correct_noisy.py",
}
SECRET = "batched-calls-test-secret"


def counted(monkeypatch) -> dict[str, int]:
    trips = {"call": 0, "call_many": 0}
    for name in trips:
        original = getattr(Sandbox, name)

        def wrapper(self, *args, _original=original, _name=name, **kwargs):
            trips[_name] += 1
            return _original(self, *args, **kwargs)
        monkeypatch.setattr(Sandbox, name, wrapper)
    return trips


@pytest.mark.parametrize("case", sorted(CASES))
def test_batching_changes_nothing_in_the_report(monkeypatch, case):
    trips = counted(monkeypatch)
    batched = grade_submission(CASES[case], seed_secret=SECRET, helper=False).to_json()
    batched_trips = dict(trips)
    monkeypatch.setattr(StudentCalls, "prefetch", lambda self, wanted: None)
    monkeypatch.setattr(StudentCalls, "prefetch_calls", lambda self, wanted: None)
    trips.update(call=0, call_many=0)
    alone = grade_submission(CASES[case], seed_secret=SECRET, helper=False).to_json()
    assert without_durations(batched) == without_durations(alone)
    assert trips["call_many"] == 0
    assert batched_trips["call_many"] >= 1
    if case in ("correct", "raises"):  # an exception ends no batch: its inputs stay batched
        assert batched_trips["call"] + batched_trips["call_many"] < trips["call"] / 2, (
            batched_trips, trips)


def test_public_and_hidden_cases_are_batched_apart(monkeypatch):
    """The cases check makes each case's call ahead: one batch of the public cases, kept as
    visible output, and one of the hidden ones, per function."""
    batches: list[tuple[str, bool]] = []
    ledgers: list = []
    original_many, original_init = Sandbox.call_many, StudentCalls.__init__

    def noted(self, function, arg_lists, **kwargs):
        batches.append((function, ledgers[-1]._visible_depth > 0))
        return original_many(self, function, arg_lists, **kwargs)

    def kept(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        ledgers.append(self.output)
    monkeypatch.setattr(Sandbox, "call_many", noted)
    monkeypatch.setattr(StudentCalls, "__init__", kept)
    report = grade_submission(CASES["noisy"], seed_secret=SECRET, helper=False)
    assert report.score == report.max_score
    for function in ("train_bpe", "encode"):
        assert (function, True) in batches and (function, False) in batches, batches


def test_a_training_loop_on_the_students_own_helpers_is_answered_in_batched_rounds(monkeypatch):
    """A trainer judged on the merges the reference's loop learns with the student's own
    get_stats and merge_vocab asks for each helper call once the one before is answered: those
    calls are made in batched rounds, one per step, with the report the same as calling once
    per input."""
    steps = ROOT / "examples" / "bpe-steps" / "student_wrong.py"
    alone_calls: list[str] = []
    original = Sandbox.call

    def noted(self, function, *args, **kwargs):
        alone_calls.append(function)
        return original(self, function, *args, **kwargs)
    monkeypatch.setattr(Sandbox, "call", noted)
    batched = grade_submission(steps, seed_secret=SECRET, helper=False).to_json()
    helpers_alone = sum(function in ("get_stats", "merge_vocab") for function in alone_calls)
    monkeypatch.setattr(StudentCalls, "prefetch", lambda self, wanted: None)
    monkeypatch.setattr(StudentCalls, "prefetch_calls", lambda self, wanted: None)
    alone_calls.clear()
    alone = grade_submission(steps, seed_secret=SECRET, helper=False).to_json()
    assert without_durations(batched) == without_durations(alone)
    every_helper_call = sum(function in ("get_stats", "merge_vocab") for function in alone_calls)
    assert every_helper_call > 100  # the loop was run on many inputs
    assert helpers_alone < every_helper_call / 10, (helpers_alone, every_helper_call)


def test_the_cases_checks_training_loop_on_the_students_own_helpers_is_batched(
        monkeypatch, tmp_path):
    """The cases check judges a wrong trainer on the merges the reference's loop learns with
    the student's own helpers too: those helper calls are made ahead in batched rounds, one
    per step, rather than one by one as each case is judged (that the answers, and so the
    report, are the same either way is asserted above)."""
    from grader.grading.audit import write_student
    from grader.grading.checks import cases
    from grader.spec import load_exercise

    student = write_student(load_exercise("bpe-steps"), tmp_path, "ties-lexicographic")
    phase, alone, batched = [""], [], []
    helpers = ("get_stats", "merge_vocab")
    original_call, original_many = Sandbox.call, Sandbox.call_many

    def call(self, function, *args, **kwargs):
        if phase[0] == "judging" and function in helpers:
            alone.append(function)
        return original_call(self, function, *args, **kwargs)

    def call_many(self, function, arg_lists, **kwargs):
        if phase[0] == "ahead" and function in helpers:
            batched.extend([function] * len(arg_lists))
        return original_many(self, function, arg_lists, **kwargs)

    def in_phase(name, original):
        def run(context, *args, **kwargs):
            phase[0] = name if context.milestone.function == "train" else ""
            try:
                return original(context, *args, **kwargs)
            finally:
                phase[0] = ""
        return run
    monkeypatch.setattr(Sandbox, "call", call)
    monkeypatch.setattr(Sandbox, "call_many", call_many)
    monkeypatch.setattr(cases, "grade_item", in_phase("judging", cases.grade_item))
    monkeypatch.setattr(cases, "made_ahead", in_phase("ahead", cases.made_ahead))
    report = grade_submission(student, seed_secret=SECRET, helper=False)
    train = next(milestone for milestone in report.milestones if milestone.id == "train")
    assert not train.passed  # a wrong trainer, judged on its own helpers too
    assert len(batched) > 20  # the loop's steps on the train cases, made ahead
    assert len(alone) < len(batched) / 4, (alone, len(batched))
