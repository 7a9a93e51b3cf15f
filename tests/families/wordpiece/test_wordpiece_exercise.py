"""The WordPiece exercise against the deck's worked examples, and its grading pieces.

The numbers asserted here are the deck's (Lesson 97, slides 19, 20, 30 and 35-38, as
tests/reference/test_wordpiece_reference.py reads them): the exercise must reproduce them
through its own conventions, and its feedback must show exact scores.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from grader.families.wordpiece import shapes
from grader.families.wordpiece.feedback import wordpiece_difference, wordpiece_message
from grader.families.wordpiece.mistakes import BOOK
from grader.mistakes.diagnosis import matching
from grader.families.wordpiece.mistakes import REFERENCES, WORDPIECE_MISTAKES
from grader.spec import load_exercise, parse_exercise
from grader.spec.validators import to_record, validator_of
from grader.families.wordpiece.expected import divergence, wordpiece_merges
from grader.spec.rules import semantic_problems

EXERCISE = load_exercise("wordpiece")
EOW = "</w>"


def case(case_id):
    return next(c for c in EXERCISE.cases if c.id == case_id)


def test_deck_corpus_wordpiece_first_takes_i_d_where_bpe_takes_e_s():
    deck = case("deck-corpus")
    assert wordpiece_merges(EXERCISE, deck.corpus, 1) == [("i", "d")]
    assert divergence(EXERCISE, deck.corpus, deck.num_merges) == (1, ("e", "s"), ("i", "d"))


def test_check_one_three_way_tie_is_decided_by_the_declared_rule():
    check_one = case("deck-check-one")
    # (a, b), (b, c) and (c, </w>) all score exactly 1/23; lexicographic takes (a, b).
    assert wordpiece_merges(EXERCISE, check_one.corpus, 1) == [("a", "b")]
    assert divergence(EXERCISE, check_one.corpus, 3) == (2, ("c", EOW), ("b", "c"))


def test_rarer_exclusive_pair_wins_as_on_slide_20():
    assert divergence(EXERCISE, case("deck-rarer-pair").corpus, 3) == (1, ("t", "h"), ("q", "u"))


def test_close_scores_need_an_exact_comparison():
    corpus = case("close-scores").corpus
    # (b, </w>): 6 / (16 * 17) = 3/136; (a, c): 12 / (23 * 24) = 1/46.
    assert Fraction(6, 16 * 17) > Fraction(12, 23 * 24)
    assert round(6 / (16 * 17), 3) == round(12 / (23 * 24), 3) == 0.022
    assert wordpiece_merges(EXERCISE, corpus, 1) == [("b", EOW)]


def test_feedback_shows_exact_scores_at_the_first_differing_step():
    deck = case("deck-corpus")
    expected = wordpiece_merges(EXERCISE, deck.corpus, 4)
    bpe_like = [("e", "s"), ("es", "t"), ("est", EOW), ("l", "o")]
    difference = wordpiece_difference(EXERCISE, deck.corpus, 4, expected, bpe_like)
    assert difference["step"] == 1
    scores = {(a, b): text for a, b, text in difference["pair_counts"]}
    assert scores[("i", "d")] == "3/(3*3)=1/3"
    assert scores[("e", "s")] == "9/(17*9)=1/17"
    message = wordpiece_message(difference, 4)
    assert "expected ('i', 'd') (score 3/(3*3)=1/3)" in message
    # (e, s) occurs 9 times, as often as (s, t) and (t, </w>): tied on frequency, BPE's rule takes
    # it, so the trainer ranked by frequency, as BPE does.
    assert ("('e', 's') is BPE's choice here: 3 pairs share the highest count (9 times each) and "
            "the tie rule 'lexicographic' picks it") in message


def test_feedback_claims_frequency_only_for_the_most_frequent_pair():
    deck = case("deck-corpus")
    expected = wordpiece_merges(EXERCISE, deck.corpus, 4)
    # (l, o) occurs 7 times, fewer than (e, s)'s 9: not what a frequency ranking picks, so the
    # feedback must not say the code ranks by frequency.
    difference = wordpiece_difference(EXERCISE, deck.corpus, 4, expected, [("l", "o")] + expected[1:])
    message = wordpiece_message(difference, 4)
    assert "(score 7/(7*7)=1/7)" in message
    assert "most frequent" not in message and "frequency" not in message
    assert "('l', 'o') does not have the highest score at this step" in message


def test_feedback_at_a_tie_names_the_rule():
    check_one = case("deck-check-one")
    expected = wordpiece_merges(EXERCISE, check_one.corpus, 1)
    difference = wordpiece_difference(EXERCISE, check_one.corpus, 1, expected, [("b", "c")])
    assert difference["tied"] == [["a", "b"], ["b", "c"], ["c", EOW]]
    assert "3 pairs tie on the highest score" in wordpiece_message(difference, 1)


@pytest.mark.parametrize("mistake", WORDPIECE_MISTAKES, ids=[m.id for m in WORDPIECE_MISTAKES])
def test_each_mistake_departs_on_its_witness_and_is_named_there(mistake):
    if mistake.id == "wordpiece-no-pair-crash":  # its output is a crash: named from the crash
        with pytest.raises(BOOK.crash):
            mistake.output_on(mistake.witness)
        return
    output = mistake.output_on(mistake.witness)
    assert output != REFERENCES[mistake.role](**mistake.witness)
    given = {"corpus": mistake.witness["corpus"], "num_merges": mistake.witness["num_merges"]}
    named = diagnose(mistake.role, output, given, tie_break=mistake.witness["tie_break"],
                     end_of_word=EOW)
    assert mistake in named


def test_rounded_scores_alone_reproduce_the_close_scores_case():
    corpus = case("close-scores").corpus
    rounded = next(m for m in WORDPIECE_MISTAKES if m.id == "wordpiece-rounded-scores")
    output = rounded.run(corpus, 6, tie_break="lexicographic", end_of_word=EOW)
    named = diagnose("train_wordpiece", output, {"corpus": corpus, "num_merges": 6},
                     tie_break="lexicographic", end_of_word=EOW)
    assert [m.id for m in named] == ["wordpiece-rounded-scores"]


@pytest.mark.parametrize("value, message", [
    ((1, ("a", "b")), "it returned a tuple"),
    ((1.0, ("a", "b"), ("c", "d")), "the step is a float"),
    ((-1, ("a", "b"), ("c", "d")), "the step is a int -1"),
    ((1, ("a", "b"), "cd"), "wordpiece_pair is a str"),
    ("none", "it returned a str"),
])
def test_divergence_shape_is_strict(value, message):
    with pytest.raises(shapes.ShapeError, match=message):
        shapes.divergence(value, "first_divergence")


def test_divergence_shape_accepts_none_and_lists():
    assert shapes.divergence(None, "f") is None
    assert shapes.divergence([2, ["a", "b"], ["c", "d"]], "f") == (2, ("a", "b"), ("c", "d"))


def test_expected_merges_are_refused_without_a_train_function():
    data = EXERCISE.model_dump(mode="python")
    data["cases"][0]["merges"] = [["i", "d"]]
    problems = semantic_problems(parse_exercise_like(data))
    assert any("this exercise has none" in message for _, message in problems)


def parse_exercise_like(data):
    return to_record(validator_of(type(EXERCISE)).model_validate(data, strict=False))


def diagnose(role, actual, inputs, **options):
    """The WordPiece mistakes reproducing ``actual`` (options: the tie rule and the marker)."""
    return matching(BOOK, role, actual, inputs, options)


def test_feedback_calls_a_pair_bpes_choice_only_when_bpe_picks_it():
    """Four pairs occur once each in {ab: 1, cd: 1}: (d, </w>) is among the most frequent, but
    BPE's lexicographic rule picks (a, b); the feedback must not call (d, </w>) BPE's choice."""
    corpus = {"ab": 1, "cd": 1}
    expected = wordpiece_merges(EXERCISE, corpus, 1)
    assert expected == [("a", "b")]
    tied = wordpiece_message(wordpiece_difference(EXERCISE, corpus, 1, expected, [("d", EOW)]), 1)
    assert "BPE's choice" not in tied and "the most frequent pair here" not in tied
    assert "('d', '</w>') is one of the 4 pairs with the highest count here (1 time each)" in tied
    assert "does not have the highest score" in tied


def test_the_stubs_worked_tie_is_a_wordpiece_tie_recomputed_from_its_own_numbers():
    """The stub's tie example is WordPiece's own: at the step it names, exactly the pairs it
    lists share the highest exact score, the score is the one it states, and each rule picks
    the pair the text says."""
    import ast
    import re

    from grader.families.wordpiece.stub import stub_text
    from reference.tie_breaks import TIE_BREAKS, order_tied
    from reference.wordpiece import wordpiece_steps

    text = " ".join(stub_text(EXERCISE).ties.split())
    found = re.search(r"training on (\{.*?\}): at (?:the first step|step (\d+)) the pairs (.*?) "
                      r"\(in the order first met\) all score (\S+), and this rule merges "
                      r"\((\S+), (\S+)\) \((.*?)\)\.", text)
    assert found, text
    corpus = ast.literal_eval(found.group(1))
    number = int(found.group(2) or 1)
    listed = [tuple(p.split(", ")) for p in re.findall(r"\(([^()]+)\)", found.group(3))]
    rule = EXERCISE.conventions.tie_break
    step = list(wordpiece_steps(corpus, number, tie_break=rule,
                                end_of_word=EXERCISE.conventions.end_of_word))[number - 1]
    best = max(step.scores.values())
    assert [p for p, s in step.scores.items() if s == best] == listed
    assert str(best) == found.group(4)
    assert step.pair == (found.group(5), found.group(6)) == order_tied(listed, rule)[0]
    for other in TIE_BREAKS:
        if other != rule:
            pick = order_tied(listed, other)[0]
            assert f"{other} would take ({pick[0]}, {pick[1]})" in found.group(7)
    assert "In Python: min(scores," in text
