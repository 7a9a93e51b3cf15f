"""Exercises are found by id in course folders (``--exercises-dir``, ``GRADE_EXERCISES_PATH``)
before the shipped ones, whatever their file names; mistakes say what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.spec import ExerciseNotFound, SpecError, load_exercise
from grader.spec.loading import ENV_VAR, exercise_ids, search_dirs, use_exercise_dirs

SHIPPED = Path(__file__).resolve().parents[2] / "exercises" / "bpe-train-encode.yaml"


@pytest.fixture(autouse=True)
def no_course_folders(monkeypatch):
    monkeypatch.delenv(ENV_VAR, raising=False)
    use_exercise_dirs([])
    yield
    use_exercise_dirs([])


def course_spec(folder: Path, exercise_id: str, file_name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = SHIPPED.read_text(encoding="utf-8").replace("id: bpe-train-encode", f"id: {exercise_id}", 1)
    path = folder / file_name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_course_folder_makes_its_specs_resolvable_by_the_id_they_declare(tmp_path):
    course_spec(tmp_path / "course", "week3-bpe", "Week 3 (final).yaml")
    with pytest.raises(ExerciseNotFound):
        load_exercise("week3-bpe")
    use_exercise_dirs([tmp_path / "course"])
    assert load_exercise("week3-bpe").id == "week3-bpe"
    assert "week3-bpe" in exercise_ids() and "bpe-train-encode" in exercise_ids()


def test_the_environment_variable_takes_colon_separated_folders(tmp_path, monkeypatch):
    course_spec(tmp_path / "a", "from-a", "from-a.yaml")
    course_spec(tmp_path / "b", "from-b", "spec.yml")
    monkeypatch.setenv(ENV_VAR, f"{tmp_path / 'a'}:{tmp_path / 'b'}")
    assert load_exercise("from-a").id == "from-a"
    assert load_exercise("from-b").id == "from-b"
    assert search_dirs()[:2] == [tmp_path / "a", tmp_path / "b"]


def test_course_folders_come_before_the_shipped_exercises(tmp_path):
    path = course_spec(tmp_path, "bpe-train-encode", "bpe-train-encode.yaml")
    use_exercise_dirs([tmp_path])
    assert load_exercise("bpe-train-encode").source == path


def test_any_file_name_works_for_a_spec_given_by_path(tmp_path):
    path = course_spec(tmp_path, "my-ex", "copy of the shipped one.yaml")
    assert load_exercise(path).id == "my-ex"


def test_an_unknown_id_names_the_folders_searched_and_the_ways_to_add_one():
    with pytest.raises(ExerciseNotFound) as raised:
        load_exercise("week9")
    message = str(raised.value)
    assert "no exercise 'week9'" in message and "the shipped exercises" in message
    assert "available: " + ", ".join(exercise_ids()) in message
    assert "--exercises-dir DIR or GRADE_EXERCISES_PATH" in message


def test_a_folder_is_not_an_exercise_and_the_error_says_what_to_do(tmp_path):
    with pytest.raises(ExerciseNotFound) as raised:
        load_exercise(tmp_path)
    assert "is a folder, not an exercise" in str(raised.value)
    assert f"--exercises-dir {tmp_path}" in str(raised.value)


def test_a_tab_in_the_indentation_gets_a_hint(tmp_path):
    path = tmp_path / "tabs.yaml"
    path.write_text("id: x\ntitle: t\nconventions:\n\tcorpus_form: texts\n", encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        load_exercise(path)
    [problem] = raised.value.problems
    assert problem.line == 4
    assert "YAML indents with spaces only" in problem.message


def test_a_misaligned_key_gets_an_indentation_hint(tmp_path):
    path = tmp_path / "indent.yaml"
    path.write_text("id: x\nconventions:\n    corpus_form: texts\n  tie_break: concatenated\n",
                    encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        load_exercise(path)
    assert "hint: check the indentation" in str(raised.value)


def test_a_spec_saved_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + SHIPPED.read_bytes())
    assert load_exercise(path).id == "bpe-train-encode"


def test_shape_and_meaning_problems_come_in_one_round(tmp_path):
    path = tmp_path / "two.yaml"
    path.write_text(
        "id: two\ntitle: t\nlesson: l\ninstructions: i\ncolour: blue\n"
        "conventions: {corpus_form: texts, tie_break: lexicographic}\n"
        "functions:\n  train: {name: train_bpe, signature: \"train_bpe(corpus: list[str], "
        "num_merges: int) -> list\", doc: d}\n"
        "milestones:\n  - {id: train, title: T, points: 10, function: encode, checks: [{kind: cases}]}\n"
        "cases:\n  - {id: a, visibility: public, corpus: [\"y\"], num_merges: -1}\n"
        "  - {id: c, visibility: public, corpus: {\"x\": 1}, num_merges: 1}\n",
        encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        load_exercise(path)
    fields = [p.field for p in raised.value.problems]
    assert "colour" in fields and "cases[0].num_merges" in fields  # shape
    assert "milestones[0].function" in fields and "cases[1].corpus" in fields  # meaning
