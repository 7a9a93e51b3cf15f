"""The gradebook file: WAL mode, gradings committed a few at a time (a killed batch keeps what
was committed and grades only the rest), the class report counted by SQL exactly as from the
decoded reports, and a schema-1 gradebook brought up to date."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import grader.batch.gradebook as gradebook
import grader.grading.engine as engine
from grader.batch.batch import BatchOptions, run_batch
from grader.batch.class_stats import counted_view
from grader.batch.gradebook import Gradebook
from grader.batch.merge import merge
from grader.batch.stored import report_from_json
from grader.report.class_report import (
    ClassEntry,
    UnusableEntry,
    class_view,
    render_class_report,
    render_view,
)
from grader.result import CheckResult, Diagnosis, GradeReport, MilestoneResult
from tests.report.test_class_report import LONGEST, TIES, check, student, synthetic_class

from batch_helpers import quick_exercise, small_class


def row(student_id: str, report: GradeReport | None, exercise: str = "bpe-train-encode",
        error: str = "") -> dict:
    data = report.to_json() if report is not None else None
    outcome = ("grader-error" if report is None
               else "graded" if report.gradable else "not-gradable")
    return {"student": student_id, "exercise": exercise, "entry": f"{student_id}.py",
            "submission_sha256": student_id, "spec_sha256": "s", "grader_version": "v",
            "settings_sha256": "x", "outcome": outcome,
            "score": data["score"] if data else 0.0,
            "max_score": data["max_score"] if data else 100.0, "report": data,
            "student_output": f"{student_id} printed this", "error": error}


def committed(path: Path) -> int:
    """Gradings another reader of the file sees."""
    with closing(sqlite3.connect(path)) as reader:
        return reader.execute("SELECT COUNT(*) FROM gradings").fetchone()[0]


def test_the_gradebook_is_in_wal_mode_and_commits_every_n_gradings(tmp_path) -> None:
    path = tmp_path / "gradebook.sqlite"
    book = Gradebook(path, commit_every=3, commit_seconds=3600)
    assert book.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    seen = []
    for index in range(7):
        book.record(row(f"s{index}", student()))
        seen.append(committed(path))
    assert seen == [0, 0, 3, 3, 3, 6, 6]
    book.close()
    assert committed(path) == 7


def test_gradings_are_committed_after_commit_seconds(tmp_path) -> None:
    path = tmp_path / "gradebook.sqlite"
    with Gradebook(path, commit_every=1000, commit_seconds=0.2) as book:
        book.record(row("s0", student()))
        book.commit_if_due()
        assert committed(path) == 0
        time.sleep(0.3)
        book.commit_if_due()
        assert committed(path) == 1


def _record_then_die(path: Path) -> None:
    book = Gradebook(path, commit_every=2, commit_seconds=3600)
    for index in range(5):
        book.record(row(f"s{index}", student()))
    os._exit(9)  # killed: nothing closes the gradebook


def test_a_killed_process_keeps_every_committed_grading(tmp_path) -> None:
    path = tmp_path / "gradebook.sqlite"
    process = multiprocessing.get_context("fork").Process(target=_record_then_die, args=(path,))
    process.start()
    process.join(30)
    assert process.exitcode == 9
    with Gradebook(path) as book:
        assert [g.student for g in book.latest()] == ["s0", "s1", "s2", "s3"]
        assert all(g.report is not None for g in book.latest())


def test_a_failed_insert_leaves_no_half_grading(tmp_path) -> None:
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(row("s0", student()))
        broken = row("s1", student())
        broken["outcome"] = "no such outcome"
        try:
            book.record(broken)
        except sqlite3.IntegrityError:
            pass
        else:
            raise AssertionError("the insert should have failed")
        book.record(row("s2", student()))
        assert [g.student for g in book.latest()] == ["s0", "s2"]
        scores = book.db.execute("SELECT COUNT(DISTINCT grading_id) FROM milestone_scores")
        assert scores.fetchone()[0] == 2


# --------------------------------------------------------------------------- a killed batch

def fake_grading(path, exercise, **options):
    """Note who was graded; the student named in $KILL_BATCH_AT kills the batch itself."""
    name = Path(path).stem
    with open(os.environ["GRADED_LOG"], "a") as log:
        log.write(name + "\n")
    if name == os.environ.get("KILL_BATCH_AT"):
        os.kill(os.getppid(), signal.SIGKILL)
        os._exit(0)
    report = GradeReport(exercise=exercise.id, title="quick")
    milestone = MilestoneResult("train", "Train", max_score=10.0)
    milestone.checks = [CheckResult("cases", "cases", True, 10.0, 10.0)]
    report.milestones = [milestone]
    return report


def _batch(folder: Path, out: Path, exercise) -> None:
    run_batch(folder, out, BatchOptions(exercise=exercise, jobs=1, progress=False,
                                        commit_every=2, commit_seconds=3600))


def test_a_killed_batch_keeps_its_committed_gradings_and_grades_only_the_rest(
        tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(engine, "grade_submission", fake_grading)
    exercise = quick_exercise()
    folder = tmp_path / "class"
    folder.mkdir()
    names = [f"s{index}" for index in range(8)]
    for name in names:
        (folder / f"{name}.py").write_text(f"# {name}\ndef train_bpe(corpus, n):\n    return []\n")
    log = tmp_path / "graded.log"
    monkeypatch.setenv("GRADED_LOG", str(log))
    monkeypatch.setenv("KILL_BATCH_AT", "s5")
    out = tmp_path / "out"
    process = multiprocessing.get_context("fork").Process(target=_batch,
                                                          args=(folder, out, exercise))
    process.start()
    process.join(120)
    assert process.exitcode == -signal.SIGKILL
    assert log.read_text().split() == names[:6]
    # s0-s3 were committed two at a time; s4 was waiting for the next commit
    assert committed(out / "gradebook.sqlite") == 4
    log.unlink()
    monkeypatch.delenv("KILL_BATCH_AT")
    summary = run_batch(folder, out, BatchOptions(exercise=exercise, jobs=1, progress=False,
                                                  commit_every=2))
    assert (summary.reused, summary.graded, summary.interrupted) == (4, 4, False)
    assert log.read_text().split() == names[4:]
    with Gradebook(out / "gradebook.sqlite") as book:
        assert [g.student for g in book.latest()] == names
        assert book.count() == 8
    assert (out / "grades.csv").read_text().count("\ns") == 8


# --------------------------------------------------------------------------- SQL aggregates

def disagreeing() -> GradeReport:
    """Two failing checks naming different mistakes: both are listed, once."""
    report = student(train_ok=False, train_mistakes=[TIES])
    report.milestones[0].checks[1] = check("differential", False, 20.0, diagnoses=[LONGEST])
    report.milestones[0].checks[0].diagnoses.append(
        Diagnosis("no-end-of-word", "", "a mistake without a title"))
    return report


def other_exercise(score_ok: bool) -> GradeReport:
    report = GradeReport("lesson97-bpe", "")
    milestone = MilestoneResult("merges", "", max_score=5.0)
    milestone.checks = [check("cases:hidden-2", score_ok, 5.0, hidden=True),
                        check("timing", score_ok, 0.0, details={"kind": "timing", "ratio": 3})]
    report.milestones = [milestone]
    return report


def gradebook_of_a_class(path: Path) -> tuple[Gradebook, list[UnusableEntry]]:
    entries, unusable = synthetic_class()
    path.parent.mkdir(parents=True, exist_ok=True)
    book = Gradebook(path, commit_every=4)
    book.record(row("ann", student(train_ok=False, train_mistakes=[TIES])))  # regraded below
    for entry in entries:
        book.record(row(entry.student, entry.report, error=entry.error))
    book.record(row("ann", disagreeing(), exercise="lesson97-bpe"))  # then regraded:
    book.record(row("ann", other_exercise(True), exercise="lesson97-bpe"))
    book.record(row("zed", other_exercise(False), exercise="lesson97-bpe"))
    book.record(row("kim", disagreeing()))
    book.set_unusable([(u.entry, u.student, u.reason) for u in unusable])
    return book, unusable


def decoded_view(book: Gradebook, unusable, exercises=None):
    """The class view as it was counted before: from every decoded report."""
    entries = [ClassEntry(g.student, report_from_json(g.report, g.student_output)
                          if g.report else None, g.error) for g in book.latest()]
    return entries, class_view(entries, unusable, "A class", exercises)


def test_the_counted_class_view_is_the_one_decoded_reports_give(tmp_path) -> None:
    book, unusable = gradebook_of_a_class(tmp_path / "gradebook.sqlite")
    with book:
        entries, expected = decoded_view(book, unusable)
        counted = counted_view(book, book.latest(), unusable, "A class")
        assert counted == expected
        assert [s.exercise for s in counted.sections] == ["bpe-train-encode", "lesson97-bpe"]
        mistakes = {m.id: m for m in counted.sections[0].mistakes}
        assert mistakes["ties-first-seen"].students == ["ben", "cat", "dan", "kim"]
        assert mistakes["no-end-of-word"].title == "No end-of-word marker"  # the first title
        assert {p.kind for p in counted.problems} >= {"grader error", "crashed", "timed out",
                                                      "not gradable", "unusable"}
        assert render_view(counted) == render_class_report(entries, unusable, "A class")
        # a subset of the class, in the batch's order
        some = [g for g in book.latest() if g.student in ("ann", "zed", "hal")]
        entries = [ClassEntry(g.student, report_from_json(g.report) if g.report else None,
                              g.error) for g in some]
        assert counted_view(book, some) == class_view(entries)


def as_schema_1(path: Path) -> None:
    """Make ``path`` what schema 1 held: no summary columns or tables."""
    with closing(sqlite3.connect(path)) as db, db:  # closed, and committed first
        for table in ("checks", "timings", "problems"):
            db.execute(f"DROP TABLE {table}")
        for table, column in (("gradings", "title"), ("gradings", "gradable"),
                              ("gradings", "not_gradable"), ("milestone_scores", "title"),
                              ("mistakes", "title")):
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        db.execute("DROP INDEX mistakes_grading")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
        db.execute("DELETE FROM mistakes")


def test_a_merge_reads_its_sources_and_leaves_them_as_they_are(tmp_path) -> None:
    book, _ = gradebook_of_a_class(tmp_path / "one" / "gradebook.sqlite")
    book.close()
    merge([tmp_path / "one"], tmp_path / "merged")
    as_schema_1(tmp_path / "one" / "gradebook.sqlite")
    merge([tmp_path / "one"], tmp_path / "from-schema-1")
    with closing(sqlite3.connect(tmp_path / "one" / "gradebook.sqlite")) as db:
        assert db.execute("SELECT value FROM meta").fetchone()[0] == "1"
    for name in ("grades.csv", "class-report.html"):
        assert ((tmp_path / "merged" / name).read_text()
                == (tmp_path / "from-schema-1" / name).read_text())
    assert "Ties broken by the pair met first" in (tmp_path / "merged" / "class-report.html"
                                                   ).read_text()


def test_a_real_class_counts_the_same_and_a_schema_1_gradebook_is_upgraded(tmp_path) -> None:
    exercise = quick_exercise()
    folder = small_class(tmp_path / "class")
    out = tmp_path / "out"
    run_batch(folder, out, BatchOptions(exercise=exercise, jobs=2, progress=False))
    path = out / "gradebook.sqlite"
    exercises = {exercise.id: exercise}
    with Gradebook(path) as book:
        _, expected = decoded_view(book, [], exercises)
        assert counted_view(book, book.latest(), [], "A class", exercises) == expected
        assert expected.sections[0].mistakes and expected.sections[0].checks
    page = (out / "class-report.html").read_text()
    as_schema_1(path)
    with Gradebook(path) as book:
        assert book.meta("schema_version") == "2"
        assert counted_view(book, book.latest(), [], "A class", exercises) == expected
    again = run_batch(folder, out, BatchOptions(exercise=exercise, jobs=2, progress=False))
    assert (again.graded, again.reused) == (0, 3)
    assert (out / "class-report.html").read_text() == page


def test_latest_decodes_no_report_until_one_is_asked_for(tmp_path, monkeypatch) -> None:
    book, _ = gradebook_of_a_class(tmp_path / "gradebook.sqlite")
    with book:
        decoded = []
        loads = json.loads
        monkeypatch.setattr(gradebook.json, "loads", lambda text: decoded.append(1) or loads(text))
        gradings = book.latest()
        assert decoded == []
        ann = next(g for g in gradings if g.student == "ann")
        assert ann.milestone_scores == [("train", 40.0, 50.0), ("encode", 40.0, 40.0),
                                        ("efficiency", 10.0, 10.0)]
        assert ann.report["exercise"] == "bpe-train-encode"
        assert ann.student_output == "ann printed this"
        assert json.dumps(ann.report) == json.dumps(book.stored(ann.id)[0])
        assert len(decoded) == 3
