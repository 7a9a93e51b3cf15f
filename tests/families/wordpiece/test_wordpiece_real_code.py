"""The WordPiece mistakes of published code, the `##` convention said as one, and the step
table of scores headed as such.

The student-style files of these mistakes are graded by ``grade audit`` (tests/mistakes
grades them once, names each exactly and checks nothing false is named); here, the models
depart where their witnesses say, the HF course's loop is the course's own (float scores,
the first strictly highest kept), and the feedback claims a tie only where the code met one.
"""

from __future__ import annotations

import pytest

from grader.families.wordpiece.feedback import wordpiece_difference, wordpiece_message
from grader.families.wordpiece.mistakes import BOOK, REAL_CODE_MISTAKES, telling_crash
from grader.families.wordpiece.real_code import (
    counted_per_pair,
    train_crash_when_no_pair,
    train_hf_course,
)
from grader.families.wordpiece.students import student_source
from grader.families.bpe.real_code import NoPairLeft
from grader.report.details import step_table
from grader.report.feedback import step_table_lines
from grader.spec import load_exercise
from reference.plain import initial_segmentation
from reference.wordpiece import train_wordpiece

EXERCISE = load_exercise("wordpiece")
EOW = "</w>"
DECK = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


@pytest.mark.parametrize("mistake", REAL_CODE_MISTAKES, ids=lambda m: m.id)
def test_each_real_code_mistake_departs_from_the_reference_on_its_witness(mistake):
    reference = BOOK.reference[mistake.role](**mistake.witness)
    try:
        output = mistake.output_on(mistake.witness)
    except NoPairLeft:
        return
    assert BOOK.canonical(mistake.role, output) != BOOK.canonical(mistake.role, reference)


def test_the_hf_course_student_file_answers_what_its_model_computes():
    namespace: dict = {}
    exec(student_source(EXERCISE, "wordpiece-hf-course"), namespace)
    for corpus, merges in ((DECK, 6), ({"ab": 10, "abc": 5, "bc": 8}, 4), ({"aaaa": 2, "aa": 3}, 5),
                           ({"a": 3, "be": 1}, 20)):
        assert namespace["train_wordpiece"](corpus, merges) == train_hf_course(corpus, merges)


def test_the_hf_course_keeps_the_first_pair_scored_on_a_tie():
    """On the deck's corpus (w, ##i) and (##i, ##d) both score 1/9: the course keeps the one
    it scored first, which lexicographic order would not."""
    assert train_hf_course(DECK, 1) == [("w", "##i")]


def test_symbols_counted_per_pair_count_inner_symbols_twice():
    words = initial_segmentation({"abc": 2, "d": 1}, EOW)
    counts = counted_per_pair(words)
    assert counts["a"] == 2 and counts["b"] == 4 and counts["c"] == 4 and counts["d"] == 1
    assert counts[EOW] == 3


def test_the_no_pair_crash_is_the_crash_students_see():
    with pytest.raises(NoPairLeft):
        train_crash_when_no_pair({"ab": 1}, 3)
    assert train_crash_when_no_pair({"ab": 1}, 2) == train_wordpiece({"ab": 1}, 2)
    assert telling_crash("train_wordpiece", "ValueError: min() arg is an empty sequence")
    assert not telling_crash("first_divergence", "ValueError: min() arg is an empty sequence")


def test_the_continuation_convention_is_said_to_be_one():
    for mistake_id in ("wordpiece-continuation-prefix", "divergence-continuation-prefix",
                       "wordpiece-hf-course"):
        mistake = BOOK.by_id(mistake_id)
        assert "##" in mistake.title
        assert "not a bug" in mistake.hint or "conventions are not this exercise's" in mistake.hint
        assert "This exercise asks" in mistake.hint or "this exercise asks" in mistake.hint.lower()


# --------------------------------------------------------------------------- the truth check


def test_no_tie_is_described_where_the_code_faced_none():
    """At the deck's first step (i, d) scores 1/3 alone: no pairs tie on the highest score,
    so the feedback describes no WordPiece tie (only BPE's, which picks the student's pair)."""
    expected = train_wordpiece(DECK, 1)
    difference = wordpiece_difference(EXERCISE, DECK, 1, expected, [("e", "s")])
    assert difference["tied"] == []
    message = wordpiece_message(difference, 1)
    assert "tie on the highest score" not in message
    assert "pairs share the highest count" in message  # BPE's own tie, which (e, s) won


