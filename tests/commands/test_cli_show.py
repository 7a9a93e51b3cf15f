"""``grade show``: what students may read of a spec (its hidden cases left out, the rest as
written), and the whole file for instructors with ``--hidden``."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner

from grader.commands.cli import main
from grader.spec.loading import exercise_ids
from grader.spec.student_view import without_hidden_cases
from grader.spec import load_exercise


def show(*args: str) -> str:
    result = CliRunner().invoke(main, ["show", *args])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("exercise", exercise_ids())
def test_the_student_view_keeps_every_public_case_and_no_hidden_one(exercise):
    source = load_exercise(exercise).source.read_text(encoding="utf-8-sig")
    whole, shown = yaml.safe_load(source), yaml.safe_load(show(exercise))
    public = [case for case in whole.get("cases") or [] if case.get("visibility") != "hidden"]
    assert (shown.get("cases") or []) == public
    assert {key: value for key, value in shown.items() if key != "cases"} == \
        {key: value for key, value in whole.items() if key != "cases"}
    assert show(exercise, "--hidden") == source


def test_hidden_cases_between_public_ones_are_cut_with_their_lines():
    text = ("id: x\n# the cases\ncases:\n  - id: a\n    visibility: public\n"
            "  - id: b\n    visibility: hidden\n    corpus: [\"secret words\"]\n"
            "  - {id: c, visibility: hidden, corpus: [\"more secrets\"]}\n"
            "  - id: d\n    visibility: public\n# end\n")
    view, count = without_hidden_cases(text)
    assert count == 2 and "secret" not in view
    assert "# 2 hidden cases not shown" in view and view.endswith("# end\n")
    assert [case["id"] for case in yaml.safe_load(view)["cases"]] == ["a", "d"]
