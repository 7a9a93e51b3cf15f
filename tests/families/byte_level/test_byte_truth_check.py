"""The truth check on byte-level BPE: no false counterexample, no false "more than one mistake".

A decoding failure shows the ids it decoded (never ids cut short that decode right), and one
mistake is named as one; published trainer bugs (neighbour pairs read from the old word,
pre-tokenizing bytes) are named by their own entries. Each file is graded once, on the one
milestone the tests read: graded alone, a milestone has the results it has in a grading of
the whole exercise, without the time of the others (the efficiency run of a slow trainer).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.families.byte_level.mistakes import BOOK
from grader.families.byte_level.real_code import (
    train_neighbours_from_old_word,
    train_pretokenized_bytes,
)
from grader.grading.engine import grade_submission
from grader.mistakes.truth import counterexample_holds
from grader.spec import load_exercise
from grader.spec.mistake_book import Observation
from reference.byte_level import decode_byte_bpe, train_byte_bpe

ROOT = Path(__file__).resolve().parents[3]
EXERCISE = load_exercise("byte-bpe")
FILES = {
    "decode_each": (ROOT / "examples/byte-bpe/student_correct.py", "decode",
                    "byte-decode-each-token"),
    "old_word": (ROOT / "tests/submissions/byte_neighbours_from_old_word.py", "train",
                 "byte-neighbours-from-old-word"),
    "bytes": (ROOT / "tests/submissions/byte_pretokenized_bytes.py", "train",
              "byte-pretokenized-bytes"),
    "no_specials": (ROOT / "tests/submissions/byte_encode_without_specials.py", "encode",
                    "byte-encode-crash-without-specials"),
}


def test_the_models_depart_where_their_hints_say():
    vocab, merges = train_neighbours_from_old_word("éé", 258, [])
    assert merges[1] == (b"\xc3\xa9", b"\xc3")  # a pair the new word (é, é) does not have
    assert train_byte_bpe("éé", 258, [])[1][1] == (b"\xc3\xa9", b"\xc3\xa9")
    assert train_pretokenized_bytes("é", 257, [])[1] == []
    assert train_byte_bpe("é", 257, [])[1] == [(b"\xc3", b"\xa9")]


def test_a_decode_counterexample_that_decodes_right_is_dropped():
    vocab, _ = train_byte_bpe("", 256, [])
    half = next(i for i, token in vocab.items() if token == b"\xc3")  # half of 'é'
    cut = {"ids": [half], "vocab": vocab}
    recorded = Observation(cut, actual="\ufffd\ufffd")  # the answer of another input
    assert decode_byte_bpe([half], vocab) == "\ufffd"
    asked = Observation(cut, actual="\ufffd")  # each token on its own gives the same here
    assert not counterexample_holds(BOOK, "decode_byte_bpe", recorded, {}, lambda given: asked)
    assert counterexample_holds(BOOK, "decode_byte_bpe", recorded, {}, None)  # unasked: kept


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("byte")
    made = {}
    for key, (path, milestone_id, _) in FILES.items():
        source = path.read_text(encoding="utf-8")
        if key == "decode_each":
            source = source.replace(
                'return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")',
                'return "".join(vocab[i].decode("utf-8", errors="replace") for i in ids)')
        target = folder / f"{key}.py"
        target.write_text(source, encoding="utf-8")
        made[key] = grade_submission(target, alone(milestone_id), helper=False)
    return made


def alone(milestone_id):
    """The exercise with only the milestone ``milestone_id``."""
    return EXERCISE.model_copy(update={"milestones": [
        m for m in EXERCISE.milestones if m.id == milestone_id]})


@pytest.mark.parametrize("key", sorted(FILES))
def test_the_mistake_is_named_as_one_and_nothing_false_is_said(reports, key):
    _, milestone_id, mistake_id = FILES[key]
    milestone = next(m for m in reports[key].milestones if m.id == milestone_id)
    assert not milestone.passed
    diagnoses = [d for c in milestone.checks if c.visibility == "visible" for d in c.diagnoses]
    assert {d.id for d in diagnoses} == {mistake_id}
    assert not any("more than this one mistake" in d.evidence for d in diagnoses)


def test_a_round_trip_failure_shows_the_ids_it_decoded(reports):
    """Ids cut short are not a text's ids: a round-trip property never shows them (they
    decode right token by token, and were not what failed)."""
    milestone = next(m for m in reports["decode_each"].milestones if m.id == "decode")
    failed = [c for c in milestone.checks if not c.passed and c.id.startswith("property:")]
    assert failed
    for check in failed:
        assert "cut short" not in check.message, check.message


def test_a_tie_failure_carries_a_pair_table_counted_from_the_text():
    from grader.families.byte_level.step_counts import first_difference
    from grader.report.details import step_table

    expected = train_byte_bpe("aba", 257, [])[1]
    difference = first_difference("aba", [], expected, [(b"a", b"b")])
    assert difference["tied"] == [["b'b'", "b'a'"], ["b'a'", "b'b'"]]
    table = step_table(difference)
    assert [row.pair for row in table.rows] == ["(b'b', b'a')", "(b'a', b'b')"]
    assert first_difference("ab cd", [], [(b"c", b"d")], [(b"c", b"d")]) is None
