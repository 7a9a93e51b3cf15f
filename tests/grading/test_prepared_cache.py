"""The cache of prepared work (``grader.grading.prepared_cache``): later gradings load what the
first computed, the reports are the same, and the file keeps the grader's secrets."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from grader.families.bpe import generated as bpe_generated
from grader.grading import ahead, prepared, prepared_cache, search
from grader.grading.engine import grade_submission
from grader.spec import load_exercise
from support.reports import without_durations

ROOT = Path(__file__).resolve().parents[2]
CORRECT = ROOT / "examples" / "bpe-train-encode" / "student_correct.py"
WRONG = ROOT / "tests" / "submissions" / "wrong_tie_first_seen.py"
SECRET = "prepared-cache-test-secret"


@pytest.fixture
def cache(monkeypatch, tmp_path) -> Path:
    """An empty cache folder, and nothing generated in this process yet."""
    folder = tmp_path / "cache"
    monkeypatch.setenv(prepared_cache.ENVIRONMENT_VARIABLE, str(folder))
    monkeypatch.setattr(search, "_GENERATED", {})
    monkeypatch.setattr(bpe_generated, "_MERGES", {})
    monkeypatch.setattr(ahead, "_LOADED", {})
    return folder


def forget_in_memory(monkeypatch) -> None:
    """As in a new process: only the disk remembers."""
    monkeypatch.setattr(search, "_GENERATED", {})
    monkeypatch.setattr(bpe_generated, "_MERGES", {})
    monkeypatch.setattr(ahead, "_LOADED", {})


def no_hypothesis(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("inputs were generated although the cache holds them")
    monkeypatch.setattr(search, "hypothesis", type("NoHypothesis", (), {"find": staticmethod(refuse)}))


@pytest.mark.parametrize("submission", [CORRECT, WRONG], ids=["correct", "wrong"])
def test_a_cached_grading_gives_the_same_report(monkeypatch, cache, submission):
    exercise = load_exercise("bpe-train-encode")
    monkeypatch.setenv(prepared_cache.ENVIRONMENT_VARIABLE, "off")
    computed = grade_submission(submission, seed_secret=SECRET, helper=False).to_json()
    monkeypatch.setenv(prepared_cache.ENVIRONMENT_VARIABLE, str(cache))
    forget_in_memory(monkeypatch)
    prepared.prepare(exercise, SECRET)  # what grade batch and grade audit do first
    assert list(cache.glob("*.pickle")), "nothing was stored"
    forget_in_memory(monkeypatch)
    if submission == CORRECT:
        no_hypothesis(monkeypatch)  # a failure shrinks with Hypothesis: only the correct one
    loaded = grade_submission(submission, seed_secret=SECRET, helper=False).to_json()
    assert without_durations(loaded) == without_durations(computed)


def test_a_helper_stores_the_work_and_the_next_grading_skips_it(monkeypatch, cache):
    monkeypatch.setattr(ahead, "free_cores", lambda: 2)
    first = grade_submission(CORRECT, seed_secret=SECRET, helper=True).to_json()
    assert len(list(cache.glob("*.pickle"))) == 1
    forget_in_memory(monkeypatch)
    exercise = load_exercise("bpe-train-encode")
    pieces = prepared._stored_or_kept(exercise, SECRET,
                                      prepared.work(exercise, SECRET, time_reference=True))
    assert [key[0] for key, _ in pieces] == ["timing"], "only the timing is left to the helper"
    forget_in_memory(monkeypatch)
    no_hypothesis(monkeypatch)
    second = grade_submission(CORRECT, seed_secret=SECRET, helper=True).to_json()
    assert without_durations(second) == without_durations(first)


def test_the_file_is_the_graders_alone_and_does_not_hold_the_secret(cache):
    exercise = load_exercise("bpe-train-encode")
    prepared.prepare(exercise, SECRET)
    [stored] = cache.glob("*.pickle")
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    assert SECRET not in stored.name
    assert SECRET.encode() not in stored.read_bytes()


def test_each_secret_and_each_spec_has_its_own_file(cache):
    exercise = load_exercise("bpe-train-encode")
    names = {prepared_cache.file_for(exercise, SECRET), prepared_cache.file_for(exercise, "other"),
             prepared_cache.file_for(exercise, None)}
    changed = exercise.model_copy(update={"title": exercise.title + " (changed)"})
    names.add(prepared_cache.file_for(changed, SECRET))
    assert len(names) == 4


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05K\x01."],
                         ids=["empty", "garbage", "not-a-dict"])
def test_an_unreadable_file_only_costs_the_work_again(monkeypatch, cache, content):
    exercise = load_exercise("bpe-train-encode")
    path = prepared_cache.file_for(exercise, SECRET)
    path.parent.mkdir(parents=True, exist_ok=True)  # loading the spec may have made it
    path.write_bytes(content)
    assert prepared_cache.load(exercise, SECRET) == {}
    prepared.prepare(exercise, SECRET)
    assert prepared_cache.load(exercise, SECRET), "the bad file was not replaced"


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to hand the file to another user")
def test_a_file_someone_else_wrote_is_not_trusted(cache):
    exercise = load_exercise("bpe-train-encode")
    prepared.prepare(exercise, SECRET)
    path = prepared_cache.file_for(exercise, SECRET)
    os.chown(path, 65534, 65534)
    assert prepared_cache.load(exercise, SECRET) == {}


def test_off_stores_nothing(monkeypatch, cache):
    monkeypatch.setenv(prepared_cache.ENVIRONMENT_VARIABLE, "off")
    prepared.prepare(load_exercise("bpe-train-encode"), SECRET)
    assert not cache.exists()


def test_a_folder_that_cannot_be_written_costs_nothing_but_time(monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv(prepared_cache.ENVIRONMENT_VARIABLE, str(blocker / "cache"))
    forget_in_memory(monkeypatch)
    report = grade_submission(CORRECT, seed_secret=SECRET, helper=False)
    assert report.score == report.max_score
    prepared.prepare(load_exercise("bpe-train-encode"), SECRET)  # must not raise
