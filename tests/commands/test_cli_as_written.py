"""The commands as the README writes them, on the inputs instructors and TAs hand them: each
runs to its documented end or stops with one clear line and the README's exit code."""

from __future__ import annotations

import json

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from grader.commands.cli import main
from grader.spec.loading import ENV_VAR, exercise_ids, use_exercise_dirs

REPO = Path(__file__).resolve().parents[2]
SUBMISSIONS = REPO / "tests" / "submissions"


def grade(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(autouse=True)
def no_course_folders(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    use_exercise_dirs([])
    yield
    use_exercise_dirs([])


def no_traceback(result) -> None:
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


# --------------------------------------------------------------------------- grade new


def test_new_creates_the_course_folder_of_its_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = grade("new", "week3-bpe", "--tie-break", "concatenated", "-o", "course/week3-bpe.yaml")
    assert result.exit_code == 0, result.output
    assert grade("check", "course/").exit_code == 0


def test_new_from_a_spec_grade_new_wrote(tmp_path):
    first = tmp_path / "first.yaml"
    assert grade("new", "first", "-o", str(first)).exit_code == 0
    second = tmp_path / "second.yaml"
    result = grade("new", "second", "--from", str(first), "--tie-break", "first-seen",
                   "-o", str(second))
    no_traceback(result)
    assert result.exit_code == 0, result.output
    ids = [case["id"] for case in yaml.safe_load(second.read_text(encoding="utf-8"))["cases"]]
    assert len(ids) == len(set(ids))
    assert grade("check", str(second)).exit_code == 0


@pytest.mark.parametrize("exercise", exercise_ids())
def test_new_from_every_shipped_exercise_writes_a_clean_spec_or_says_why_not(exercise, tmp_path):
    path = tmp_path / "copy.yaml"
    result = grade("new", "copy", "--from", exercise, "-o", str(path))
    no_traceback(result)
    if result.exit_code == 0:
        checked = grade("check", str(path))
        assert checked.exit_code == 0, checked.output
    else:
        assert result.exit_code == 2
        assert "grade new cannot start from" in result.output


def test_new_from_bpe_steps_keeps_its_step_functions(tmp_path):
    path = tmp_path / "steps.yaml"
    result = grade("new", "steps", "--from", "bpe-steps", "--tie-break", "lexicographic",
                   "-o", str(path))
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["functions"]["count_pairs"]["name"] == "get_stats"
    assert data["functions"]["merge_pair"]["name"] == "merge_vocab"
    assert "get_stats(vocab)" in data["instructions"]
    # the base's "the one met first wins" is false under the new rule: not copied
    tie_case = next(case for case in data["cases"] if case["id"] == "tie-first-seen")
    assert "description" not in tie_case
    assert grade("check", str(path)).exit_code == 0


# --------------------------------------------------------------------------- grade list


def test_list_shows_the_good_specs_and_names_the_broken_one(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    good = course / "week3-bpe.yaml"
    assert grade("new", "week3-bpe", "-o", str(good)).exit_code == 0
    (course / "week4-wip.yaml").write_text("id: week4-wip\ntitle: [\n", encoding="utf-8")
    result = grade("list", "--exercises-dir", str(course))
    no_traceback(result)
    assert result.exit_code == 2
    assert "week3-bpe  (100 points)" in result.stdout
    assert "bpe-train-encode" in result.stdout
    assert "week4-wip.yaml:3: YAML syntax error" in result.stderr
    as_json = grade("list", "--exercises-dir", str(course), "--format", "json")
    assert as_json.exit_code == 2
    assert "week3-bpe" in {row["id"] for row in json.loads(as_json.stdout)}
