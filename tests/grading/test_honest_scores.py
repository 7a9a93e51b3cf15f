"""Honest scores: doing nothing earns nothing, and a table of public inputs does not pass.

Every grading here uses the suite's pinned seed secret (tests/conftest.py), so the inputs are
the same on every run; the table-lookup test builds its table from the *public* inputs (the
derandomized ones, no secret) and, as a control, from the secret's own inputs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.families.bpe import do_nothing
from support.audits import audit_of, in_audit_group
from grader.grading.engine import grade_submission
from grader.families.bpe.evidence import trivial_answer
from grader.families.bpe.generated import reference_merges
from grader.grading.search import generated_examples
from grader.grading.secrets import inputs_seed
from grader.spec import load_exercise
from grader.spec.registry import family_of
from grader.families.bpe.expected import case_encodings, reference_pairs
from reference import encode as reference_encode

from conftest import TEST_SEED_SECRET

EXERCISES = ("bpe-train-encode", "lesson97-bpe")
CODE_EXERCISES = ("bpe-train-encode", "lesson97-bpe", "bpe-steps", "wordpiece", "byte-bpe")
"""Every shipped exercise whose students hand in code."""


def test_every_code_family_writes_every_do_nothing_kind():
    for exercise_id in CODE_EXERCISES:
        exercise = load_exercise(exercise_id)
        assert set(family_of(exercise).do_nothing(exercise)) == set(do_nothing.KINDS), exercise_id


@pytest.mark.parametrize("exercise_id, kind", in_audit_group(
    [(exercise_id, kind) for exercise_id in CODE_EXERCISES for kind in do_nothing.KINDS]))
def test_do_nothing_submissions_score_zero(exercise_id, kind):
    """Read from the exercise's audit, which grades each do-nothing submission of its family
    (``write_do_nothing``'s source) on the whole exercise."""
    report = audit_of(exercise_id).reports[f"do-nothing-{kind}"]
    earned = [(m.id, c.id, c.score) for m in report.milestones for c in m.checks if c.score]
    assert earned == [] and report.score == 0
    # Some checks pass (an empty list is deterministic...), yet say why they earn nothing.
    passed = [c for c in report.checks if c.passed and c.visibility == "visible"]
    if passed:
        assert any("no points until" in c.message for c in passed)


def test_a_correct_milestone_keeps_the_points_of_its_trivial_checks(tmp_path):
    exercise = load_exercise("bpe-train-encode")
    source = do_nothing.source(exercise, "empty")
    assert "def encode(word, merges):\n    return []" in source
    path = tmp_path / "student.py"
    path.write_text(source.replace("def encode(word, merges):\n    return []",
                                   "def encode(word, merges):\n    " + _ENCODE_BODY),
                    encoding="utf-8")
    report = grade_submission(path, exercise)
    encode = next(m for m in report.milestones if m.id == "encode")
    assert encode.score == encode.max_score
    assert next(m for m in report.milestones if m.id == "train").score == 0


_ENCODE_BODY = """tokens = list(word) + ["</w>"]
    for a, b in merges:
        out, i = [], 0
        while i < len(tokens):
            if i + 1 < len(tokens) and tokens[i] == a and tokens[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(tokens[i])
                i += 1
        tokens = out
    return tokens"""


def test_trivial_answers_are_what_doing_nothing_returns():
    exercise = load_exercise("bpe-train-encode")
    assert trivial_answer(exercise, "train", (["ab"], 2), [])
    assert trivial_answer(exercise, "train", (["a"], 3), [("a", "</w>")])  # echo of the word
    assert not trivial_answer(exercise, "train", (["ab ab"], 2), [("a", "b"), ("ab", "</w>")])
    assert trivial_answer(exercise, "encode", ("zz",), ["z", "z", "</w>"])
    assert not trivial_answer(exercise, "encode", ("low",), ["low", "</w>"])


# --------------------------------------------------------------------------- table lookup


TABLE_SUBMISSION = '''# exercise: bpe-train-encode
import json

TRAIN = {train!r}
ENCODE = {encode!r}


def train_bpe(corpus, num_merges):
    return [tuple(pair) for pair in json.loads(TRAIN.get(json.dumps([corpus, num_merges]), "[]"))]


def encode(word, merges):
    key = json.dumps([word, [list(pair) for pair in merges]])
    return json.loads(ENCODE[key]) if key in ENCODE else list(word) + ["</w>"]
'''


def table_submission(exercise, seed) -> str:
    """A submission answering from a table of the reference's answers on every input it
    can know of: the public cases and the generated inputs under ``seed``."""
    examples = exercise.properties.examples
    train, encode = {}, {}

    def learn_train(corpus, k):
        train[json.dumps([corpus, k])] = json.dumps(reference_merges(exercise, corpus, k))

    def learn_encode(word, merges):
        key = json.dumps([word, [list(pair) for pair in merges]])
        encode[key] = json.dumps(reference_encode(word, merges))

    for case in exercise.cases:
        if case.public:
            learn_train(case.corpus, case.num_merges)
            for item, _ in case_encodings(exercise, case):
                learn_encode(item.word, reference_pairs(exercise, case))
    for corpus, k in generated_examples(exercise, "train", examples, seed):
        for wanted in (k, k + 1):
            learn_train(corpus, wanted)
    for corpus, k, word in generated_examples(exercise, "encode", examples, seed):
        learn_encode(word, reference_merges(exercise, corpus, k))
    return TABLE_SUBMISSION.format(train=train, encode=encode)


def grade_table(tmp_path, seed, exercise):
    path = tmp_path / "student.py"
    path.write_text(table_submission(exercise, seed), encoding="utf-8")
    return grade_submission(path, exercise)


def test_a_table_of_public_inputs_fails_the_hidden_and_generated_checks(tmp_path):
    exercise = load_exercise("bpe-train-encode")
    public = grade_table(tmp_path, None, exercise)
    checks = {(m.id, c.id): c for m in public.milestones for c in m.checks}
    assert not checks[("train", "differential")].passed
    assert not checks[("encode", "differential")].passed
    hidden = [c for c in public.checks if c.visibility == "hidden" and c.real_work]
    assert hidden and not any(c.passed for c in hidden)
    # The control: the same table built from the secret's own inputs passes them, so it is
    # the secret, not a broken table, that makes the public one fail.
    secret = grade_table(tmp_path, inputs_seed(TEST_SEED_SECRET, exercise.id), exercise)
    control = {(m.id, c.id): c for m in secret.milestones for c in m.checks}
    assert control[("train", "differential")].passed
    assert control[("encode", "differential")].passed
