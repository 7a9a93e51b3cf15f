"""Convention prose follows the spec: the stub's tie paragraph is computed from the declared
rule, and ``grade check`` rejects author texts that state another rule, marker, corpus form or
merge form, and warns when no public case tells the declared tie rule from another."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.spec import load_exercise
from grader.spec.check import check_spec
from grader.families.bpe.prose import (
    prose_problems,
    stated_rules,
    tie_cases,
    tie_paragraph,
    undistinguished_rules,
    worked_tie,
)
from grader.spec.stubs import render_stub
from reference import TIE_BREAKS, train_bpe
from reference.tie_breaks import DESCRIPTIONS, order_tied

SHIPPED = Path(__file__).resolve().parents[3] / "exercises"


def copy_with(tmp_path: Path, old: str, new: str, name: str = "copy.yaml") -> Path:
    text = (SHIPPED / "bpe-train-encode.yaml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


@pytest.mark.parametrize("rule", [r for r in TIE_BREAKS if r != "lexicographic"])
def test_a_copy_with_only_tie_break_changed_fails_check_and_its_stub_states_the_new_rule(tmp_path, rule):
    path = copy_with(tmp_path, "tie_break: lexicographic", f"tie_break: {rule}")
    report = check_spec(path)
    assert not report.ok
    fields = {p.field for p in report.problems}
    assert {"conventions.tie_example", "functions.train.doc"} <= fields
    assert all("'lexicographic'" in p.message and repr(rule) in p.message
               for p in report.problems if p.field == "conventions.tie_example")
    stub = render_stub(load_exercise(path))
    assert f"(rule {rule!r})" in " ".join(stub.split())
    assert "(-counts[p], p)" not in stub  # the old rule's Python from the copied tie_example
    assert "In the lesson's words" not in stub


def test_the_shipped_specs_have_no_prose_problems_and_tell_every_rule_apart():
    for exercise_id in ("bpe-train-encode", "lesson97-bpe"):
        exercise = load_exercise(exercise_id)
        assert prose_problems(exercise) == []
        assert undistinguished_rules(exercise) == []
        report = check_spec(exercise_id)
        assert report.ok and report.warnings == []


def test_check_warns_when_no_public_case_tells_the_rule_apart(tmp_path):
    path = copy_with(tmp_path, "  - id: tie-smallest-pair\n    visibility: public",
                     "  - id: tie-smallest-pair\n    visibility: hidden")
    report = check_spec(path)
    assert report.ok  # a warning, not a problem
    [warning] = report.warnings
    assert warning.field == "conventions.tie_break"
    assert "no public case tells tie_break 'lexicographic' from 'concatenated'" in warning.message
    corpus = re.search(r"such as corpus \[\"([^\"]+)\"\] with num_merges 4", warning.message).group(1)
    lists = {tuple(train_bpe([corpus], 4, tie_break=r)) for r in TIE_BREAKS}
    assert len(lists) == 4
    assert "1 warning(s)" in report.summary()


@pytest.mark.parametrize("rule", TIE_BREAKS)
@pytest.mark.parametrize("corpus_form", ["texts", "word-counts"])
@pytest.mark.parametrize("marker", ["</w>", ""])
def test_the_worked_tie_is_one_only_the_declared_rule_decides_that_way(rule, corpus_form, marker):
    found = worked_tie(rule, corpus_form, marker)
    assert found is not None
    corpus, step = found
    assert isinstance(corpus, dict) == (corpus_form == "word-counts")
    tied = step.tied
    assert order_tied(tied, rule)[0] == step.pair
    for other in TIE_BREAKS:
        if other != rule:
            assert order_tied(tied, other)[0] != step.pair


def test_the_tie_paragraph_names_the_rule_and_its_pick(tmp_path):
    path = copy_with(tmp_path, "tie_break: lexicographic", "tie_break: reverse-lexicographic")
    text = tie_paragraph(load_exercise(path))
    assert DESCRIPTIONS["reverse-lexicographic"] in text
    assert "max(counts, key=lambda p: (counts[p], p))" in text
    assert "this rule merges (t, </w>)" in text


@pytest.mark.parametrize("corpus_form", ["texts", "word-counts"])
def test_tie_cases_make_the_four_rules_learn_four_lists(corpus_form):
    corpora = tie_cases(corpus_form, "</w>", count=3)
    assert len(corpora) == 3
    for corpus in corpora:
        assert {tuple(train_bpe(corpus, 4, tie_break=r)) for r in TIE_BREAKS}.__len__() == 4


def test_another_marker_in_the_prose_is_a_problem(tmp_path):
    path = copy_with(tmp_path, 'end_of_word: "</w>"', 'end_of_word: "_"')
    messages = [p for p in check_spec(path).problems if "end-of-word marker '</w>'" in p.message]
    assert {p.field for p in messages} >= {"instructions", "functions.train.doc", "functions.encode.doc"}
    assert all("conventions.end_of_word is '_'" in p.message for p in messages)


def test_a_signature_in_another_form_is_a_problem(tmp_path):
    path = copy_with(tmp_path, "corpus_form: texts", "corpus_form: word-counts")
    problems = check_spec(path).problems
    signature = [p for p in problems if p.field == "functions.train.signature"]
    assert signature and "dict[str, int]" in signature[0].message
    assert any(p.field == "instructions" and "corpus_form is 'word-counts'" in p.message
               for p in problems)
    assert any(p.field == "cases[0].corpus" for p in problems)  # in the same round


def test_stated_rules_reads_the_phrases_of_each_rule():
    assert set(stated_rules("ties go to the smallest pair (a, b)")) == {"lexicographic"}
    assert set(stated_rules("max(pairs, key=pairs.get)")) == {"first-seen"}
    assert set(stated_rules("the largest pair wins")) == {"reverse-lexicographic"}
    assert set(stated_rules("the smallest joined string a + b")) == {"concatenated"}
    assert stated_rules("merge the most frequent pair; (e, w) comes first alphabetically") == {}
