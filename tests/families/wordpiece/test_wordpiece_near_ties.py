"""Rounded WordPiece scores are caught whatever they are rounded to.

Code that compares ``round(score, d)`` passes every input whose best scores differ before the
d-th decimal; the near-tie corpora (:mod:`grader.families.wordpiece.near_ties`) make them agree
to d decimals for each d, so rounding at 2, 4 and 6 decimals loses points in the training
milestone, where the mistake lives, while the correct file keeps full marks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.families.wordpiece import near_ties
from grader.grading.engine import grade_submission
from grader.spec import load_exercise

SUBMISSIONS = Path(__file__).resolve().parents[2] / "submissions"
TIE_RULES = ("lexicographic", "reverse-lexicographic", "first-seen", "concatenated")


def with_tie_rule(exercise, tie_break):
    return exercise.model_copy(update={"conventions": exercise.conventions.model_copy(
        update={"tie_break": tie_break})})


@pytest.mark.parametrize("tie_break", TIE_RULES)
def test_a_near_tie_catches_rounding_at_every_number_of_decimals(tie_break):
    exercise = with_tie_rule(load_exercise("wordpiece"), tie_break)
    for digits in near_ties.DIGITS:
        found = near_ties.near_tie(exercise, digits)
        assert found is not None, digits
        corpus, num_merges = found
        assert near_ties.catches(exercise, corpus, num_merges, digits)
        # Exact scores (as Fractions) never tie there, so only rounding departs.
        assert near_ties.rounded_merges(corpus, num_merges, 30, tie_break, "</w>") == \
            near_ties.wordpiece_merges(exercise, corpus, num_merges)


def test_the_targeted_inputs_hold_one_near_tie_per_number_of_decimals():
    exercise = load_exercise("wordpiece")
    targeted = near_ties.targeted_examples(exercise)
    assert len(targeted) == len(near_ties.DIGITS)
    for digits, (corpus, num_merges) in zip(near_ties.DIGITS, targeted):
        assert near_ties.catches(exercise, corpus, num_merges, digits)


@pytest.fixture(scope="module")
def reports():
    exercise = load_exercise("wordpiece")
    files = {digits: SUBMISSIONS / f"wordpiece_rounded_{digits}.py" for digits in (2, 4, 6)}
    graded = {digits: grade_submission(path, exercise) for digits, path in files.items()}
    graded["correct"] = grade_submission(
        Path(__file__).resolve().parents[3] / "examples" / "wordpiece" / "student_correct.py",
        exercise)
    return graded


@pytest.mark.parametrize("digits", (2, 4, 6))
def test_rounded_scores_lose_points_in_training(reports, digits):
    report = reports[digits]
    train = next(m for m in report.milestones if m.id == "train")
    assert train.score < train.max_score
    failed = [c for c in train.checks if not c.passed]
    assert failed and any("exactly" in c.message for c in failed)


def test_exact_scores_keep_full_marks(reports):
    assert reports["correct"].score == 100


@pytest.mark.parametrize("digits", (2, 4, 6))
def test_rounded_scores_are_named_with_their_number_of_decimals(reports, digits):
    # The catalogue's entry rounds to 3 decimals; rounding to any other number is named from
    # the run: scores rounded to that many decimals give the student's merges on every
    # failing input.
    train = next(m for m in reports[digits].milestones if m.id == "train")
    named = [d for c in train.checks if not c.passed for d in c.diagnoses]
    assert named and {d.id for d in named} == {"wordpiece-rounded-scores"}
    assert {d.title for d in named} == {f"Scores compared rounded to {digits} decimals"}
    assert all(f"round(count_ab / (count_a * count_b), {digits})" in d.message for d in named)


def test_the_rounding_signal_names_only_what_the_merges_show():
    from grader.families.api import Observation
    from grader.families.wordpiece.signals import rounding_digits, rounding_signals
    exercise = load_exercise("wordpiece")
    options = {"tie_break": exercise.conventions.tie_break, "end_of_word": "</w>"}
    corpus, num_merges = near_ties.near_tie(exercise, 4)
    rounded = near_ties.rounded_merges(corpus, num_merges, 4, options["tie_break"], "</w>")
    seen = [Observation({"corpus": corpus, "num_merges": num_merges}, actual=rounded)]
    assert 4 in rounding_digits(seen, options) and 5 not in rounding_digits(seen, options)
    # Merges no rounding gives (here: the reference's with the last two swapped) name nothing.
    exact = near_ties.wordpiece_merges(exercise, corpus, num_merges)
    other = [Observation({"corpus": corpus, "num_merges": num_merges},
                         actual=exact[:-2] + exact[-1:] + exact[-2:-1])]
    assert rounding_signals("train_wordpiece", other, options) == []


def test_a_failure_and_its_share_read_as_sentences(reports):
    train = next(m for m in reports[2].milestones if m.id == "train")
    differential = next(c for c in train.checks if c.id == "differential")
    assert "at this step. It agrees with the reference on" in differential.message
    assert ".." not in differential.message
