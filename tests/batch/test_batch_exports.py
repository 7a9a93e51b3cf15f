"""The CSV exports (plain and Canvas) and per-student reports, from gradebook rows."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from grader.batch.exports import canvas_csv, grades_csv, report_file_name
from grader.batch.gradebook import Grading


def grading(student: str, score: float | None, milestones: list[tuple[str, float, float]],
            outcome: str = "graded", exercise: str = "ex", name: str = "", email: str = "") -> Grading:
    report = None if outcome == "grader-error" else {
        "exercise": exercise, "title": "Exercise title", "score": score,
        "max_score": sum(m for _, _, m in milestones),
        "milestones": [{"id": i, "title": i, "score": s, "max_score": m, "passed": s == m,
                        "checks": []} for i, s, m in milestones],
        "errors": [], "sandbox_layers": {}}
    return Grading.in_memory(
        report, "", id=1, student=student, name=name, email=email, exercise=exercise,
        entry=f"{student}.py", submission_sha256="0" * 64, spec_sha256="1" * 64,
        grader_version="0.1", settings_sha256="2" * 64, outcome=outcome, score=score or 0.0,
        max_score=100.0, error="boom" if outcome == "grader-error" else "", seconds=1.0,
        graded_at="2026-11-30T00:00:00+00:00")


ROWS = [
    grading("alice", 100.0, [("train", 45.0, 45.0), ("encode", 40.0, 40.0), ("efficiency", 15.0, 15.0)],
            name="Alice A.", email="alice@example.edu"),
    grading("bob", 58.0126, [("train", 17.8844, 45.0), ("encode", 25.1282, 40.0),
                             ("efficiency", 15.0, 15.0)]),
    grading("=cmd|' /C calc'!A0", 0.0, [("train", 0.0, 45.0), ("encode", 0.0, 40.0),
                                       ("efficiency", 0.0, 15.0)], outcome="not-gradable"),
    grading("carol", None, [("train", 0.0, 45.0)], outcome="grader-error"),
]


def parse(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_grades_csv_has_student_total_and_one_column_per_milestone() -> None:
    rows = parse(grades_csv(ROWS))
    assert rows[0] == ["student", "total", "train", "encode", "efficiency", "outcome", "reason"]
    assert rows[1] == ["alice", "100", "45", "40", "15", "graded", ""]
    # rounded to two decimals, as every report shows points
    assert rows[2] == ["bob", "58.01", "17.88", "25.13", "15", "graded", ""]
    # a spreadsheet must not run a student-chosen id as a formula
    assert rows[3] == ["'=cmd|' /C calc'!A0", "0", "0", "0", "0", "not-gradable", ""]
    # a grading that failed is not a zero
    assert rows[4][:6] == ["carol", "", "", "", "", "grader-error"]


def test_unusable_students_have_a_row_with_their_reason() -> None:
    rows = parse(grades_csv(ROWS[:1], [("dave.py", "dave", "a symbolic link"),
                                        ("notes.md", "", "not a Python file")]))
    assert rows[-1] == ["dave", "", "", "", "", "unusable", "dave.py: a symbolic link"]
    assert len(rows) == 3  # an entry that names no student has no row
    canvas = parse(canvas_csv(ROWS[:1], unusable=[("dave.py", "dave", "a symbolic link")]))
    assert canvas[-1][:3] == ["dave", "", "dave"] and canvas[-1][-1] == ""


def test_grades_csv_names_the_exercise_when_there_are_several() -> None:
    rows = parse(grades_csv([ROWS[0], grading("dan", 50.0, [("tokenize", 50.0, 100.0)],
                                               exercise="other")]))
    assert rows[0] == ["student", "exercise", "total", "train", "encode", "efficiency",
                       "tokenize", "outcome", "reason"]
    assert rows[2] == ["dan", "other", "50", "", "", "", "50", "graded", ""]


def test_canvas_csv_follows_the_gradebook_import_format() -> None:
    rows = parse(canvas_csv(ROWS, assignment="BPE homework (12345)"))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                       "BPE homework (12345)"]
    assert rows[1] == ["Points Possible", "", "", "", "", "100"]
    assert rows[2] == ["Alice A.", "", "alice", "alice@example.edu", "", "100"]
    assert rows[3] == ["bob", "", "bob", "", "", "58.01"]
    assert rows[5] == ["carol", "", "carol", "", "", ""]
    default = parse(canvas_csv(ROWS, titles={"ex": "Exercise title"}))
    assert default[0][-1] == "Exercise title"


def test_report_file_names_are_safe() -> None:
    assert report_file_name("alice") == "alice.html"
    assert report_file_name("../../etc/passwd").startswith("_.._etc_passwd~")
    assert "/" not in report_file_name("../../etc/passwd")
    assert report_file_name("a b", "ex-1", several=True).endswith("--ex-1.html")
    assert report_file_name("a_b") == "a_b.html"


def test_two_ids_never_share_a_report_file() -> None:
    ids = ["a b", "a_b", "a\tb", "a/b", "a__b", "a.b", ".a.b", "a.b.", "student", ""]
    names = [report_file_name(student) for student in ids]
    assert len(set(names)) == len(ids), names


def test_a_batch_writes_both_csv_files(tmp_path: Path) -> None:
    from grader.batch.batch import BatchOptions, run_batch
    from grader.batch.outputs import OutputSettings

    from batch_helpers import LESSON_CORRECT, LESSON_WRONG, copy

    copy(LESSON_CORRECT, tmp_path / "class" / "ann" / "student.py")
    copy(LESSON_WRONG, tmp_path / "class" / "ben" / "student.py")
    settings = OutputSettings(csv_formats=("plain", "canvas"), canvas_assignment="HW (7)")
    run_batch(tmp_path / "class", tmp_path / "out",
              BatchOptions(jobs=2, progress=False, output=settings))
    plain = parse((tmp_path / "out" / "grades.csv").read_text())
    assert plain[0] == ["student", "total", "train", "tokenize", "sequence-lengths",
                        "vocab-tradeoff", "outcome", "reason"]
    assert [row[0] for row in plain[1:]] == ["ann", "ben"]
    assert plain[1][1] == "100" and float(plain[2][1]) < 100
    canvas = parse((tmp_path / "out" / "grades-canvas.csv").read_text())
    assert canvas[0][-1] == "HW (7)" and canvas[1] == ["Points Possible", "", "", "", "", "100"]
    assert sorted(p.name for p in (tmp_path / "out" / "reports").iterdir()) == ["ann.html",
                                                                                 "ben.html"]


def test_tab_and_carriage_return_before_a_formula_are_neutralised_too() -> None:
    from grader.batch.exports import _cell

    for hostile in ("\t=1+1", "\r=1+1", "=1+1", "+1+1a", "-x", "@SUM(A1)"):
        assert _cell(hostile).startswith("'"), hostile
    assert _cell("-1.5") == "-1.5" and _cell("alice") == "alice"
