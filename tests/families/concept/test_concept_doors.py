"""A concept sheet goes through every door an answers file does: ``grade batch`` over a class
folder, and each LMS bundle's entry point with the bundle's own secret."""

from __future__ import annotations

import csv
import json

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.concept.answers import expected_answers
from grader.families.concept.audit import sheet_text
from grader.families.concept.variants import draw_sheet
from grader.spec import load_exercise
from support.doors import handed_in_by, points, run_door

EXERCISE = load_exercise("lesson97-checks")


def answers(student: str, secret: str, *, wrong: bool = False) -> str:
    """A student's sheet: right, or with check 2 answered as BPE would (15 points lost)."""
    right = expected_answers(EXERCISE, draw_sheet(EXERCISE, student, secret))
    if wrong:
        right = {**right, "check2-wordpiece-pick": "X"}
    return sheet_text(EXERCISE, student, right)


def test_a_class_of_sheets_is_batched_and_a_broken_one_is_recorded(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.yaml").write_text(answers("ada", "course"), encoding="utf-8")
    (folder / "bob.yaml").write_text(answers("bob", "course", wrong=True), encoding="utf-8")
    (folder / "cyd.yaml").write_text(answers("ada", "course"), encoding="utf-8")  # ada's copy
    (folder / "dee.yaml").write_text('student: "dee"\ncheck2_wordpiece_pick: !!binary aGk=\n',
                                     encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(out), "--exercise",
                                       "lesson97-checks", "--seed-secret", "course", "--jobs", "1"])
    assert result.exit_code == 0, result.output
    rows = {row["student"]: row for row in csv.DictReader((out / "grades.csv").open())}
    assert set(rows) == {"ada", "bob", "cyd", "dee"}
    assert float(rows["ada"]["total"]) == 100
    assert float(rows["bob"]["total"]) == 85
    assert float(rows["cyd"]["total"]) < 100  # graded on cyd's own order, not ada's
    assert float(rows["dee"]["total"]) == 0


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn", "classroom"])
def test_every_bundles_entry_point_grades_a_sheet_with_its_secret(tmp_path, platform):
    results, _ = run_door(tmp_path / "root", platform, EXERCISE,
                          {"answers.yaml": answers("ada", "bundle-secret", wrong=True)},
                          secret="bundle-secret", **handed_in_by(platform, "ada"))
    assert points(platform, results, EXERCISE.total_points) == pytest.approx(85)
    if platform == "prairielearn":
        assert results["gradable"] is True


@pytest.mark.parametrize("platform", ["gradescope", "prairielearn", "classroom"])
def test_a_classmates_sheet_through_a_door_that_names_no_one_earns_nothing(tmp_path, platform):
    """A group submission, a variant without its student, a push without an actor: the sheet's
    own student: line is not taken for who handed it in, and the report says why."""
    identity = (handed_in_by(platform, "ada", group=("bob",)) if platform == "gradescope"
                else handed_in_by(platform))
    results, log = run_door(tmp_path / "root", platform, EXERCISE,
                            {"answers.yaml": answers("bob", "bundle-secret")},
                            secret="bundle-secret", **identity)
    shown = json.dumps(results)
    if platform == "prairielearn":
        assert results["gradable"] is False, log[-2000:]
    else:
        assert points(platform, results, EXERCISE.total_points) == 0, log[-2000:]
    assert "so the grader cannot tell whose sheet it is graded on" in shown
    assert ("2 submitters" if platform == "gradescope" else "names no one") in shown
