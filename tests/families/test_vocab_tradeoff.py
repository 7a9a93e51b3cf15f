"""The ``vocab_tradeoff`` milestone of lesson97-bpe: its reference, its answer's shape, its
follow-through (a trainer's or encoder's mistake costs once), its mistakes and its audit."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.families.bpe.book import BOOK
from grader.families.bpe.students import student_source
from grader.families.bpe.tradeoff import reference_rows, shape, trivial_rows
from grader.families.bpe.tradeoff_mistakes import COMBINATIONS, DECK_DOCUMENTS, MISTAKES
from grader.grading.audit import run_audit
from grader.grading.engine import grade_submission
from grader.spec.hooks import ShapeError
from grader.mistakes.diagnosis import matching
from grader.spec import load_exercise
from reference import BPEInputError, encode, train_bpe
from reference.vocab_tradeoff import base_vocabulary_size, document_word_counts, vocab_tradeoff

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "lesson97-bpe"
LESSON = load_exercise("lesson97-bpe")
QUICK = LESSON.model_copy(update={"properties": LESSON.properties.model_copy(update={"examples": 12})})
MILESTONE = "vocab-tradeoff"
DECK_COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def milestones(report):
    return {m.id: m for m in report.milestones}


def grade_source(tmp_path, source):
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(path, QUICK)


# --------------------------------------------------------------------------- the reference


def test_the_deck_corpus_as_two_documents_gives_the_instructions_rows():
    assert document_word_counts(DECK_DOCUMENTS) == DECK_COUNTS
    assert list(document_word_counts(DECK_DOCUMENTS)) == list(DECK_COUNTS)  # first-seen order
    assert base_vocabulary_size(DECK_DOCUMENTS) == 11  # l o w e r n s t i d and </w>
    rows = vocab_tradeoff(DECK_DOCUMENTS, [11, 16, 21], 768, tie_break="first-seen")
    assert rows == [{"size": 11, "avg_tokens": 47.5, "params": 8448},
                    {"size": 16, "avg_tokens": 27.0, "params": 12288},
                    {"size": 21, "avg_tokens": 14.0, "params": 16128}]
    for phrase in ("47.5, 27.0 and 14.0", "8448, 12288 and 16128", "base of 11"):
        assert phrase in LESSON.instructions


def test_the_largest_size_uses_the_decks_ten_merges():
    deck_ten = train_bpe(DECK_COUNTS, 10, tie_break="first-seen")
    words = [w for document in DECK_DOCUMENTS for w in document.split()]
    total = sum(len(encode(w, deck_ten)) for w in words)
    assert vocab_tradeoff(DECK_DOCUMENTS, [21], 1, tie_break="first-seen")[0]["avg_tokens"] == total / 2


def test_texts_and_word_counts_train_alike():
    for rule in ("first-seen", "lexicographic"):
        assert train_bpe(DECK_DOCUMENTS, 10, tie_break=rule) == \
            train_bpe(document_word_counts(DECK_DOCUMENTS), 10, tie_break=rule)


def test_an_empty_document_counts_and_small_sizes_learn_nothing():
    rows = vocab_tradeoff(["ab ab", ""], [0, 3, 4], 2)
    assert rows[0]["avg_tokens"] == rows[1]["avg_tokens"] == 3.0  # 6 characters-and-markers / 2
    assert rows[2]["avg_tokens"] == 2.0  # one merge, (a, b): 4 tokens over 2 documents
    assert [row["params"] for row in rows] == [0, 6, 8]


@pytest.mark.parametrize("corpus, sizes, d_model", [([], [1], 1), (["a", 3], [1], 1),
                                                    (["a"], [-1], 1), (["a"], [1], 0),
                                                    (["a"], [True], 1)])
def test_bad_input_is_refused(corpus, sizes, d_model):
    with pytest.raises(BPEInputError):
        vocab_tradeoff(corpus, sizes, d_model)


# --------------------------------------------------------------------------- the answer


def test_the_shape_accepts_rows_and_names_what_is_wrong():
    assert shape(LESSON, [{"size": 3, "avg_tokens": 2, "params": 6}], "f") == \
        [{"size": 3, "avg_tokens": 2.0, "params": 6}]
    with pytest.raises(ShapeError, match="missing 'params'"):
        shape(LESSON, [{"size": 3, "avg_tokens": 2.0}], "f")
    with pytest.raises(ShapeError, match="'size' is"):
        shape(LESSON, [{"size": True, "avg_tokens": 2.0, "params": 1}], "f")
    with pytest.raises(ShapeError, match="list of dicts"):
        shape(LESSON, ({"size": 1, "avg_tokens": 2.0, "params": 1},), "f")


def test_character_and_word_level_rows_are_what_do_nothing_code_gives():
    docs = ["ab ab", "c"]
    assert trivial_rows(LESSON, docs, [{"size": 1, "avg_tokens": 4.0, "params": 1}])  # char
    assert trivial_rows(LESSON, docs, [{"size": 1, "avg_tokens": 1.5, "params": 1}])  # word
    assert not trivial_rows(LESSON, docs, reference_rows(LESSON, docs, [4, 5], 1))


# --------------------------------------------------------------------------- mistakes


@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.id for m in MISTAKES])
def test_each_mistake_is_named_on_its_own_output_and_the_reference_names_none(mistake):
    inputs = {k: v for k, v in mistake.witness.items() if k not in ("tie_break", "end_of_word")}
    options = {"tie_break": "first-seen", "end_of_word": "</w>"}
    named = matching(BOOK, "vocab_tradeoff", mistake.output_on(mistake.witness), inputs, options)
    assert mistake in named
    assert matching(BOOK, "vocab_tradeoff", vocab_tradeoff(**mistake.witness), inputs, options) == []


def test_mistakes_of_different_steps_combine():
    ids = {m.id for m in COMBINATIONS}
    assert "tradeoff-params-added+tradeoff-average-per-word" in ids
    assert "tradeoff-params-added+tradeoff-params-doubled" not in ids  # the same step twice


FOLLOW_THROUGH = ["no-end-of-word", "one-merge-too-many", "no-pair-crash", "encode-marker-dropped",
                  "ties-lexicographic"]
"""A trainer's and an encoder's mistakes, and a trainer that crashes."""


AUDIT_GROUP = pytest.mark.xdist_group("vocab-tradeoff-audit")


@pytest.fixture(scope="module")
def quick_audit():
    """One audit of the trade-off mistakes and of ``FOLLOW_THROUGH`` (with the correct
    submission and the do-nothing ones), read by both audit tests below (one test process:
    ``AUDIT_GROUP``)."""
    return run_audit(QUICK, mistake_ids=[m.id for m in MISTAKES] + FOLLOW_THROUGH, jobs=1)


@AUDIT_GROUP
def test_the_audit_catches_every_trade_off_mistake_and_do_nothing_earns_nothing_on_it(quick_audit):
    ids = [m.id for m in MISTAKES]
    audit = quick_audit
    assert audit.ok
    assert {m.id for m in audit.mistakes if m.caught} >= set(ids)
    for mistake in audit.mistakes:
        if mistake.id in ids:
            assert mistake.failed == [MILESTONE] and MILESTONE in mistake.named_in, mistake.id


# --------------------------------------------------------------------------- grading


def test_the_correct_example_earns_the_milestone():
    report = grade_submission(EXAMPLES / "student_correct.py", QUICK)
    tradeoff = milestones(report)[MILESTONE]
    assert tradeoff.score == tradeoff.max_score == 15


def test_a_wrong_trainer_costs_its_own_milestone_only(tmp_path):
    """The shipped wrong example breaks ties the wrong way; its trade-off, right for its own
    trainer, keeps every point and says where the mistake is charged."""
    report = grade_submission(EXAMPLES / "student_wrong.py", QUICK)
    by_id = milestones(report)
    assert not by_id["train"].passed
    tradeoff = by_id[MILESTONE]
    assert tradeoff.passed and tradeoff.score == tradeoff.max_score
    notes = " ".join(c.message for c in tradeoff.checks)
    assert "right for your own train_bpe and tokenize" in notes
    assert "differ from the reference's" in notes


def test_a_wrong_encoder_costs_its_own_milestone_only(tmp_path):
    report = grade_source(tmp_path, student_source(LESSON, "encode-longest-match"))
    by_id = milestones(report)
    assert not by_id["tokenize"].passed
    assert by_id[MILESTONE].score == by_id[MILESTONE].max_score


def test_the_wrong_trade_off_example_fails_there_only_and_names_both_mistakes():
    report = grade_submission(EXAMPLES / "student_wrong_tradeoff.py", QUICK)
    by_id = milestones(report)
    assert all(m.passed for key, m in by_id.items() if key != MILESTONE)
    tradeoff = by_id[MILESTONE]
    assert not any(c.passed for c in tradeoff.checks if c.id.startswith("cases:"))
    assert 0 < tradeoff.score < tradeoff.max_score / 4  # the laws its mistakes keep
    assert not next(c for c in tradeoff.checks if c.id == "property:params").passed
    named = {d.id for c in tradeoff.checks if not c.passed for d in c.diagnoses}
    assert named == {"tradeoff-params-added+tradeoff-average-per-word"}
    deck = next(c for c in tradeoff.checks if c.id == "cases:deck-full-solution")
    assert "params is 779 (expected 8448)" in deck.message


@AUDIT_GROUP
def test_trainer_and_encoder_mistakes_cost_the_trade_off_nothing(quick_audit):
    """One bug costs once: wrong merges, a wrong encoder and a trainer that crashes (so the
    trade-off built on it crashes too) all leave the trade-off milestone passed."""
    ids = FOLLOW_THROUGH
    audit = quick_audit
    assert audit.ok and {m.id for m in audit.mistakes} >= set(ids)
    for mistake in audit.mistakes:
        if mistake.id in ids:
            assert mistake.failed and MILESTONE not in mistake.failed, (mistake.id, mistake.failed)
