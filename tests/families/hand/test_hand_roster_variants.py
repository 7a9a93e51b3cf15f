"""A roster's hand variants: classmates share no first merge and as few ties as the exercise's
corpus space allows, each student keeps theirs, and the grader reads it back from the file."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families.hand.assignment import MAX_INDEX, answer_keys, assign_variants, own_variant
from grader.families.hand.audit import sheet_text
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.grading.engine import grade_submission
from grader.spec import load_exercise

EXERCISE = load_exercise("hand-bpe")
SECRET = "roster-secret"
ROSTER = [f"student{i:03d}" for i in range(30)]


@pytest.fixture(scope="module")
def assigned():
    """The first students of the roster (cheap; the whole roster is drawn once, below)."""
    return assign_variants(EXERCISE, ROSTER[:8], SECRET)


def holders(assigned, question):
    return Counter(key for variant in assigned.values()
                   for key in answer_keys(EXERCISE, variant) if key.startswith(question + "="))


def sharing_pairs(assigned, question):
    return sum(n * (n - 1) // 2 for n in holders(assigned, question).values())


@pytest.mark.slow
def test_a_roster_of_30_shares_few_first_merges_and_spreads_its_ties_evenly():
    assigned = assign_variants(EXERCISE, ROSTER, SECRET)  # about 90 s on a busy machine
    independent = {s: diagnostic_variant(EXERCISE, s, SECRET) for s in ROSTER}
    first_merges = sharing_pairs(assigned, "first-merge")
    assert first_merges <= 5  # 3 measured: 27 distinct first merges within MAX_INDEX draws
    assert first_merges < sharing_pairs(independent, "first-merge") / 4
    tie_holders = holders(assigned, "tie")
    # hand-bpe's diagnostic variants have about a dozen distinct ties: no assignment can give
    # 30 students 30 of them, so each is held by at most one more than an even share
    assert max(tie_holders.values()) <= math.ceil(len(ROSTER) / len(tie_holders)) + 1
    assert sharing_pairs(assigned, "tie") < sharing_pairs(independent, "tie") / 2
    assert {s: v.corpus for s, v in assigned.items() if s in ROSTER[:8]} == {
        s: v.corpus for s, v in assign_variants(EXERCISE, ROSTER[:8], SECRET).items()}


def test_the_assignment_is_stable_and_keeps_earlier_students_when_others_join(assigned):
    fewer = assign_variants(EXERCISE, ROSTER[:5], SECRET)
    assert {s: v.corpus for s, v in fewer.items()} == {s: assigned[s].corpus for s in ROSTER[:5]}
    assert holders(assigned, "first-merge").most_common(1)[0][1] == 1


def commented(variant, text):
    lines = ["# Your corpus (word: count):"] + [f"#   {w}: {c}" for w, c in variant.corpus.items()]
    return "\n".join(lines) + "\n" + text


def test_a_file_on_an_assigned_later_variant_is_graded_on_it(assigned, tmp_path):
    student, variant = next((s, v) for s, v in assigned.items()
                            if v.corpus != diagnostic_variant(EXERCISE, s, SECRET).corpus)
    assert own_variant(EXERCISE, student, SECRET, dict(variant.corpus)).corpus == variant.corpus
    path = tmp_path / "answers.yaml"
    path.write_text(commented(variant, sheet_text(EXERCISE, student,
                                                  expected_answers(EXERCISE, variant))))
    report = grade_submission(path, EXERCISE, seed_secret=SECRET, submitter=student)
    assert report.score == report.max_score == 100


def test_a_classmates_corpus_is_not_one_of_a_students_own(assigned, tmp_path):
    alice, bob = ROSTER[0], ROSTER[1]
    theirs = assigned[bob]
    first = diagnostic_variant(EXERCISE, alice, SECRET)
    assert own_variant(EXERCISE, alice, SECRET, dict(theirs.corpus)).corpus == first.corpus
    assert own_variant(EXERCISE, alice, SECRET, None).corpus == first.corpus
    path = tmp_path / "answers.yaml"
    path.write_text(commented(theirs, sheet_text(EXERCISE, alice, expected_answers(EXERCISE, theirs))))
    report = grade_submission(path, EXERCISE, seed_secret=SECRET, submitter=alice)
    assert report.score == 0


def test_grade_stub_roster_writes_the_assigned_variants(assigned, tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_text("\n".join(ROSTER[:8]) + "\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["stub", "hand-bpe", "--roster", str(roster), "-o", str(out),
                                       "--seed-secret", SECRET])
    assert result.exit_code == 0, result.output
    for student in ROSTER[:8]:
        text = (out / student / "answers.yaml").read_text()
        for word, count in assigned[student].corpus.items():
            assert f"#   {word}: {count}\n" in text
    assert MAX_INDEX >= 8
