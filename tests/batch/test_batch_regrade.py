"""A regrade's impact: a class graded, then a spec's points and one student's file changed;
a dry run shows who goes up or down without touching the gradebook or the exports, the real
run writes regrade.csv and the class report's "What changed", and the exports follow the
grading policy (latest, no-decrease, keep-best), which the gradebook remembers."""

from __future__ import annotations

import csv
import io
import re
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from grader.batch.batch import BatchOptions, run_batch

from batch_helpers import SUBMISSIONS, copy, quick_exercise, small_class

WORSE = SUBMISSIONS / "broken_none.py"


@pytest.fixture(scope="module")
def exercise():
    return quick_exercise()


@pytest.fixture(scope="module")
def changed(exercise):
    """The same exercise with 5 points fewer on its first milestone."""
    milestones = list(exercise.milestones)
    milestones[0] = milestones[0].model_copy(update={"points": milestones[0].points - 5})
    return exercise.model_copy(update={"milestones": milestones})


@pytest.fixture(scope="module")
def graded(tmp_path_factory, exercise):
    """A class graded once (policy latest): its submissions and output folders."""
    root = tmp_path_factory.mktemp("regrade")
    folder = small_class(root / "class")
    run_batch(folder, root / "out", options(exercise))
    return root


def options(exercise, **more) -> BatchOptions:
    return BatchOptions(exercise=exercise, jobs=2, progress=False,
                        output=_canvas(), **more)


def _canvas():
    from grader.batch.outputs import OutputSettings

    return OutputSettings(csv_formats=("plain", "canvas"))


def rows(path: Path) -> dict[str, dict[str, str]]:
    return {row["student"]: row for row in csv.DictReader(io.StringIO(path.read_text()))}


def canvas(path: Path) -> dict[str, str]:
    table = list(csv.reader(io.StringIO(path.read_text())))
    return {row[2]: row[-1] for row in table[2:]}


def gradings(out: Path) -> int:
    with closing(sqlite3.connect(out / "gradebook.sqlite")) as db:
        return db.execute("SELECT COUNT(*) FROM gradings").fetchone()[0]


def number(text: str) -> float:
    return float(text)


@pytest.fixture(scope="module", params=["latest", "no-decrease", "keep-best"])
def regraded(request, graded, exercise, changed, tmp_path_factory):
    """For one policy: a copy of the graded class, a dry run after the change, then the real
    run; what each left behind."""
    policy = request.param
    root = tmp_path_factory.mktemp(policy)
    folder = shutil.copytree(graded / "class", root / "class")
    out = shutil.copytree(graded / "out", root / "out")
    first = rows(out / "grades.csv")
    files = {name: (out / name).read_bytes()
             for name in ("grades.csv", "grades-canvas.csv", "class-report.html",
                          "gradebook.sqlite", "reports/bob.html")}
    copy(WORSE, folder / "bob.py")  # bob hands in a worse file
    dry = run_batch(folder, out, options(changed, policy=policy, dry_run=True))
    after_dry = {name: (out / name).read_bytes() for name in files}
    count_after_dry = gradings(out)
    dry_csv = (out / "regrade-dry-run.csv").read_text()
    real = run_batch(folder, out, options(changed, policy=policy))
    return {"policy": policy, "out": out, "folder": folder, "first": first, "files": files,
            "dry": dry, "after_dry": after_dry, "count_after_dry": count_after_dry,
            "dry_csv": dry_csv, "real": real}


def test_the_dry_run_shows_the_impact_and_changes_nothing(regraded) -> None:
    dry = regraded["dry"]
    assert regraded["after_dry"] == regraded["files"]  # exports and class report untouched
    assert regraded["count_after_dry"] == 3  # no grading added to the gradebook
    text = "\n".join(dry.lines())
    # a readable summary: counts up and down, the largest changes with their causes
    assert re.search(r"dry run, regrade: 3 graded: 0 up, 3 down, 0 unchanged", text), text
    assert "largest changes: bob " in text and "submission, spec" in text
    assert "the gradebook and the exports are unchanged" in text
    before = regraded["first"]
    table = {row["student"]: row for row in csv.DictReader(io.StringIO(regraded["dry_csv"]))}
    assert set(table) == {"alice", "bob", "carol"}
    assert table["bob"]["before"] == before["bob"]["total"]
    assert table["alice"]["why"] == "spec" and table["bob"]["why"] == "submission, spec"


