"""Hostile submissions inside a batch: each gets its own report, the others are unaffected,
and the batch finishes."""

from __future__ import annotations

from pathlib import Path

from grader.batch.batch import BatchOptions, run_batch
from grader.batch.gradebook import Gradebook

from batch_helpers import CORRECT, HOSTILE, copy, quick_exercise

HOSTILE_FILES = ["infinite_loop", "fork_bomb", "output_flood", "segfault", "exit_at_import",
                 "kill_parent", "memory_bomb"]


def test_hostile_students_get_reports_and_the_rest_are_graded(tmp_path: Path) -> None:
    exercise = quick_exercise(total_seconds=3.0)
    folder = tmp_path / "class"
    copy(CORRECT, folder / "good_before.py")
    copy(CORRECT, folder / "good_after.py")
    for name in HOSTILE_FILES:
        copy(HOSTILE / f"{name}.py", folder / f"{name}.py")
    summary = run_batch(folder, tmp_path / "out",
                        BatchOptions(exercise=exercise, jobs=2, progress=False))
    assert not summary.interrupted and summary.unusable == []
    assert summary.graded == len(HOSTILE_FILES) + 2
    assert summary.grader_errors == []
    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        rows = {g.student: g for g in book.latest()}
    assert rows["good_before"].score == rows["good_after"].score == exercise.total_points
    for name in HOSTILE_FILES:
        assert rows[name].report is not None and rows[name].score < exercise.total_points, name
        assert (tmp_path / "out" / "reports" / f"{name}.html").is_file()
    assert rows["exit_at_import"].outcome == "not-gradable"
    assert len(rows["output_flood"].student_output) < 1_000_000
    page = (tmp_path / "out" / "class-report.html").read_text()
    problems = page[page.index('id="problems"'):]
    assert 'class="problem crashed"><td>segfault<' in problems
    assert 'class="problem timed-out"><td>infinite_loop<' in problems
    assert 'class="problem not-gradable"><td>exit_at_import<' in problems
