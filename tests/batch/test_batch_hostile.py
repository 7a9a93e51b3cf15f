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
        flood = rows["output_flood"].student_output
    assert rows["good_before"].score == rows["good_after"].score == exercise.total_points
    for name in HOSTILE_FILES:
        assert rows[name].has_report and rows[name].score < exercise.total_points, name
        assert (tmp_path / "out" / "reports" / f"{name}.html").is_file()
    assert rows["exit_at_import"].outcome == "not-gradable"
    assert len(flood) < 1_000_000
    page = (tmp_path / "out" / "class-report.html").read_text()
    problems = page[page.index('id="problems"'):]
    assert 'class="problem crashed"><td>segfault<' in problems
    assert 'class="problem timed-out"><td>infinite_loop<' in problems
    assert 'class="problem not-gradable"><td>exit_at_import<' in problems


def test_three_hostile_students_in_a_class_of_ten_lose_nobody_a_row(tmp_path: Path) -> None:
    import csv

    from grader.families.hand.audit import sheet_text
    from grader.families.hand.expected import expected_answers
    from grader.families.hand.mistakes import diagnostic_variant
    from grader.grading.student_ids import DEFAULT_SECRET
    from grader.spec import load_exercise

    hand = load_exercise("hand-bpe")
    folder = tmp_path / "class"
    folder.mkdir()
    honest = [f"s{i}" for i in range(7)]
    for number, student in enumerate(honest):
        right = expected_answers(hand, diagnostic_variant(hand, student, DEFAULT_SECRET))
        if number % 2:
            right = {**right, "first-merge": {"pair": "x y", "count": 1}}
        (folder / f"{student}.yaml").write_text(sheet_text(hand, student, right), encoding="utf-8")
    alone = {}
    for student in honest:
        out = tmp_path / "alone" / student
        (out / "in").mkdir(parents=True)
        (out / "in" / f"{student}.yaml").write_bytes((folder / f"{student}.yaml").read_bytes())
        run_batch(out / "in", out / "graded", BatchOptions(
            exercise=hand, jobs=1, progress=False, grading_options={"seed_secret": DEFAULT_SECRET}))
        with (out / "graded" / "grades.csv").open(encoding="utf-8") as handle:
            alone[student] = next(csv.DictReader(handle))["total"]
    (folder / "surrogate.yaml").write_text(
        '# exercise: hand-bpe\nstudent: "surrogate"\nvocabulary: ["\\ud800"]\n', encoding="utf-8")
    (folder / "binary.yaml").write_text(
        '# exercise: hand-bpe\nstudent: "binary"\nfirst_merge: !!binary aGVsbG8=\n',
        encoding="utf-8")
    (folder / "linked.yaml").symlink_to(folder / "s0.yaml")
    summary = run_batch(folder, tmp_path / "out",
                        BatchOptions(exercise=hand, jobs=2, progress=False,
                                     grading_options={"seed_secret": DEFAULT_SECRET}))
    assert not summary.interrupted
    with (tmp_path / "out" / "grades.csv").open(encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert len(rows) == 10, sorted(rows)
    assert {student: rows[student]["total"] for student in honest} == alone
    assert rows["surrogate"]["outcome"] == rows["binary"]["outcome"] == "not-gradable"
    assert "line 3" in rows["binary"]["reason"] and "!!binary" in rows["binary"]["reason"]
    assert "line 3" in rows["surrogate"]["reason"] and "surrogate" in rows["surrogate"]["reason"]
    assert all(rows[student]["reason"] == "" for student in honest)
    assert rows["linked"]["outcome"] == "unusable"
    assert "symbolic link" in rows["linked"]["reason"]
    assert (tmp_path / "out" / "class-report.html").is_file()


def test_a_function_returning_lone_surrogates_is_stored_cleaned_and_the_batch_goes_on(
        tmp_path: Path) -> None:
    exercise = quick_exercise()
    folder = tmp_path / "class"
    copy(CORRECT, folder / "good.py")
    source = CORRECT.read_text(encoding="utf-8")
    hostile = source.replace("def encode(word, merges):\n",
                             "def encode(word, merges):\n    return ['\\ud800' * 100000]\n", 1)
    assert hostile != source
    (folder / "surrogate.py").write_text(hostile, encoding="utf-8")
    summary = run_batch(folder, tmp_path / "out", BatchOptions(exercise=exercise, jobs=1,
                                                               progress=False))
    assert summary.graded == 2 and summary.grader_errors == []
    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        rows = {g.student: g for g in book.latest()}
        stored = rows["surrogate"].report
    assert rows["good"].score == exercise.total_points
    assert rows["surrogate"].outcome == "graded"
    assert "\ud800" not in str(stored)
    import json
    assert len(json.dumps(stored)) < 1_100_000
    assert (tmp_path / "out" / "reports" / "surrogate.html").is_file()