def test_the_real_run_takes_the_dry_run_s_gradings_and_writes_regrade_csv(regraded, exercise,
                                                                           changed) -> None:
    out, real, before = regraded["out"], regraded["real"], regraded["first"]
    assert (real.graded, real.from_preview) == (3, 3)  # nothing graded twice
    assert gradings(out) == 6
    assert not (out / "regrade-preview.sqlite").exists()
    assert not (out / "regrade-dry-run.csv").exists()
    regrade = (out / "regrade.csv").read_text()
    assert regrade == regraded["dry_csv"]  # what the dry run showed is what was applied
    table = rows(out / "regrade.csv")
    assert list(csv.reader(io.StringIO(regrade)))[0] == [
        "student", "exercise", "before", "after", "change", "milestones", "why", "exported",
        "note"]
    train = exercise.milestones[0]
    old, new = train.points, changed.milestones[0].points
    assert table["alice"]["before"] == "85" and table["alice"]["after"] == "80"
    assert table["alice"]["change"] == "-5"
    assert table["alice"]["milestones"] == f"{train.id} {old:g}→{new:g} (of {old:g}→{new:g})"
    for student in ("alice", "bob", "carol"):
        row = table[student]
        assert number(row["after"]) < number(row["before"])
        assert number(row["change"]) == pytest.approx(
            number(row["after"]) - number(row["before"]), abs=0.011)
    assert number(table["bob"]["after"]) < number(before["bob"]["total"]) / 2


def test_the_exports_follow_the_policy(regraded) -> None:
    out, policy, before = regraded["out"], regraded["policy"], regraded["first"]
    table = rows(out / "regrade.csv")
    grades = rows(out / "grades.csv")
    in_canvas = canvas(out / "grades-canvas.csv")
    expected = {}
    if policy == "latest":
        expected = {s: table[s]["after"] for s in table}
    elif policy == "no-decrease":  # everyone went down: everyone keeps the grade they had
        expected = {s: before[s]["total"] for s in table}
    else:  # keep-best: the same files are re-judged; bob's earlier file is his best
        expected = {"alice": table["alice"]["after"], "carol": table["carol"]["after"],
                    "bob": before["bob"]["total"]}
    for student, total in expected.items():
        assert grades[student]["total"] == total, (student, grades[student])
        assert in_canvas[student] == total
        assert table[student]["exported"] == total
        kept = total != table[student]["after"]
        assert bool(table[student]["note"]) == kept
        if kept:  # the grades, the regrade table and the student's report say why
            assert f"kept {total}" in table[student]["note"]
            assert f"({policy})" in table[student]["note"] or f"; {policy})" in table[student]["note"]
            assert table[student]["note"] in grades[student]["reason"]
            report = (out / "reports" / f"{student}.html").read_text()
            assert f"Your recorded grade: kept {total}" in report
            assert f"the new grading gives {table[student]['after']}" in report
    # the milestones exported are those of the grading whose total is exported
    bob = grades["bob"]
    milestone_total = sum(number(bob[m]) for m in bob if m not in (
        "student", "total", "outcome", "reason"))
    assert milestone_total == pytest.approx(number(bob["total"]), abs=0.02)


def test_the_class_report_says_what_changed(regraded) -> None:
    out, policy = regraded["out"], regraded["policy"]
    page = (out / "class-report.html").read_text()
    section = page[page.index('id="what-changed"'):page.index('id="exercise-')]
    assert "3 graded: 0 up, 3 down, 0 unchanged" in section
    assert f"policy: {policy}" in section
    table = rows(out / "regrade.csv")
    for student, row in table.items():
        assert f'<span class="student-id">{student}</span>' in section
        assert f"<td>{row['why']}</td>" in section
        if row["note"]:
            assert row["note"] in section
    assert 'href="regrade.csv"' in section


def test_the_recorded_policy_is_followed_when_none_is_given(regraded, changed) -> None:
    out, folder, policy = regraded["out"], regraded["folder"], regraded["policy"]
    exports = (out / "grades.csv").read_bytes()
    again = run_batch(folder, out, options(changed))  # no --policy: the recorded one
    assert (again.graded, again.reused) == (0, 3)
    assert f"policy: {policy} (as recorded in the gradebook)" in again.lines()
    assert "regrade: no stored grade changes" in "\n".join(again.lines())
    assert (out / "grades.csv").read_bytes() == exports
    page = (out / "class-report.html").read_text()
    assert 'id="what-changed"' not in page  # a run that changed nothing has nothing to say
    assert rows(out / "regrade.csv")  # and leaves the last regrade's table as it was


def test_switching_policy_is_said_and_moves_only_the_exports(graded, exercise, changed,
                                                             tmp_path) -> None:
    folder = shutil.copytree(graded / "class", tmp_path / "class")
    out = shutil.copytree(graded / "out", tmp_path / "out")
    copy(WORSE, folder / "bob.py")
    run_batch(folder, out, options(exercise, policy="no-decrease"))
    kept = rows(out / "grades.csv")["bob"]["total"]
    switched = run_batch(folder, out, options(exercise, policy="latest"))
    lines = "\n".join(switched.lines())
    assert "policy: latest (switched from no-decrease" in lines
    assert switched.graded == 0
    table = rows(out / "regrade.csv")
    assert list(table) == ["bob"] and table["bob"]["why"] == "policy"
    assert table["bob"]["before"] == kept != rows(out / "grades.csv")["bob"]["total"]
    assert "Your recorded grade" not in (out / "reports" / "bob.html").read_text()


