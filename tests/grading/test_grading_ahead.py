"""Work done ahead of the checks (``grader.grading.ahead``): same report, with or without it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from grader.families.bpe import generated as bpe_generated
from grader.grading import ahead, prepared, search
from grader.grading import search as generated_inputs
from grader.grading.engine import grade_submission
from grader.grading.secrets import inputs_seed
from grader.spec import load_exercise
from support.reports import without_durations

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ROOT / "examples" / "bpe-train-encode" / "student_correct.py"
WRONG = ROOT / "tests" / "submissions" / "wrong_tie_first_seen.py"
SECRET = "ahead-test-secret"


@pytest.fixture(autouse=True)
def nothing_cached_on_disk(monkeypatch):
    """The helper's own work is under test: the cache of prepared work is off."""
    monkeypatch.setenv("GRADE_CACHE_DIR", "off")
    monkeypatch.setattr(ahead, "_LOADED", {})


def fresh_caches(monkeypatch) -> None:
    """As in a new process: nothing generated yet."""
    monkeypatch.setattr(search, "_GENERATED", {})
    monkeypatch.setattr(bpe_generated, "_MERGES", {})


@pytest.mark.parametrize("submission", [CORRECT, WRONG], ids=["correct", "wrong"])
def test_a_helper_changes_nothing_in_the_report(monkeypatch, submission):
    fresh_caches(monkeypatch)
    alone = grade_submission(submission, seed_secret=SECRET, helper=False).to_json()
    fresh_caches(monkeypatch)
    monkeypatch.setattr(ahead, "free_cores", lambda: 2)
    helped = grade_submission(submission, seed_secret=SECRET, helper=True).to_json()
    assert without_durations(helped) == without_durations(alone)
    assert ahead._HELPER[0] is None, "the helper outlived its grading"


def test_the_work_follows_the_milestones():
    exercise = load_exercise("bpe-train-encode")
    keys = [key for key, _ in prepared.work(exercise, SECRET, time_reference=True)]
    assert [key[:2] for key in keys] == [("generated", "train"), ("generated", "encode"),
                                          ("corpus", "bpe-train-encode"),
                                          ("timing", "bpe-train-encode")]
    keys = [key for key, _ in prepared.work(exercise, SECRET, time_reference=False)]
    assert keys[-1][0] == "corpus", "a batch times the reference in each grading, not ahead"


def test_the_reference_is_timed_only_once_the_check_says_go(monkeypatch):
    exercise = load_exercise("bpe-train-encode")
    monkeypatch.setattr(ahead, "free_cores", lambda: 2)
    helper = prepared.start_helper(exercise, SECRET)
    try:
        assert helper is not None
        timing = ahead.timing_key(exercise, SECRET)
        assert ahead.collect(ahead.corpus_key(exercise, SECRET)) is not None
        assert not helper.reader.poll(1.0), "the helper timed the reference before the go"
        assert ahead.go(timing)
        seconds, merges = ahead.collect(timing)
        assert seconds > 0 and len(merges) == exercise.efficiency.num_merges
    finally:
        ahead.stop_helper(helper)


def test_a_helper_that_fails_leaves_the_checks_to_compute_it(monkeypatch):
    fresh_caches(monkeypatch)
    exercise = load_exercise("bpe-train-encode")

    def broken(*args, **kwargs):
        raise RuntimeError("helper broke")

    monkeypatch.setattr(generated_inputs, "generated_ahead", broken)
    monkeypatch.setattr(ahead, "free_cores", lambda: 2)
    helper = prepared.start_helper(exercise, SECRET)
    try:
        assert helper is not None
        assert ahead.collect(helper_key(exercise, "train")) is None
    finally:
        ahead.stop_helper(helper)
    monkeypatch.undo()
    seed = inputs_seed(SECRET, exercise.id)
    assert len(generated_inputs.generated_examples(exercise, "train",
                                                   exercise.properties.examples, seed)) > 0


def helper_key(exercise, role):
    return ahead.generated_key(role, inputs_seed(SECRET, exercise.id))


def test_no_helper_without_a_second_core(monkeypatch):
    monkeypatch.setattr(ahead, "free_cores", lambda: 1)
    assert prepared.start_helper(load_exercise("bpe-train-encode"), SECRET) is None


