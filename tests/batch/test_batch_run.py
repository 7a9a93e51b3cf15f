"""Grading a class: the same reports as grading one by one, a gradebook row per grading, and
re-runs that grade only what changed (submission, spec, or on request)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from grader.batch.batch import BatchOptions, run_batch
from grader.batch.gradebook import Gradebook
from grader.grading.engine import grade_submission
from grader.report import render

from batch_helpers import (CORRECT, GRADESCOPE_METADATA, WRONG, copy, notebook, quick_exercise,
                           replace_tree, small_class)


@pytest.fixture(scope="module")
def exercise():
    return quick_exercise()


def options(exercise, **more) -> BatchOptions:
    return BatchOptions(exercise=exercise, jobs=2, progress=False, **more)


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, exercise):
    """The small class graded once into a fresh folder: (class, out, summary)."""
    root = tmp_path_factory.mktemp("graded")
    folder = small_class(root / "class")
    return folder, root / "out", run_batch(folder, root / "out", options(exercise))


def graded_copy(graded_class, tmp_path):
    """A copy of the graded class and its output, for a test to go on from."""
    folder, out, _ = graded_class
    return replace_tree(folder, tmp_path / "class"), replace_tree(out, tmp_path / "out")


def without_seconds(report: dict) -> dict:
    text = json.dumps(report, sort_keys=True)
    data = json.loads(text)
    data.pop("seconds", None)
    for milestone in data["milestones"]:
        for check in milestone["checks"]:
            check.pop("seconds", None)
    return data


def test_a_class_is_graded_into_the_gradebook_as_grade_submit_would(tmp_path, exercise,
                                                                   graded_class) -> None:
    summary = graded_class[2]
    folder, _ = graded_copy(graded_class, tmp_path)
    assert (summary.students, summary.graded, summary.reused, summary.unusable) == (3, 3, 0, [])
    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        rows = {g.student: g for g in book.latest()}
        bob_report = rows["bob"].report
    assert sorted(rows) == ["alice", "bob", "carol"]
    assert rows["alice"].score == rows["alice"].max_score == exercise.total_points
    assert rows["bob"].score < rows["carol"].score < rows["alice"].score
    alone = grade_submission(folder / "bob.py", exercise)
    # the stored report is the JSON result with each failing visible check's step view beside it
    stored_steps = {check["id"]: check.pop("steps") for milestone in bob_report["milestones"]
                    for check in milestone["checks"] if "steps" in check}
    assert stored_steps and stored_steps == {
        check.id: json.loads(json.dumps(check.steps)) for check in alone.checks if check.steps}
    assert without_seconds(bob_report) == without_seconds(alone.to_json())
    # the row carries what the grading depended on and what it found
    db = sqlite3.connect(tmp_path / "out" / "gradebook.sqlite")
    bob = db.execute("SELECT id, submission_sha256, spec_sha256, grader_version, outcome, "
                     "graded_at FROM latest WHERE student = 'bob'").fetchone()
    assert len(bob[1]) == len(bob[2]) == 64 and bob[3].startswith("0.") and bob[4] == "graded"
    milestones = db.execute("SELECT milestone, score FROM milestone_scores WHERE grading_id = ? "
                            "ORDER BY position", (bob[0],)).fetchall()
    assert [m for m, _ in milestones] == [m.id for m in exercise.milestones]
    assert sum(score for _, score in milestones) == pytest.approx(rows["bob"].score)
    mistakes = {m for (m,) in db.execute("SELECT mistake FROM mistakes WHERE grading_id = ?",
                                         (bob[0],))}
    assert {"ties-first-seen", "encode-longest-match"} <= mistakes
    assert (tmp_path / "out" / "reports" / "bob.html").read_text().count("Ties broken") >= 1


def test_a_rerun_grades_only_what_changed(tmp_path, exercise, graded_class) -> None:
    folder, out = graded_copy(graded_class, tmp_path)
    again = run_batch(folder, out, options(exercise))
    assert (again.graded, again.reused) == (0, 3)
    copy(CORRECT, folder / "bob.py")  # bob fixes his code
    copy(WRONG, folder / "dave.py")   # a late submission
    third = run_batch(folder, out, options(exercise))
    assert (third.graded, third.reused) == (2, 2)
    with Gradebook(out / "gradebook.sqlite") as book:
        latest = {g.student: g.score for g in book.latest()}
        assert book.count() == 5  # the history keeps bob's first grading
    assert latest["bob"] == exercise.total_points
    forced = run_batch(folder, out, options(exercise, regrade=True))
    assert (forced.graded, forced.reused) == (4, 0)


def test_a_changed_spec_regrades_everyone(tmp_path, exercise, graded_class) -> None:
    folder, out = graded_copy(graded_class, tmp_path)
    milestones = list(exercise.milestones)
    milestones[0] = milestones[0].model_copy(update={"points": milestones[0].points + 5})
    changed = exercise.model_copy(update={"milestones": milestones})
    summary = run_batch(folder, out, options(changed))
    assert (summary.graded, summary.reused) == (3, 0)
    with Gradebook(out / "gradebook.sqlite") as book:
        assert {g.max_score for g in book.latest()} == {exercise.total_points + 5}


def test_a_notebook_is_graded_like_the_same_code_in_a_py_file(tmp_path, exercise) -> None:
    folder = tmp_path / "class"
    copy(WRONG, folder / "asfile.py")
    source = WRONG.read_text()
    cut = source.index("\ndef encode")
    notebook(folder / "asnotebook.ipynb", source[:cut], source[cut:])
    (folder / "broken.ipynb").write_text("{ not json")
    summary = run_batch(folder, tmp_path / "out", options(exercise))
    [unusable] = summary.unusable
    assert unusable.line().startswith("broken.ipynb (student broken): broken.ipynb is not a "
                                      "readable Jupyter notebook")
    assert "save it again from Jupyter" in unusable.line()
    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        rows = {g.student: g for g in book.latest()}
    assert rows["asnotebook"].score == rows["asfile"].score < exercise.total_points


def test_the_exercise_comes_from_each_header_when_not_given(tmp_path) -> None:
    folder = tmp_path / "class"
    copy(CORRECT.parent.parent / "lesson97-bpe" / "student_correct.py", folder / "lina.py")
    (folder / "nohead.py").write_text("def train_bpe(corpus, n):\n    return []\n")
    summary = run_batch(folder, tmp_path / "out", BatchOptions(jobs=1, progress=False))
    assert summary.graded == 1
    assert [(u.entry, "no '# exercise: ID' line" in u.reason) for u in summary.unusable] == [
        ("nohead.py", True)]
    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        assert [(g.student, g.exercise, g.score) for g in book.latest()] == [
            ("lina", "lesson97-bpe", 100.0)]


def test_a_gradescope_export_is_graded_with_names_and_emails(tmp_path, exercise) -> None:
    folder = tmp_path / "export"
    folder.mkdir()
    (folder / "submission_metadata.yml").write_text(GRADESCOPE_METADATA)
    copy(CORRECT, folder / "submission_101" / "student.py")
    copy(WRONG, folder / "submission_102" / "student.py")
    (folder / "submission_104").mkdir()
    summary = run_batch(folder, tmp_path / "out", options(exercise))
    assert summary.layout == "gradescope" and summary.graded == 3
    assert sorted(u.entry for u in summary.unusable) == ["submission_103", "submission_104"]
    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        rows = [(g.student, g.name, g.email, g.score == exercise.total_points)
                for g in book.latest()]
    assert rows == [("1001", "Ada Lovelace", "ada@example.edu", True),
                    ("1002", "Alan Turing", "alan@example.edu", False),
                    ("grace@example.edu", "Grace Hopper", "grace@example.edu", False)]


def test_a_new_grader_version_or_other_settings_regrade(tmp_path, exercise, monkeypatch) -> None:
    import grader.batch.batch as batch_module

    folder = tmp_path / "class"
    copy(CORRECT, folder / "alice.py")
    out = tmp_path / "out"
    run_batch(folder, out, options(exercise))
    assert run_batch(folder, out, options(exercise)).reused == 1
    monkeypatch.setattr(batch_module, "grader_version", lambda: "9.9.9+src.000000000000")
    assert run_batch(folder, out, options(exercise)).graded == 1
    assert run_batch(folder, out, options(exercise)).reused == 1
    # grading settings (a course secret, say) are part of what a grading depends on
    other = options(exercise, grading_options={"strict_sandbox": False})
    assert run_batch(folder, out, other).graded == 1
    with Gradebook(out / "gradebook.sqlite") as book:
        [latest] = book.latest()
        assert latest.grader_version == "9.9.9+src.000000000000"
        assert book.count() == 3


def step_views(html: str) -> list[str]:
    """Every step view of a page (``<section class="sv" ...>`` to its closing tag)."""
    views, start = [], html.find('<section class="sv"')
    while start != -1:
        depth, at = 0, start
        while True:
            opening, closing = html.find("<section", at), html.find("</section>", at)
            if opening != -1 and opening < closing:
                depth, at = depth + 1, opening + 1
                continue
            depth, at = depth - 1, closing + len("</section>")
            if depth == 0:
                break
        views.append(html[start:at])
        start = html.find('<section class="sv"', at)
    return views


SECRET = "a course secret"


def test_the_batch_report_shows_the_step_view_grade_submit_shows(tmp_path, exercise) -> None:
    copy(WRONG, tmp_path / "class" / "bob.py")
    run_batch(tmp_path / "class", tmp_path / "out",
              options(exercise, grading_options={"seed_secret": SECRET}))
    batch_page = (tmp_path / "out" / "reports" / "bob.html").read_text(encoding="utf-8")
    alone = grade_submission(tmp_path / "class" / "bob.py", exercise, seed_secret=SECRET)
    submit_page = render(alone, "html")
    shown = step_views(batch_page)
    assert shown and shown == step_views(submit_page)
    assert len(shown) == sum(1 for check in alone.checks if check.steps)
    assert batch_page.count("data-divergence") == submit_page.count("data-divergence") >= 1
    assert batch_page.count("data-step=") == submit_page.count("data-step=")


def test_a_hidden_case_has_no_step_view_in_the_gradebook_or_the_batch_report(tmp_path,
                                                                             exercise) -> None:
    hidden = exercise.model_copy(update={"cases": [case.model_copy(update={"visibility": "hidden"})
                                                   for case in exercise.cases]})
    copy(WRONG, tmp_path / "class" / "bob.py")
    run_batch(tmp_path / "class", tmp_path / "out", options(hidden))
    with Gradebook(tmp_path / "out" / "gradebook.sqlite") as book:
        (bob,) = book.latest()
        report = book.stored(bob.id)[0]
    failed = [check for milestone in report["milestones"] for check in milestone["checks"]
              if check["id"].startswith("cases") and not check["passed"]]
    assert failed and all(check["visibility"] == "hidden" for check in failed)
    assert '"steps"' not in json.dumps(report)
    page = (tmp_path / "out" / "reports" / "bob.html").read_text(encoding="utf-8")
    assert "data-step" not in page and 'class="sv"' not in page and "<script" not in page
