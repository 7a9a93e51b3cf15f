"""A log-likelihood that is the best path shifted by a constant is said to be so, with the
constant computed from the run, and only then: the signal is a fact about the answers."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from grader.families.api import Observation
from grader.families.unigram.signals import SIGNAL_ID, likelihood_signals, shifted_best_path
from grader.grading.audit import exercise_without_efficiency
from grader.grading.engine import grade_submission
from grader.spec import load_exercise
from reference.unigram import log_likelihood, viterbi

EXERCISE = load_exercise("unigram-lm")
SUBMISSION = Path(__file__).parents[2] / "submissions" / "unigram_likelihood_best_path_eos.py"
INPUTS = [
    ("ab", {"\u2581": -1.0, "a": -1.0, "b": -1.0, "ab": -1.0}),
    ("a b", {"\u2581": -1.0, "a": -1.5, "b": -2.0, "\u2581a": -2.0}),
    ("ba", {"\u2581": -0.5, "a": -0.5, "b": -0.5, "ba": -0.7}),
]


def _observations(answer):
    return [Observation({"text": text, "pieces": pieces}, actual=answer(text, pieces))
            for text, pieces in INPUTS]


def test_the_best_path_minus_one_constant_is_said_with_that_constant():
    observations = _observations(lambda text, pieces: viterbi(text, pieces)[1] - 0.75)
    constant, inputs = shifted_best_path(observations)
    assert math.isclose(constant, 0.75) and inputs == 3
    [(signal_id, _, message)] = likelihood_signals("log_likelihood", observations, {})
    assert signal_id == SIGNAL_ID
    assert "minus the same 0.75" in message and "3 failing inputs" in message


@pytest.mark.parametrize("answer", [
    lambda text, pieces: viterbi(text, pieces)[1],  # the best path exactly: another mistake
    lambda text, pieces: log_likelihood(text, pieces) - 0.75,  # the total shifted, not the best
    lambda text, pieces: viterbi(text, pieces)[1] - len(text),  # not one constant
], ids=["best-path", "total-shifted", "varying"])
def test_no_shift_is_said_where_the_answers_do_not_show_one(answer):
    assert likelihood_signals("log_likelihood", _observations(answer), {}) == []


def test_one_failing_input_shows_no_constant():
    observations = _observations(lambda text, pieces: viterbi(text, pieces)[1] - 0.75)[:1]
    assert likelihood_signals("log_likelihood", observations, {}) == []


@pytest.fixture(scope="module")
def report():
    return grade_submission(SUBMISSION, exercise_without_efficiency(EXERCISE), helper=False)


def test_a_best_path_plus_end_of_sentence_file_is_named_and_nothing_false(report):
    """The file adds log(0.1) to the Viterbi score: the likelihood milestone is named by the
    shifted best path with 2.30259 (= -log 0.1, computed from its answers), nothing else."""
    names = {milestone.id: {d.id for c in milestone.checks for d in c.diagnoses}
             for milestone in report.milestones}
    failed = {m.id for m in report.milestones if not m.passed}
    assert failed == {"likelihood"}
    assert names["likelihood"] == {SIGNAL_ID}
    assert all(not found for milestone, found in names.items() if milestone != "likelihood")
    messages = {d.message for m in report.milestones for c in m.checks for d in c.diagnoses}
    assert all(f"minus the same {-math.log(0.1):.6g}" in message for message in messages)
