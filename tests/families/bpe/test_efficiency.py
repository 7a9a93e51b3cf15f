"""The efficiency check: verdicts, messages free of durations, and real timings in the sandbox.

Most tests drive the efficiency check with a stand-in sandbox on a small corpus, so each
verdict path is exercised exactly. The timing tests grade real submissions in the real
sandbox with the shipped settings: the verdict is the product here, and the margins are
wide (a correct Counter-based trainer runs a few times the reference's time against an
allowed 30x; rescanning the texts every merge runs hundreds of times slower).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

from grader.families.bpe import efficiency
from grader.grading import timing
from grader.spec.hooks import CheckContext
from grader.grading.checks.efficiency import run as run_check
from grader.grading.scoring import check_points
from grader.sandbox import Sandbox
from grader.spec import load_exercise
from reference import TIE_BREAKS, train_bpe

ROOT = Path(__file__).resolve().parents[3]
SUBMISSIONS = ROOT / "tests" / "submissions"

EXERCISE = load_exercise("bpe-train-encode")
SMALL = EXERCISE.model_copy(update={"efficiency": EXERCISE.efficiency.model_copy(update={
    "distinct_words": 60, "total_words": 3000, "num_merges": 20, "max_ratio": 30.0,
    "max_seconds": 2.0})})
MILESTONE = next(m for m in EXERCISE.milestones if m.check("efficiency") is not None)
CHECK = MILESTONE.check("efficiency")
DURATION = re.compile(r"\d+\.\d+\s*s\b|\d+\s*ms\b")


@dataclass
class Outcome:
    ok: bool
    value: Any = None
    error: Optional[str] = None
    kind: str = "ok"
    seconds: float = 0.0
    cpu_seconds: Optional[float] = None


class StandInBox:
    """Answers train_bpe calls the way a sandbox would, with a chosen answer and CPU time."""

    def __init__(self, answer, cpu_seconds: Optional[float] = 0.001, kind: str = "ok",
                 error: Optional[str] = None) -> None:
        self.answer, self.cpu_seconds, self.kind, self.error = answer, cpu_seconds, kind, error
        self.calls: list[tuple[str, list, Optional[float]]] = []

    def call(self, name, args, timeout=None, *, echo_args=False):
        self.calls.append((name, args, timeout))
        if self.kind != "ok":
            return Outcome(False, error=self.error, kind=self.kind, seconds=timeout or 0.0)
        value = self.answer(*args) if callable(self.answer) else self.answer
        return Outcome(True, value, seconds=0.01, cpu_seconds=self.cpu_seconds)


def grade(box, exercise=SMALL):
    milestone = next(m for m in exercise.milestones if m.check("efficiency") is not None)
    [result] = run_efficiency(box, exercise, milestone, milestone.check("efficiency"))
    return result


def correct(corpus, num_merges):
    return [list(pair) for pair in train_bpe(corpus, num_merges)]


def test_a_fast_correct_trainer_passes_with_both_times_in_details():
    box = StandInBox(correct, cpu_seconds=0.0)
    result = grade(box)
    assert result.passed and result.score == result.max_score == MILESTONE.points
    assert result.details["kind"] == "timing"
    assert result.details["student_seconds"] == 0.0
    assert result.details["reference_seconds"] >= 0.0
    assert result.details["limit_ratio"] == 30.0 and result.details["limit_seconds"] == 2.0
    name, (corpus, merges), timeout = box.calls[0]
    assert name == "train_bpe" and merges == 20 and isinstance(corpus, list)
    assert sum(len(text.split()) for text in corpus) == 3000
    assert timeout == efficiency.wall_timeout(SMALL.efficiency) > SMALL.efficiency.max_seconds


def test_over_the_absolute_cap_fails_and_points_at_the_staff_idea():
    result = grade(StandInBox(correct, cpu_seconds=2.5))
    assert not result.passed and result.score == 0
    assert "longer than the 2 s cap" in result.message
    assert "What makes training fast: count pairs over a Counter of the unique words" in result.message
    assert "only the words that contain the merged pair" in result.message
    assert "index from each pair to the words" in result.message


def test_over_the_ratio_fails_even_under_the_cap(monkeypatch):
    monkeypatch.setattr(efficiency, "time_reference",
                        lambda corpus, exercise, runs=3: (0.01, train_bpe(corpus, exercise.efficiency.num_merges)))
    result = grade(StandInBox(correct, cpu_seconds=0.5))  # 50x the reference, under 2 s
    assert not result.passed
    assert "more than 30 times the reference's time" in result.message
    passing = grade(StandInBox(correct, cpu_seconds=0.29))  # 29x
    assert passing.passed


def test_one_merge_too_few_is_timed_but_a_run_that_stops_early_is_not():
    def off_by_one(corpus, num_merges):
        return correct(corpus, num_merges)[:-1]

    result = grade(StandInBox(off_by_one, cpu_seconds=0.0))
    assert result.passed, result.message
    assert "learned 19 BPE merges" in result.message

    def a_few(corpus, num_merges):
        return correct(corpus, 3)

    short = grade(StandInBox(a_few, cpu_seconds=0.0))
    assert not short.passed
    assert "returned 3 merges, but the corpus has pairs for 20" in short.message
    assert "a training run learns at least 18" in short.message


def counted_by(weigh):
    def trainer(corpus, num_merges):
        from reference.corpus import word_counts
        return [list(pair) for pair in train_bpe(
            {word: weigh(count) for word, count in word_counts(corpus).items()}, num_merges)]
    return trainer


@pytest.mark.parametrize("name, weigh", [("squared", lambda n: n * n), ("once", lambda n: 1)])
def test_pairs_counted_by_another_weight_are_timed(name, weigh):
    corpus = efficiency.corpus_for(SMALL)
    assert counted_by(weigh)(corpus, 20) != correct(corpus, 20)  # a wrong run, really
    result = grade(StandInBox(counted_by(weigh), cpu_seconds=0.0))
    assert result.passed, result.message
    assert "differ from the reference's from merge" in result.message


@pytest.mark.parametrize("mistake_id", ["no-end-of-word", "marker-glued", "marker-split",
                                        "merge-by-string-replace", "overlap-right-to-left"])
def test_a_catalogued_training_mistake_is_timed(mistake_id):
    from grader.families.bpe.catalogue import CATALOGUE

    [mistake] = [m for m in CATALOGUE if m.id == mistake_id]
    result = grade(StandInBox(lambda corpus, k: [list(p) for p in mistake.run(
        corpus, k, tie_break=SMALL.conventions.tie_break, end_of_word="</w>")], cpu_seconds=0.0))
    assert result.passed, result.message


@pytest.mark.parametrize("mistake_id", ["stale-counts", "merge-discarded"])
def test_a_mistake_that_skips_the_rewriting_is_not_timed(mistake_id):
    from grader.families.bpe.catalogue import CATALOGUE

    [mistake] = [m for m in CATALOGUE if m.id == mistake_id]
    result = grade(StandInBox(lambda corpus, k: [list(p) for p in mistake.run(
        corpus, k, tie_break=SMALL.conventions.tie_break, end_of_word="</w>")], cpu_seconds=0.0))
    assert not result.passed and "its speed is graded once its merges are a BPE run" in result.message


@pytest.mark.parametrize("rule", sorted(TIE_BREAKS))
def test_every_tie_rule_of_a_fast_trainer_passes(rule):
    def trainer(corpus, num_merges):
        return [list(pair) for pair in train_bpe(corpus, num_merges, tie_break=rule)]

    result = grade(StandInBox(trainer, cpu_seconds=0.0))
    assert result.passed, result.message
    same = train_bpe(efficiency.corpus_for(SMALL), 20, tie_break=rule) == train_bpe(
        efficiency.corpus_for(SMALL), 20)
    if not same:
        assert "differ from the reference's from merge" in result.message
        assert "'Train the merges' milestone grades which merges are right" in result.message


def test_some_tie_rule_departs_from_the_reference_on_the_small_corpus():
    corpus = efficiency.corpus_for(SMALL)
    differing = [rule for rule in TIE_BREAKS
                 if train_bpe(corpus, 20, tie_break=rule) != train_bpe(corpus, 20)]
    assert differing, "the tie-rule test above must see a run that is not the reference's"


def test_made_up_or_non_pair_answers_fail():
    made_up = grade(StandInBox(lambda corpus, k: [["q", "q"]] * 20, cpu_seconds=0.0))
    assert not made_up.passed and "merge 1 of train_bpe" in made_up.message
    repeated = grade(StandInBox(lambda corpus, k: correct(corpus, 1) * 20, cpu_seconds=0.0))
    assert not repeated.passed and "merge 2 of train_bpe" in repeated.message
    triples = grade(StandInBox(lambda corpus, k: [["a", "b", "c"]] * 20, cpu_seconds=0.0))
    assert not triples.passed


def test_merges_beyond_the_number_asked_are_left_to_the_train_milestone():
    one_too_many = grade(StandInBox(lambda corpus, k: correct(corpus, k + 1), cpu_seconds=0.0))
    assert one_too_many.passed, one_too_many.message
    assert "(and 1 more than asked for)" in one_too_many.message
    assert "'Train the merges' milestone grades which merges are right" in one_too_many.message


def test_pairs_that_merely_occur_in_the_corpus_are_not_a_bpe_run():
    def occurring(corpus, num_merges):
        # pairs of the corpus's words, the last ones met: real pairs, not picked by count
        words = [w for text in corpus for w in text.split()] if not isinstance(corpus, dict) \
            else list(corpus)
        seen = []
        for word in words:
            symbols = list(word) + ["</w>"]
            for pair in zip(symbols, symbols[1:]):
                if list(pair) not in seen:
                    seen.append(list(pair))
        return seen[-num_merges:]

    result = grade(StandInBox(occurring, cpu_seconds=0.0))
    assert not result.passed
    assert ("occurs nowhere" in result.message
            or "but the most frequent pair there occurs" in result.message), result.message


def test_a_table_learned_on_another_corpus_gets_no_speed_points():
    elsewhere = efficiency.corpus_for(SMALL, "another course's secret")

    def precomputed(corpus, num_merges):
        return [list(pair) for pair in train_bpe(elsewhere, num_merges)]

    assert train_bpe(elsewhere, 20) != train_bpe(efficiency.corpus_for(SMALL), 20)
    result = grade(StandInBox(precomputed, cpu_seconds=0.0))
    assert not result.passed
    assert "BPE merges a most frequent pair at every step" in result.message \
        or "occurs nowhere" in result.message, result.message


def test_the_corpus_depends_on_the_secret():
    assert efficiency.corpus_for(SMALL, "one") == efficiency.corpus_for(SMALL, "one")
    assert efficiency.corpus_for(SMALL, "one") != efficiency.corpus_for(SMALL, "two")
    assert efficiency.corpus_for(SMALL, "one") != efficiency.corpus_for(SMALL)


def test_a_timeout_fails_without_a_student_time():
    box = StandInBox(None, kind="timeout", error="timed out after 4 s")
    result = grade(box)
    assert not result.passed
    assert result.details["student_seconds"] is None
    # the stop and the cap in one message, each named for what it is
    assert "stopped after 4 s of wall-clock time. The cap is 2 s" in result.message
    assert "did not finish within" not in result.message
    assert "Counter of the unique words" in result.message


def test_running_out_of_memory_points_at_the_staff_idea_and_a_spent_budget_says_so():
    memory = grade(StandInBox(None, kind="memory", error="ran out of memory (limit 512 MiB)"))
    assert not memory.passed and "Counter of the unique words" in memory.message
    budget = grade(StandInBox(None, kind="budget", error="the submission's time budget ran out"))
    assert not budget.passed and "before the efficiency check could time train_bpe" in budget.message


def test_an_exception_or_a_bad_shape_fails_with_what_went_wrong():
    crashed = grade(StandInBox(None, kind="exception", error="raised KeyError: 'x'"))
    assert not crashed.passed
    assert "train_bpe raised KeyError: 'x'" in crashed.message
    assert "milestone pass first" in crashed.message
    shaped = grade(StandInBox(lambda corpus, k: "not a list", cpu_seconds=0.0))
    assert not shaped.passed
    assert "must return a list of (str, str) pairs" in shaped.message


def test_messages_never_carry_measured_durations():
    for cpu in (0.0, 0.123456, 1.987654, 3.21):
        result = grade(StandInBox(correct, cpu_seconds=cpu))
        assert not DURATION.search(result.message), result.message
        measured = {k for k in result.details if k.endswith("_seconds")}
        assert measured == {"student_seconds", "reference_seconds", "limit_seconds"}
        assert "ratio" not in result.details  # derived from durations, so left to renderers


def test_unusable_settings_fail_the_check_with_advice():
    broken = SMALL.model_copy(update={"efficiency": SMALL.efficiency.model_copy(
        update={"distinct_words": 100, "total_words": 50})})
    box = StandInBox(correct)
    result = grade(box, broken)
    assert not result.passed and box.calls == []
    assert "efficiency: block" in result.message


def test_reference_time_is_the_best_of_three(monkeypatch):
    times = iter([0.3, 0.1, 0.2])
    monkeypatch.setattr(timing, "cpu_time", lambda run: (next(times), run()))
    corpus = efficiency.corpus_for(SMALL)
    seconds, merges = efficiency.time_reference(corpus, SMALL)
    assert seconds == 0.1
    assert merges == train_bpe(corpus, SMALL.efficiency.num_merges)


# --------------------------------------------------------------------------- real timings


def grade_for_real(submission: Path):
    with Sandbox(submission) as box:
        assert box.load().ok
        [result] = run_efficiency(box, EXERCISE, MILESTONE, CHECK)
    return result


@pytest.fixture(scope="module")
def counter_result():
    return grade_for_real(SUBMISSIONS / "correct_counter.py")


def test_the_counter_based_trainer_passes_the_shipped_settings(counter_result):
    assert counter_result.passed, counter_result.message
    details = counter_result.details
    assert 0 < details["student_seconds"] <= details["limit_seconds"]
    assert details["student_seconds"] <= details["limit_ratio"] * details["reference_seconds"]


def test_rescanning_the_texts_every_merge_fails_the_shipped_settings():
    result = grade_for_real(SUBMISSIONS / "slow_rawtext.py")
    assert not result.passed
    assert "Counter of the unique words" in result.message


def test_two_gradings_differ_only_in_durations(counter_result):
    again = grade_for_real(SUBMISSIONS / "correct_counter.py")

    def without_durations(result):
        data = result.to_json()
        data.pop("seconds", None)
        data["details"] = {k: v for k, v in data["details"].items() if not k.endswith("_seconds")}
        return data

    assert without_durations(again) == without_durations(counter_result)


def run_efficiency(box, exercise, milestone, check):
    """The efficiency check of ``milestone`` on ``box``, worth its share of the milestone."""
    shares = check_points(milestone.points, [c.weight for c in milestone.checks])
    share = next(share for c, share in zip(milestone.checks, shares) if c == check)
    return run_check(CheckContext(None, box, exercise, milestone, check, share))


def test_a_run_near_the_bound_is_measured_again_interleaved_and_judged_on_its_best(monkeypatch):
    monkeypatch.setattr(efficiency, "time_reference", lambda corpus, exercise, runs=3: (
        0.01, train_bpe(corpus, exercise.efficiency.num_merges)))
    times = iter([0.40, 0.33, 0.34])  # 40x, then 33x and 34x: within the spread over 30x
    box = StandInBox(correct, cpu_seconds=None)
    box.answer = lambda corpus, k: correct(corpus, k)
    original = box.call

    def call(name, args, timeout=None, **kwargs):
        outcome = original(name, args, timeout, **kwargs)
        outcome.cpu_seconds = next(times)
        return outcome

    box.call = call
    result = grade(box)
    assert len(box.calls) == 3 and result.passed, result.message
    assert result.details["student_seconds"] == 0.33
    assert result.details["student_runs_seconds"] == [0.4, 0.33, 0.34]
    assert result.details["reference_runs_seconds"] == [0.01, 0.01, 0.01]
    assert "15% more allowed for the spread of measurement" in result.message
    from grader.report.details import _timing
    [ratio] = [text for label, text in _timing(result.details, True).fields if label == "Ratio"]
    assert ratio == "33.0x the reference (best of 3 interleaved rounds, measured at 33.0x to 40.0x)"


def test_a_run_far_from_the_bound_is_measured_once():
    box = StandInBox(correct, cpu_seconds=0.0)
    result = grade(box)
    assert len(box.calls) == 1 and "student_runs_seconds" not in result.details
