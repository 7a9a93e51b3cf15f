"""Broken submissions are still graded: a clear message, zero only where the fault reaches."""

from __future__ import annotations

from pathlib import Path

import pytest
from exercise_variants import quick

from grader.grading.engine import grade_submission
from grader.result import GradeReport
from grader.spec import Exercise, load_exercise

SUBMISSIONS = Path(__file__).parents[1] / "submissions"


@pytest.fixture(scope="module")
def exercise() -> Exercise:
    return quick(load_exercise("bpe-train-encode"))


@pytest.fixture(scope="module")
def strict_tuples(exercise) -> Exercise:
    """The same exercise, but refusing ["e", "s"] where ("e", "s") is asked for."""
    conventions = exercise.conventions.model_copy(update={"accept_lists_for_tuples": False})
    return exercise.model_copy(update={"conventions": conventions})


def milestone(report: GradeReport, milestone_id: str):
    return next(m for m in report.milestones if m.id == milestone_id)


def visible_messages(report: GradeReport, milestone_id: str) -> list[str]:
    return [c.message for c in milestone(report, milestone_id).checks if c.visibility == "visible"]


def assert_graded_zero(report: GradeReport, exercise: Exercise) -> None:
    assert report.score == 0
    assert report.max_score == exercise.total_points
    assert [m.id for m in report.milestones] == [m.id for m in exercise.milestones]


def test_syntax_error_is_a_graded_zero_naming_the_line(exercise):
    report = grade_submission(SUBMISSIONS / "broken_syntax.py", exercise)
    assert_graded_zero(report, exercise)
    assert len(report.errors) == 1
    assert "broken_syntax.py could not be loaded: SyntaxError on line 5" in report.errors[0]
    assert all("SyntaxError on line 5" in check.message for check in report.checks)


def test_empty_file_is_a_graded_zero(exercise):
    report = grade_submission(SUBMISSIONS / "broken_empty.py", exercise)
    assert_graded_zero(report, exercise)
    assert "the file is empty" in report.errors[0]


def test_missing_function_zeroes_only_its_milestone_and_is_not_gradable(exercise):
    report = grade_submission(SUBMISSIONS / "broken_missing_encode.py", exercise)
    assert report.gradable is False
    assert report.format_errors == [
        "broken_missing_encode.py does not define encode(); write "
        "def encode(word: str, merges: list[tuple[str, str]]) -> list[str]:"
    ]
    train, encode = milestone(report, "train"), milestone(report, "encode")
    assert train.score == train.max_score == 45
    assert encode.score == 0 and encode.max_score == 40
    assert all("does not define encode()" in check.message for check in encode.checks)


def test_exception_inside_the_function_names_its_type_and_text(exercise):
    report = grade_submission(SUBMISSIONS / "broken_raises.py", exercise)
    assert milestone(report, "train").score == 0
    messages = visible_messages(report, "train")
    assert any(m.startswith("train_bpe raised KeyError: 'the merge list' (at line ")
               for m in messages), messages
    assert report.errors == []  # the file loads; the failure belongs to the checks
    # encode returns the bare characters: what it passes is what doing nothing passes
    encode = milestone(report, "encode")
    assert encode.score == 0 and any(check.passed for check in encode.checks)
    assert any("no points until encode() gets right a case" in m for m in visible_messages(report, "encode"))


@pytest.mark.parametrize(
    "name, expected",
    [
        ("broken_generator", "train_bpe must return a list of (str, str) pairs; it returned a generator object"),
        ("broken_none", "train_bpe must return a list of (str, str) pairs; it returned None"),
    ],
)
def test_wrong_return_type_gets_the_shape_message(name, expected, exercise):
    report = grade_submission(SUBMISSIONS / f"{name}.py", exercise)
    assert expected in visible_messages(report, "train")
    assert milestone(report, "train").score == 0


def test_generator_from_encode_gets_the_tokens_shape_message(exercise):
    report = grade_submission(SUBMISSIONS / "broken_generator.py", exercise)
    messages = visible_messages(report, "encode")
    assert "encode must return a list of str tokens; it returned a generator object" in messages


def test_lists_for_tuples_fail_when_the_exercise_asks_for_tuples(strict_tuples):
    report = grade_submission(SUBMISSIONS / "broken_list_pairs.py", strict_tuples)
    messages = visible_messages(report, "train")
    assert "item 0 is a list ['e', 's']; return tuples, e.g. ('e', 's')" in " ".join(messages)
    problem_corpus = next(c for c in milestone(report, "train").checks if c.id == "cases:problem-corpus")
    assert not problem_corpus.passed
    # Only cases whose merge list is empty can pass ([] has no item of the wrong type), and the
    # properties, judged where an answer has the right shape: none of it is work, none earns.
    train = milestone(report, "train")
    passed = [c for c in train.checks if c.passed]
    assert passed and all(c.id.startswith(("cases:", "property:")) for c in passed)
    assert not any(c.id == "differential" and c.passed for c in train.checks)
    assert train.score == 0


def test_lists_for_tuples_pass_when_the_exercise_accepts_them(exercise):
    assert exercise.conventions.accept_lists_for_tuples
    report = grade_submission(SUBMISSIONS / "broken_list_pairs.py", exercise)
    assert report.score == report.max_score
