"""The mistakes of real CS336 solutions: each departs where it should, and grading names it.

Each of the six (and the 2024 handout's rule) is graded as its student-style submission in the
sandbox on the training milestone's cases only (quick), and must be named by a visible case's
diagnosis; the public cases the exercise shows carry the two most common ones.
"""

from __future__ import annotations

import pytest

from grader.families.byte_level import real_code
from grader.families.byte_level.mistakes import BOOK, REFERENCES
from grader.families.byte_level.students import student_source
from grader.grading.engine import grade_submission
from grader.mistakes.narrowing import name_for_milestone
from grader.spec.mistake_book import Observation
from grader.spec import load_exercise
from reference.byte_level import split_on_special_tokens, train_byte_bpe

EXERCISE = load_exercise("byte-bpe")
TRAIN = "train_byte_bpe"
EOT = "<|endoftext|>"
REAL = [m.id for m in real_code.REAL_CODE_MISTAKES]
ELSEWHERE = {"byte-neighbours-from-old-word", "byte-pretokenized-bytes",
             "byte-encode-crash-without-specials"}
"""Not named on the training cases: two from the generated inputs, which hold non-ASCII text,
and one an encoding crash (tests/families/byte_level/test_byte_truth_check.py,
tests/mistakes/test_mistaken_students.py)."""
NAMED = [m for m in REAL if m not in ELSEWHERE] + ["byte-2024-specials-not-split"]


def training_cases_only():
    milestone = EXERCISE.milestone("train")
    checks = [check for check in milestone.checks if check.kind == "cases"]
    return EXERCISE.model_copy(update={"milestones": [milestone.model_copy(
        update={"checks": checks})]})


@pytest.mark.parametrize("mistake_id", NAMED)
def test_grading_names_the_mistake_on_a_public_case(tmp_path, mistake_id):
    exercise = training_cases_only()
    path = tmp_path / "student.py"
    path.write_text(student_source(exercise, mistake_id), encoding="utf-8")
    report = grade_submission(path, exercise, helper=False)
    (milestone,) = report.milestones
    assert not milestone.passed
    named = {d.id for check in milestone.checks if check.visibility == "visible"
             for d in check.diagnoses}
    assert mistake_id in named
    assert milestone.score > 0, "the training it gets right still earns"


def test_the_crash_is_named_from_its_message_where_no_pair_is_left():
    entry = BOOK.by_id("byte-max-of-no-pair")
    with pytest.raises(BOOK.crash):
        entry.output_on(entry.witness)
    crash = Observation(dict(entry.witness), crash="train_bpe raised ValueError: max() arg is an "
                                                   "empty sequence")
    assert entry in [n.mistake for n in name_for_milestone(BOOK, TRAIN, [crash], {})]
    assert not BOOK.telling_crash("encode_byte_bpe", crash.crash)


@pytest.mark.parametrize("count", range(2, 17))
def test_cutting_into_ranges_departs_on_its_witness_for_any_number_of_cpus(count, monkeypatch):
    monkeypatch.setattr(real_code, "ranges_count", lambda: count)
    entry = BOOK.by_id("byte-chunks-cut-mid-pretoken")
    assert BOOK.canonical(TRAIN, entry.output_on(entry.witness)) != BOOK.canonical(
        TRAIN, REFERENCES[TRAIN](**entry.witness))


def test_byte_ranges_cut_the_text_and_lose_only_cut_characters():
    text = "ab cd é"
    pieces = real_code.byte_ranges(text, 3)
    assert len(pieces) >= 3
    assert "".join(pieces) in (text, text.replace("é", ""))


def test_an_empty_pattern_splits_every_character_as_the_entry_says():
    entry = BOOK.by_id("byte-empty-specials-split-every-character")
    vocab, merges = entry.run("ab ab", 258, [])
    assert merges == []
    assert train_byte_bpe("ab ab", 258, [])[1] == [(b"a", b"b"), (b" ", b"ab")]
    assert entry.run("ab ab", 259, [EOT]) == train_byte_bpe("ab ab", 259, [EOT])


def test_the_2024_rule_is_named_as_a_convention_not_a_bug():
    entry = BOOK.by_id("byte-2024-specials-not-split")
    assert "2024" in entry.title
    assert "not a bug" in entry.hint and "spring 2025 (handout v1.0.4 and later)" in entry.hint


def test_the_public_cases_carry_the_two_most_common_mistakes():
    public = {case.id: case for case in EXERCISE.public_cases}
    no_pair = public["no-pair-left"]
    text = "".join(no_pair.corpus)
    assert len(train_byte_bpe(text, 256 + no_pair.num_merges, [])[1]) < no_pair.num_merges
    documents = public["two-documents"]
    pieces = split_on_special_tokens("".join(documents.corpus), documents.special_tokens)
    assert documents.special_tokens == [EOT]
    assert len([piece for piece in pieces[::2] if piece]) == 2
