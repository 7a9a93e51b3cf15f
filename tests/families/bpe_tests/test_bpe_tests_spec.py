"""The spec rules of a test-writing exercise, through ``grade check``."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from grader.commands.cli import main

SHIPPED = Path(__file__).parents[3] / "exercises" / "bpe-tests.yaml"


def check(tmp_path, old: str, new: str):
    text = SHIPPED.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "bpe-tests.yaml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return CliRunner().invoke(main, ["check", str(path)])


def test_the_shipped_spec_is_clean(tmp_path):
    result = check(tmp_path, "id: bpe-tests", "id: bpe-tests")
    assert result.exit_code == 0 and "37 catalogued mistakes in 8 groups" in result.output


def test_a_group_graded_twice_is_named(tmp_path):
    result = check(tmp_path, "groups: [counting]", "groups: [counting, ties]")
    assert result.exit_code == 3
    assert "group 'ties' is already graded by milestones[1]" in result.output


def test_a_catches_check_without_groups_and_a_function_check_are_refused(tmp_path):
    result = check(tmp_path, "groups: [merging], checks: [{kind: catches}]",
                   "checks: [{kind: catches}, {kind: cases}]")
    assert result.exit_code == 3
    assert "name the groups of mistakes this catches check grades" in result.output
    assert "a tests milestone has one check: valid or catches" in result.output


def test_an_unknown_group_is_refused(tmp_path):
    result = check(tmp_path, "groups: [ties]", "groups: [tie]")
    assert result.exit_code in (2, 3) and "tie" in result.output and "ties" in result.output


def test_a_served_module_may_not_shadow_the_standard_library_or_the_students_file(tmp_path):
    result = check(tmp_path, "tests: {module: bpe,", "tests: {module: json,")
    assert result.exit_code == 3 and "'json' is a standard-library module" in result.output
    result = check(tmp_path, "tests: {module: bpe,", "tests: {module: test_bpe,")
    assert result.exit_code == 3 and "is the name of the students' own file" in result.output