def test_the_step_table_of_wordpiece_is_headed_score():
    expected = train_wordpiece(DECK, 1)
    difference = wordpiece_difference(EXERCISE, DECK, 1, expected, [("e", "s")])
    table = step_table(difference)
    assert table.measure == "score"
    header = step_table_lines(table)[1]
    assert header.split() == ["pair", "score", "note"]
    assert table.rows[0].count == "3/(3*3)=1/3"  # the column holds scores


def test_a_bpe_step_table_is_still_headed_count():
    table = step_table({"step": 1, "expected": ["a", "b"], "actual": ["b", "c"],
                        "pair_counts": [["a", "b", 3], ["b", "c", 2]]})
    assert table.measure == "count"
    assert step_table_lines(table)[1].split() == ["pair", "count", "note"]


def test_the_specs_worked_tie_is_recomputed_from_its_own_numbers():
    """The tie example the stub prints ("(a, b) scores 15/(15*23), ...: all exactly 1/23, so
    the rule picks (a, b)"): every count it states is the reference's at the first step, the
    scores are equal there and highest, and the exercise's rule picks the pair it names."""
    import ast
    import re
    from fractions import Fraction

    from reference.wordpiece import wordpiece_steps

    text = " ".join(EXERCISE.conventions.tie_example.split())
    corpus = ast.literal_eval(re.search(r"corpus (\{.*?\})", text).group(1))
    stated = re.findall(r"\((\S+), (\S+)\) (?:scores )?(\d+)/\((\d+)\*(\d+)\)", text)
    common = Fraction(*map(int, re.search(r"all exactly (\d+)/(\d+)", text).groups()))
    picked = re.search(r"the rule picks \((\S+), (\S+)\)", text).groups()
    step = next(wordpiece_steps(corpus, 1, tie_break=EXERCISE.conventions.tie_break,
                                end_of_word=EOW))
    words = initial_segmentation(corpus, EOW)
    symbols = {}
    for word, count in words.items():
        for symbol in word:
            symbols[symbol] = symbols.get(symbol, 0) + count
    assert len(stated) == 3
    for a, b, pair_count, count_a, count_b in stated:
        pair = (a, b)
        assert {int(count_a), int(count_b)} == {symbols[a], symbols[b]}
        assert step.scores[pair] == Fraction(int(pair_count), int(count_a) * int(count_b)) == common
    assert sorted(step.tied) == sorted((a, b) for a, b, *_ in stated)
    assert step.score == common and step.pair == picked


def test_a_tie_the_students_pair_is_not_in_is_not_described():
    """Check 1's first step is a three-way tie at 1/23; a student whose pair is not one of the
    three (here the course's ('b', '##c')) did not meet that tie, so none is described; a
    student who picked a tied pair is told about the tie and the rule."""
    corpus = {"ab": 10, "abc": 5, "bc": 8}
    expected = train_wordpiece(corpus, 1)
    elsewhere = wordpiece_difference(EXERCISE, corpus, 1, expected, [("b", "##c")])
    assert elsewhere["tied"] == []
    assert "tie" not in wordpiece_message(elsewhere, 1)
    assert not any("tied" in row.roles for row in step_table(elsewhere).rows)
    tied = wordpiece_difference(EXERCISE, corpus, 1, expected, [("b", "c")])
    assert len(tied["tied"]) == 3
    assert "3 pairs tie on the highest score" in wordpiece_message(tied, 1)


def test_every_published_pattern_of_a_trainer_is_an_audited_published_student():
    """grade audit fails unless a published pattern's file is named by its own mistake: every
    trainer entry of the real-code catalogue has its student file marked so."""
    from grader.families.wordpiece.students import STUDENT_MISTAKES

    trainers = {m.id for m in REAL_CODE_MISTAKES if m.role == "train_wordpiece"
                and not m.convention}
    published = {s.id for s in STUDENT_MISTAKES.values() if s.published}
    assert trainers and trainers <= published
