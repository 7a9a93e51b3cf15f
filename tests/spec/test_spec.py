"""Loading exercise specs: the shipped exercises, and broken specs reported with file, line and field.

Every fixture under tests/specs/ is a copy of valid-minimal.yaml with one mistake. Its header
states the field and message expected; the line is the one marked ``# ERROR``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.spec.loading import exercise_ids, exercises_dir
from grader.spec import (
    ExerciseNotFound,
    SpecError,
    available_exercises,
    load_exercise,
    parse_exercise,
)

SPECS = Path(__file__).parents[1] / "specs"
BROKEN = sorted(
    path for path in SPECS.glob("*.yaml") if path.stem not in ("valid-minimal", "wrong-merges")
)


def fixture_expectation(path: Path) -> tuple[int, str, str]:
    text = path.read_text(encoding="utf-8")
    field = re.search(r"^# A spec with one mistake\. expect-field: (.*)$", text, re.M).group(1)
    message = re.search(r"^# expect-message: (.*)$", text, re.M).group(1)
    marked = [n for n, line in enumerate(text.splitlines(), 1) if line.endswith("# ERROR")]
    assert len(marked) == 1, f"{path.name} must mark exactly one line with # ERROR"
    return marked[0], field.strip(), message.strip()


def test_there_are_at_least_twelve_broken_specs():
    assert len(BROKEN) >= 12


@pytest.mark.parametrize("path", BROKEN, ids=lambda p: p.stem)
def test_broken_spec_reports_file_line_field_and_message(path):
    line, field, message = fixture_expectation(path)
    with pytest.raises(SpecError) as raised:
        load_exercise(path)
    problems = raised.value.problems
    matching = [p for p in problems if p.line == line and p.field == field and message in p.message]
    assert matching, f"expected line {line}, field {field!r}, message {message!r}; got:\n{raised.value}"
    assert all(p.file.endswith(path.name) for p in problems)
    assert f"{path.name}:{line}: " in str(raised.value)


def test_the_fixture_every_broken_spec_starts_from_is_valid():
    exercise = load_exercise(SPECS / "valid-minimal.yaml")
    assert exercise.id == "valid-minimal"
    assert [m.id for m in exercise.milestones] == ["train", "encode"]


def test_shipped_exercises_load_and_are_found_by_id():
    shipped = sorted(path.stem for path in exercises_dir().glob("*.yaml"))
    assert exercise_ids() == shipped
    assert {"bpe-train-encode", "byte-bpe", "hand-bpe", "wordpiece"} <= set(shipped)
    loaded = available_exercises()
    assert [e.id for e in loaded] == exercise_ids()
    for exercise in loaded:
        assert exercise.source == exercises_dir() / f"{exercise.id}.yaml"
        assert load_exercise(exercise.id).model_dump() == exercise.model_dump()


def test_bpe_train_encode_follows_the_solved_problem():
    exercise = load_exercise("bpe-train-encode")
    assert exercise.conventions.corpus_form == "texts"
    assert exercise.conventions.tie_break == "lexicographic"
    assert exercise.conventions.merge_form == "pairs"
    assert [m.id for m in exercise.milestones] == ["train", "encode", "efficiency"]
    assert exercise.function("train").name == "train_bpe"
    assert exercise.function("encode").name == "encode"
    assert exercise.total_points == 100
    hidden = {case.id for case in exercise.hidden_cases}
    assert {"four-way-tie", "repeated-symbols", "unicode", "early-stop"} <= hidden


def test_lesson97_follows_the_decks_code():
    exercise = load_exercise("lesson97-bpe")
    assert exercise.conventions.corpus_form == "word-counts"
    assert exercise.conventions.tie_break == "first-seen"
    assert exercise.conventions.merge_form == "pairs-with-token"
    assert [m.id for m in exercise.milestones] == ["train", "tokenize", "sequence-lengths",
                                                   "vocab-tradeoff"]
    assert exercise.function("encode").name == "tokenize"
    assert exercise.function("sequence_lengths").name == "sequence_lengths"
    sentences = [c.sentence for c in exercise.public_cases if c.sentence]
    assert sentences[0] == "subword tokenization handles rare words elegantly"
    assert "49" in exercise.instructions and "44" in exercise.instructions


def test_unknown_id_lists_the_available_exercises():
    with pytest.raises(ExerciseNotFound, match="available: " + re.escape(", ".join(exercise_ids()))):
        load_exercise("no-such-exercise")


def test_missing_file_is_reported_as_such(tmp_path):
    with pytest.raises(ExerciseNotFound, match="no such file"):
        load_exercise(tmp_path / "absent.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "the spec is empty"), ("- a\n- b\n", "the spec is a list"), ("just text\n", "the spec is a str")],
)
def test_a_spec_that_is_not_a_mapping_says_what_it_is(text, message):
    with pytest.raises(SpecError, match=message):
        parse_exercise(text, "x.yaml")


def test_every_problem_is_reported_at_once():
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    text = text.replace("tie_break: lexicographic", "tie_break: alphabetic")
    text = text.replace("num_merges: 1", "num_merges: -4")
    with pytest.raises(SpecError) as raised:
        parse_exercise(text, "two.yaml")
    fields = [p.field for p in raised.value.problems]
    assert fields == ["conventions.tie_break", "cases[2].num_merges"]


def test_yaml_booleans_used_as_words_get_a_quoting_hint():
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    text = text.replace("corpus_form: texts", "corpus_form: word-counts")
    text = text.replace('corpus: ["low low lower"]', "corpus: {low: 2, yes: 1}")
    text = text.replace('corpus: ["ab ab abc"]', "corpus: {ab: 1}").replace('corpus: ["aaa"]', "corpus: {a: 1}")
    with pytest.raises(SpecError) as raised:
        parse_exercise(text, "bool.yaml")
    (problem,) = raised.value.problems
    assert problem.field == "cases[0].corpus[True]"
    assert "put it in quotes" in problem.message


def test_unknown_key_in_a_list_item_names_the_allowed_keys():
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    text = text.replace("    points: 40\n", "    points: 40\n    pionts: 3\n")
    with pytest.raises(SpecError) as raised:
        parse_exercise(text, "m.yaml")
    (problem,) = raised.value.problems
    assert problem.field == "milestones[1].pionts"
    assert "did you mean 'points'?" in problem.message
    assert "allowed: id, title, points, function, checks" in problem.message
    assert problem.line == text.splitlines().index("    pionts: 3") + 1


def test_a_case_no_milestone_uses_is_an_error():
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    text = text.replace("      - {kind: cases, weight: 2}\n", "")
    with pytest.raises(SpecError) as raised:
        parse_exercise(text, "unused.yaml")
    assert [(p.field, p.line) for p in raised.value.problems] == [
        ("cases[1]", text.splitlines().index("  - id: second") + 1),
        ("cases[2]", text.splitlines().index("  - id: third") + 1),
    ]
    assert all("used by no milestone" in p.message for p in raised.value.problems)


SHIPPED_AND_FIXTURES = sorted(exercises_dir().glob("*.yaml")) + sorted(SPECS.glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED_AND_FIXTURES, ids=lambda path: path.name)
def test_libyaml_reads_every_spec_as_the_pure_python_loader_does(path):
    import yaml

    from grader.spec import yaml_lines

    if yaml_lines.FAST_LOADER is yaml.SafeLoader:
        pytest.skip("PyYAML is built without libyaml here")
    text = path.read_text(encoding="utf-8")

    def read(loader):
        try:
            data, document = yaml_lines._parse(text, loader)
        except yaml.YAMLError as error:
            return "error", str(error)
        return data, document.lines, document.duplicates

    fast, plain = read(yaml_lines.FAST_LOADER), read(yaml.SafeLoader)
    if plain[0] == "error":
        assert fast[0] == "error", "libyaml accepted a document the pure-Python loader refuses"
        with pytest.raises(yaml.YAMLError) as raised:
            yaml_lines.parse_yaml(text)
        assert str(raised.value) == plain[1], "the error is not the pure-Python loader's"
    else:
        assert fast == plain
        assert yaml_lines.parse_yaml(text) is not None


# --------------------------------------------------------------------------- families


def test_a_spec_without_a_family_gets_the_one_its_roles_belong_to():
    minimal = parse_exercise((SPECS / "valid-minimal.yaml").read_text(encoding="utf-8"), "m.yaml")
    assert minimal.family == "bpe"
    shipped = (exercises_dir() / "wordpiece.yaml").read_text(encoding="utf-8")
    assert parse_exercise(shipped.replace("family: wordpiece\n", ""), "w.yaml").family == "wordpiece"


def test_kind_answers_still_names_the_hand_family():
    shipped = (exercises_dir() / "hand-bpe.yaml").read_text(encoding="utf-8")
    legacy = shipped.replace("family: hand\n", "kind: answers\n")
    assert "family:" not in legacy
    exercise = parse_exercise(legacy, "h.yaml")
    assert exercise.family == "hand" and exercise.kind == "answers"


def test_an_unknown_family_lists_the_families_and_where_a_course_keeps_its_own():
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    with pytest.raises(SpecError) as raised:
        parse_exercise(text.replace("id: valid-minimal\n", "id: valid-minimal\nfamily: klingon\n"), "m.yaml")
    (problem,) = raised.value.problems
    assert problem.field == "family" and problem.line == 3
    assert "no family 'klingon'" in problem.message and "bpe" in problem.message
    assert "families/klingon/" in problem.message and "docs/families.md" in problem.message


def test_a_role_of_another_family_says_which_family_has_it():
    text = (SPECS / "valid-minimal.yaml").read_text(encoding="utf-8")
    text = text.replace("  encode:\n    name: encode\n", "  train_wordpiece:\n    name: encode\n")
    with pytest.raises(SpecError) as raised:
        parse_exercise(text, "m.yaml")
    messages = [p.message for p in raised.value.problems if p.field == "functions.train_wordpiece"]
    assert messages and "not a role of the bpe family" in messages[0]
    assert "set family: wordpiece" in messages[0] and "docs/families.md" in messages[0]