def test_the_command_as_written_shows_a_dry_run_then_applies_it(tmp_path) -> None:
    """``grade batch … --policy no-decrease``, a spec's points and one file changed, then
    ``--dry-run`` and the same command without it, as an instructor types them."""
    import yaml
    from click.testing import CliRunner

    from grader.commands.cli import main
    from grader.spec.loading import exercise_path

    from batch_helpers import CORRECT, WRONG

    data = yaml.safe_load(exercise_path("bpe-train-encode").read_text(encoding="utf-8"))
    data["properties"]["examples"] = 6
    data["milestones"] = [m for m in data["milestones"]
                          if all(c["kind"] != "efficiency" for c in m["checks"])]
    spec = tmp_path / "course" / "week3.yaml"
    spec.parent.mkdir()
    spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    folder = tmp_path / "submissions"
    copy(CORRECT, folder / "ann.py")
    copy(WRONG, folder / "ben.py")
    out = tmp_path / "graded"

    def grade(*more: str):
        result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(out), "--exercise",
                                           str(spec), "--csv", "canvas", "--jobs", "2", *more],
                                    prog_name="grade")
        assert result.exit_code == 0, result.output
        return result.output

    first = grade("--policy", "no-decrease")
    assert "policy: no-decrease (recorded in the gradebook" in first
    assert not (out / "regrade.csv").exists()  # a first grading is no regrade
    grades = (out / "grades.csv").read_text()
    data["milestones"][1]["points"] += 10  # encode is worth 10 more
    spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    copy(WRONG, folder / "ann.py")  # ann hands in a worse file
    dry = grade("--dry-run")
    assert "dry run, regrade: 2 graded: 1 up, 1 down, 0 unchanged; 1 keep an earlier " \
           "grade in the exports (no-decrease)" in dry
    assert "policy: no-decrease (as recorded in the gradebook)" in dry
    assert re.search(r"largest changes: ann 85 → [\d.]+ \(-[\d.]+; submission, spec\); "
                     r"ben [\d.]+ → [\d.]+ \(\+[\d.]+; spec\)", dry), dry
    assert "wrote " + str(out / "regrade-dry-run.csv") in dry
    assert (out / "grades.csv").read_text() == grades
    applied = grade()
    assert "2 graded (2 of them taken from the dry run)" in applied
    table = rows(out / "regrade.csv")
    exported = rows(out / "grades.csv")
    assert exported["ann"]["total"] == "85" and "kept 85" in exported["ann"]["reason"]
    assert exported["ben"]["total"] == table["ben"]["after"] != table["ben"]["before"]
    assert canvas(out / "grades-canvas.csv") == {"ann": "85", "ben": table["ben"]["after"]}
    assert "Points Possible,,,,,95" in (out / "grades-canvas.csv").read_text()


def test_a_student_who_hands_in_an_earlier_file_again_is_graded_on_it(tmp_path, exercise) -> None:
    from batch_helpers import CORRECT, WRONG

    folder, out = tmp_path / "class", tmp_path / "out"
    copy(CORRECT, folder / "alice.py")
    run_batch(folder, out, options(exercise))
    full = rows(out / "grades.csv")["alice"]["total"]
    copy(WRONG, folder / "alice.py")
    run_batch(folder, out, options(exercise))
    assert rows(out / "grades.csv")["alice"]["total"] != full
    copy(CORRECT, folder / "alice.py")  # back to the first file
    again = run_batch(folder, out, options(exercise))
    assert (again.graded, again.reused) == (1, 0)
    assert rows(out / "grades.csv")["alice"]["total"] == full
    assert rows(out / "regrade.csv")["alice"]["why"] == "submission"


def test_merged_shards_export_what_each_shard_exported_under_its_policy(graded, exercise,
                                                                        changed, tmp_path) -> None:
    from grader.batch.gradebook import GradebookError
    from grader.batch.merge import merge
    from grader.batch.sharding import Shard

    folder = shutil.copytree(graded / "class", tmp_path / "class")
    shards = []
    for number in (1, 2):
        out = tmp_path / f"part{number}"
        run_batch(folder, out, options(exercise, policy="no-decrease", shard=Shard(number, 2)))
        shards.append(out)
    copy(WORSE, folder / "bob.py")
    for number, out in enumerate(shards, 1):
        run_batch(folder, out, options(changed, shard=Shard(number, 2)))
    merged = tmp_path / "merged"
    merge(shards, merged)
    from_shards = {}
    for out in shards:
        from_shards.update(rows(out / "grades.csv"))
    together = rows(merged / "grades.csv")
    assert {s: r["total"] for s, r in together.items()} == {
        s: r["total"] for s, r in from_shards.items()}
    assert "kept" in together["bob"]["reason"]  # bob's worse file did not lower his grade
    other = tmp_path / "other"
    run_batch(folder, other, options(changed, policy="keep-best", shard=Shard(1, 2)))
    with pytest.raises(GradebookError, match="different grading policies"):
        merge([shards[1], other], tmp_path / "refused")