def test_a_passing_grading_with_a_helper_does_not_import_hypothesis():
    if ahead.free_cores() < 2:
        pytest.skip("no second core: the grading generates its inputs itself")
    code = ("import sys; from grader.grading.engine import grade_submission; "
            f"report = grade_submission({str(CORRECT)!r}, seed_secret={SECRET!r}); "
            "print(report.score == report.max_score, 'hypothesis' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.stdout.split() == ["True", "False"], done.stderr[-2000:]


@pytest.mark.parametrize("count", [4, 8, 60])
@pytest.mark.parametrize("role", ["train", "encode"])
def test_inputs_are_settled_in_the_order_the_checks_judge_them(monkeypatch, role, count):
    fresh_caches(monkeypatch)
    exercise = load_exercise("bpe-train-encode")
    settled = []
    examples = generated_inputs.generated_examples(exercise, role, count, seed=7,
                                                   on_settled=settled.append)
    assert settled == examples
    assert len(examples) == count


def test_an_input_is_settled_only_once_its_place_is_certain():
    reported = []
    settled = generated_inputs._Settled(["t1", "t2"], count=9, report=reported.append)
    settled.update(["g1", "g2"], finished=False)
    assert reported == ["g1", "g2"], "before TARGETED_AT, a generated input's place is certain"
    generated = [f"g{i}" for i in range(1, generated_inputs.TARGETED_AT + 1)]
    settled.update(generated, finished=False)
    assert reported == generated + ["t1", "t2"]
    assert settled.update(generated + ["g6", "g7", "g8"], finished=True) == reported
    assert reported == generated + ["t1", "t2", "g6", "g7"]


def test_short_generation_places_the_targeted_inputs_at_the_end():
    reported = []
    settled = generated_inputs._Settled(["t1"], count=9, report=reported.append)
    settled.update(["g1", "g2"], finished=False)
    assert settled.update(["g1", "g2"], finished=True) == ["g1", "g2", "t1"] == reported


def test_a_helper_streams_each_input_before_the_whole_list(monkeypatch):
    fresh_caches(monkeypatch)
    exercise = load_exercise("bpe-train-encode")
    monkeypatch.setattr(ahead, "free_cores", lambda: 2)
    helper = prepared.start_helper(exercise, SECRET)
    try:
        assert helper is not None
        key = helper_key(exercise, "train")
        parts = list(ahead.arriving(key))
        _, examples, merges = ahead.collect(key)
    finally:
        ahead.stop_helper(helper)
    assert [example for example, _ in parts] == list(examples)
    assert {k: v for _, part in parts for k, v in part.items()} == merges


def test_checks_get_every_input_when_the_helper_fails_half_way(monkeypatch):
    fresh_caches(monkeypatch)
    exercise = load_exercise("bpe-train-encode")
    seed = inputs_seed(SECRET, exercise.id)
    count = exercise.properties.examples
    real = generated_inputs.generated_ahead

    def fails_after_three(exercise, role, seed, progress=None):
        sent = []

        def three_then_fail(part):
            if len(sent) == 3:
                raise RuntimeError("helper broke half way")
            sent.append(part)
            progress(part)

        return real(exercise, role, seed, three_then_fail)

    monkeypatch.setattr(generated_inputs, "generated_ahead", fails_after_three)
    monkeypatch.setattr(ahead, "free_cores", lambda: 2)
    helper = prepared.start_helper(exercise, SECRET)
    try:
        assert helper is not None
        arrived = list(generated_inputs.arriving_examples(exercise, "train", count, seed))
        assert helper.received == {} and helper_key(exercise, "train") not in helper.pending
    finally:
        ahead.stop_helper(helper)
    fresh_caches(monkeypatch)
    assert arrived == generated_inputs.generated_examples(exercise, "train", count, seed)


def test_judging_stops_at_the_inputs_asked_for(monkeypatch):
    fresh_caches(monkeypatch)
    exercise = load_exercise("bpe-train-encode")
    seed = inputs_seed(SECRET, exercise.id)
    count = exercise.properties.examples
    monkeypatch.setattr(ahead, "free_cores", lambda: 2)
    helper = prepared.start_helper(exercise, SECRET)
    try:
        first = list(generated_inputs.arriving_examples(exercise, "train", count, seed, judged=7))
        everything = generated_inputs.generated_examples(exercise, "train", count, seed)
    finally:
        ahead.stop_helper(helper)
    assert first == everything[:7]
