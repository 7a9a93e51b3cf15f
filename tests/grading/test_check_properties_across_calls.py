"""Reference-free properties that need more than one look at a call: a function that changes
its arguments is caught (the sandbox echoes them back after the call and the
``inputs-unmodified`` property compares them with what was sent), and so is one whose answer
changes from call to call, by chance or by what ran before it in the same process."""

from __future__ import annotations

from pathlib import Path

from exercise_variants import quick

from grader.grading.engine import grade_submission
from grader.sandbox import Sandbox
from grader.spec import load_exercise

SUBMISSIONS = Path(__file__).parents[1] / "submissions"


def quick_exercise():
    return quick(load_exercise("bpe-train-encode"))


def test_the_sandbox_echoes_arguments_as_the_call_left_them(tmp_path):
    source = tmp_path / "student.py"
    source.write_text(
        "def grow(items, n):\n    items.append(('x', 'y'))\n    return n\n"
        "def keep(items, n):\n    return n\n",
        encoding="utf-8",
    )
    sent = [[("a", "b")], 3]
    with Sandbox(source) as box:
        grown = box.call("grow", sent, echo_args=True)
        kept = box.call("keep", sent, echo_args=True)
        silent = box.call("keep", sent)
    assert grown.ok and grown.args_after == [[("a", "b"), ("x", "y")], 3]
    assert kept.ok and kept.args_after == sent
    assert type(kept.args_after[0][0]) is tuple
    assert silent.ok and silent.args_after is None
    assert sent == [[("a", "b")], 3]


def test_a_trainer_that_empties_its_corpus_fails_only_that_property():
    exercise = quick_exercise()
    report = grade_submission(SUBMISSIONS / "wrong_mutates_corpus.py", exercise)
    failed = [(m.id, c.id) for m in report.milestones for c in m.checks if not c.passed]
    assert failed == [("train", "property:inputs-unmodified")]
    check = next(c for c in report.checks if c.id == "property:inputs-unmodified" and not c.passed)
    assert "changed its corpus argument" in check.message
    assert "work on a copy" in check.message


def test_a_correct_submission_leaves_its_inputs_alone():
    exercise = quick_exercise()
    report = grade_submission(SUBMISSIONS / "correct_counter.py", exercise)
    unmodified = [c for c in report.checks if c.id == "property:inputs-unmodified"]
    assert len(unmodified) == 2 and all(c.passed for c in unmodified)


def test_a_trainer_whose_answer_changes_between_calls_fails_determinism():
    exercise = quick_exercise()
    report = grade_submission(SUBMISSIONS / "wrong_alternating.py", exercise)
    check = next(c for c in report.checks if c.id == "property:deterministic")
    assert not check.passed
    assert "two calls with the same input returned" in check.message


# The correct trainer, except that from the second call a process serves, the last merge
# carries how many calls came before: state kept in a global between calls.
COUNTS_ITS_CALLS = '''
_CALLS = [0]
_right_train_bpe = train_bpe


def train_bpe(corpus, num_merges):
    _CALLS[0] += 1
    merges = _right_train_bpe(corpus, num_merges)
    if merges and _CALLS[0] > 1:
        first, second = merges[-1]
        merges[-1] = (first, second + "#%d" % _CALLS[0])
    return merges
'''


def test_a_trainer_whose_answer_depends_on_earlier_calls_in_its_process_fails_determinism(tmp_path):
    """Second calls are batched in one child, in the reverse order of the first ones: no input
    meets the same calls before it twice, so a count kept in a global still shows."""
    exercise = quick_exercise()
    student = tmp_path / "student.py"
    student.write_text((SUBMISSIONS / "correct_counter.py").read_text(encoding="utf-8")
                       + COUNTS_ITS_CALLS, encoding="utf-8")
    report = grade_submission(student, exercise)
    check = next(c for c in report.checks if c.id == "property:deterministic")
    assert not check.passed
    assert "two calls with the same input returned" in check.message
