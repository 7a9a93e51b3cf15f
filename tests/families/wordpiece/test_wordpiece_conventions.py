"""WordPiece honours every convention it accepts and refuses the one it does not follow.

Its judges, student-style programs and audit write merges as ``(a, b)`` pairs only, so a spec
declaring ``merge_form: pairs-with-token`` is refused by ``grade check`` with the reason, and
the schema offers the family only pairs. Every other corpus form, marker and tie rule is
followed: a correct student-style program written in it scores full marks under it, and one
following the shipped spec's conventions instead does not.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.wordpiece.students import student_source
from grader.grading.engine import grade_submission
from grader.spec import load_exercise

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "exercises" / "wordpiece.yaml"


def test_merges_with_their_token_are_refused_with_the_reason(tmp_path):
    text = SPEC.read_text(encoding="utf-8")
    assert "  merge_form: pairs\n" in text
    spec = tmp_path / "wordpiece-copy.yaml"
    spec.write_text(text.replace("id: wordpiece\n", "id: wordpiece-copy\n")
                    .replace("  merge_form: pairs\n", "  merge_form: pairs-with-token\n"),
                    encoding="utf-8")
    checked = CliRunner().invoke(main, ["check", str(spec)])
    assert checked.exit_code != 0
    assert ("conventions.merge_form: 'pairs-with-token' is not supported here, only 'pairs': "
            "WordPiece's merges are (a, b) pairs") in checked.output


def test_the_schema_offers_wordpiece_only_pairs():
    schema = json.loads(CliRunner().invoke(main, ["schema"]).output)
    wordpiece = schema["$defs"]["WordpieceConventions"]["properties"]
    assert wordpiece["merge_form"]["const"] == "pairs"
    assert len(wordpiece["tie_break"]["enum"]) == 4
    assert set(wordpiece["corpus_form"]["enum"]) == {"texts", "word-counts"}


def _with(exercise, **changed):
    return exercise.model_copy(update={"conventions": exercise.conventions.model_copy(update=changed)})


@pytest.mark.parametrize("changed", [{"tie_break": "reverse-lexicographic"},
                                     {"end_of_word": ""}])
def test_a_convention_it_accepts_is_the_one_it_grades(tmp_path, changed):
    shipped = load_exercise("wordpiece")
    exercise = _with(shipped, **changed)
    following = tmp_path / "following.py"
    following.write_text(student_source(exercise), encoding="utf-8")
    ignoring = tmp_path / "ignoring.py"
    ignoring.write_text(student_source(shipped), encoding="utf-8")
    assert grade_submission(following, exercise).score == 100
    assert grade_submission(ignoring, exercise).score < 100
