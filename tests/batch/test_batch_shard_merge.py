"""Several machines: shards graded apart and merged give what one run gives."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from grader.batch.batch import BatchOptions, run_batch
from grader.batch.gradebook import Gradebook, GradebookError
from grader.batch.merge import merge
from grader.batch.sharding import Shard

from batch_helpers import CORRECT, TIE_FIRST_SEEN, WRONG, copy, quick_exercise


def grades(folder: Path) -> list[list[str]]:
    with (folder / "grades.csv").open() as handle:
        return list(csv.reader(handle))


def test_shards_merged_equal_one_run(tmp_path: Path) -> None:
    exercise = quick_exercise()
    folder = tmp_path / "class"
    for index, source in enumerate([CORRECT, WRONG, TIE_FIRST_SEEN, CORRECT, WRONG]):
        copy(source, folder / f"s{index}.py")
    (folder / "notes.txt").write_text("not a submission")

    def batch(out: str, shard: Shard | None = None):
        return run_batch(folder, tmp_path / out, BatchOptions(exercise=exercise, jobs=2,
                                                              shard=shard, progress=False))

    whole = batch("whole")
    first, second = batch("one", Shard(1, 2)), batch("two", Shard(2, 2))
    assert first.students + second.students == whole.students == 5
    assert first.students and second.students
    assert len(first.unusable) + len(second.unusable) == 1
    summary = merge([tmp_path / "one", tmp_path / "two"], tmp_path / "merged")
    assert (summary.copied, summary.students, summary.conflicts) == (5, 5, [])
    assert grades(tmp_path / "merged") == grades(tmp_path / "whole")
    with Gradebook(tmp_path / "merged" / "gradebook.sqlite") as merged, \
            Gradebook(tmp_path / "whole" / "gradebook.sqlite") as one:
        key = lambda g: (g.student, g.submission_sha256, g.spec_sha256, g.score)  # noqa: E731
        assert [key(g) for g in merged.latest()] == [key(g) for g in one.latest()]
        assert merged.unusable() == one.unusable()
    assert sorted(p.name for p in (tmp_path / "merged" / "reports").iterdir()) == [
        f"s{i}.html" for i in range(5)]
    assert "notes.txt" in (tmp_path / "merged" / "class-report.html").read_text()
    again = merge([tmp_path / "one", tmp_path / "two"], tmp_path / "merged")
    assert again.copied == 0  # merging twice copies nothing twice


def test_merge_refuses_bad_sources(tmp_path: Path) -> None:
    with pytest.raises(GradebookError, match="no gradebook.sqlite"):
        merge([tmp_path], tmp_path / "out")
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "gradebook.sqlite").write_text("not a database, just text " * 50)
    with pytest.raises(GradebookError, match="not a usable gradebook"):
        merge([tmp_path / "junk"], tmp_path / "out")


def test_a_merged_class_report_names_hidden_cases_only_for_specs_still_unchanged(tmp_path: Path) -> None:
    from grader.batch.merge import unchanged_exercises
    from grader.spec import load_exercise

    folder = tmp_path / "class"
    copy(WRONG, folder / "bob.py")
    shipped = load_exercise("hand-bpe")  # graded without running code: quick
    (folder / "ada.yaml").write_text("student: \"ada\"\n", encoding="utf-8")
    run_batch(folder, tmp_path / "shipped", BatchOptions(exercise=shipped, jobs=1, progress=False))
    run_batch(folder, tmp_path / "edited", BatchOptions(exercise=quick_exercise(), jobs=1,
                                                         progress=False))
    with Gradebook(tmp_path / "shipped" / "gradebook.sqlite") as book:
        assert set(unchanged_exercises(book.latest())) == {"hand-bpe"}
    with Gradebook(tmp_path / "edited" / "gradebook.sqlite") as book:
        assert unchanged_exercises(book.latest()) == {}  # another spec than the shipped one
    merge([tmp_path / "edited"], tmp_path / "merged")
    page = (tmp_path / "merged" / "class-report.html").read_text()
    assert "Hidden case" in page  # not named after a spec it may not have been graded with
