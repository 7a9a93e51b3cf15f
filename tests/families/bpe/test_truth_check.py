"""The truth check on character BPE: false sentences and false names are not printed.

A tie that is not one, a count that is not the corpus's, a counterexample that does not fail
again and a name whose look-alike disagrees with the student are each left out; the
student-style files of published patterns are named by their own mistake and by nothing
false (each file graded once for the module).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.families.bpe.book import BOOK
from grader.families.bpe.catalogue import mistake_by_id
from grader.families.bpe.feedback import first_difference, merges_message
from grader.families.bpe.signals import train_signals
from grader.grading.engine import grade_submission
from grader.mistakes.narrowing import name_for_milestone
from grader.mistakes.truth import Claim, counterexample_holds, reproducing, said
from grader.spec import load_exercise
from grader.spec.mistake_book import Observation
from reference import train_bpe

SUBMISSIONS = Path(__file__).resolve().parents[2] / "submissions"
EXERCISE = load_exercise("bpe-train-encode")
OPTIONS = {"end_of_word": "</w>", "tie_break": "lexicographic"}


# --------------------------------------------------------------------------- claims


def test_a_claim_is_printed_only_when_it_holds():
    assert said("a.", Claim("true.", lambda: True), Claim("false.", lambda: False)) == "a. true."
    assert said(Claim("raises.", lambda: 1 / 0)) == ""


def test_a_tie_that_is_not_one_is_not_printed():
    corpus = ["low low lower"]  # ('l', 'o') and ('o', 'w') tie at 3 at step 1, nothing else
    expected = train_bpe(corpus, 2)
    actual = [("w", "e"), expected[1]]
    difference = first_difference(EXERCISE, corpus, 2, expected, actual)
    honest = merges_message(difference, 2, corpus, "</w>", expected)
    assert "tie at count 3" in honest
    forged = dict(difference, tied=[list(expected[0]), ["w", "e"]])
    forged["pair_counts"] = [[*p, 3] for p in (expected[0], ("w", "e"))]
    told = merges_message(forged, 2, corpus, "</w>", expected)
    assert "tie" not in told  # ('w', 'e') occurs once: the table's tie is not the corpus's
    assert "has count 3" not in told  # nor is its count


def test_the_stop_rule_is_said_only_where_no_pair_occurs_twice():
    expected = train_bpe(["a"], 1)
    difference = first_difference(EXERCISE, ["a"], 1, expected, [])
    assert "count of at least 2" in merges_message(difference, 1, ["a"], "</w>", expected)
    expected = train_bpe(["aa aa"], 1)
    difference = first_difference(EXERCISE, ["aa aa"], 1, expected, [])
    assert "at least 2" not in merges_message(difference, 1, ["aa aa"], "</w>", expected)


# --------------------------------------------------------------------------- counterexamples, names


def test_a_counterexample_that_does_not_fail_again_is_dropped():
    inputs = {"word": "low", "merges": [("l", "o")]}
    recorded = Observation(inputs, actual=["l", "o", "w", "</w>"])  # wrong: 'lo' is learned
    right = Observation(inputs, actual=["lo", "w", "</w>"])
    assert counterexample_holds(BOOK, "encode", recorded, {"end_of_word": "</w>"},
                                lambda given: recorded)
    assert not counterexample_holds(BOOK, "encode", recorded, {"end_of_word": "</w>"},
                                    lambda given: right)  # asked again, it answers right
    assert not counterexample_holds(BOOK, "encode", right, {"end_of_word": "</w>"}, None)


def test_of_two_names_only_the_one_the_student_reproduces_is_offered():
    greedy, left = mistake_by_id("encode-longest-match"), mistake_by_id("encode-left-to-right")
    seen = [Observation({"word": w, "merges": greedy.witness["merges"]},
                        actual=greedy.run(w, greedy.witness["merges"], end_of_word="</w>"))
            for w in ("aacc",)]
    options = {"end_of_word": "</w>"}
    named = name_for_milestone(BOOK, "encode", seen, options)

    def student(given):
        return Observation(dict(given), actual=greedy.run(**given, end_of_word="</w>"))

    kept = [n.mistake.id for n in reproducing(BOOK, "encode", named, options, student)]
    assert greedy.id in kept and left.id not in kept


def test_a_merge_made_by_str_replace_is_not_blamed_on_the_split():
    replace = mistake_by_id("merge-by-string-replace")
    corpus = ["bcaa caaa"]  # merge 4 joins 'caa</w>', a symbol only str.replace makes
    merges = replace.run(corpus, 5, **OPTIONS)
    (signal,) = train_signals([Observation({"corpus": corpus, "num_merges": 5}, actual=merges)],
                              OPTIONS)
    assert "str.replace" in signal[2] and "split into symbols" not in signal[2]
    glued = [("a", "a</w>")]  # a marker glued on at the start: the split is what is wrong
    (signal,) = train_signals([Observation({"corpus": corpus, "num_merges": 1}, actual=glued)],
                              OPTIONS)
    assert "split into symbols" in signal[2] and "str.replace" not in signal[2]


# --------------------------------------------------------------------------- published patterns

FILES = {
    "wrong_encode_word_characters.py": ("encode", "encode-non-word-dropped"),
    "wrong_encode_greedy_longest.py": ("encode", "encode-longest-match"),
    "wrong_stops_below_two.py": ("train", "min-count-two"),
    "wrong_replace_first_seen.py": ("train", "ties-first-seen+merge-by-string-replace"),
}
FALSE = {"encode-stripped", "encode-left-to-right", "signal-unknown-symbol"}


@pytest.fixture(scope="module")
def reports():
    return {name: grade_submission(SUBMISSIONS / name, EXERCISE, helper=False) for name in FILES}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_published_pattern_is_named_and_nothing_false_is(reports, name):
    milestone_id, mistake_id = FILES[name]
    report = reports[name]
    milestone = next(m for m in report.milestones if m.id == milestone_id)
    assert not milestone.passed
    named = {d.id for c in milestone.checks if c.visibility == "visible" for d in c.diagnoses}
    assert mistake_id in named
    assert not named & FALSE, named
    assert all(m.passed for m in report.milestones if m.id not in (milestone_id, "efficiency"))
    text = " ".join(c.message for c in milestone.checks)
    assert "more than this one mistake" not in text


def test_the_stop_rule_is_said_under_its_failure(reports):
    milestone = reports["wrong_stops_below_two.py"].milestones[0]
    assert any("count of at least 2" in c.message for c in milestone.checks)
