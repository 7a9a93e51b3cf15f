"""The Unigram mistakes of published code: each model departs where its witness says, the
feedback claims only what the student's run shows, and the stub's worked examples are the
reference's own.

The student-style files of these mistakes are graded by ``grade audit`` (tests/mistakes
grades them once, names each exactly and checks nothing false is named); the one file here
graded on its own is the forward pass in log space without log-sum-exp, another way of
making the underflow mistake, which the audit has no slot for.
"""

from __future__ import annotations

import itertools
import re

import pytest

from grader.families.unigram.feedback import model_message, segment_message
from grader.families.unigram.mistakes import (
    BOOK,
    COMBINATIONS,
    REAL_CODE_MISTAKES,
    telling_crash,
)
from grader.families.unigram.real_code import NoPathThroughUnknown, digamma
from grader.families.unigram.students import VARIANTS, student_source
from grader.grading.audit import exercise_without_efficiency
from grader.grading.engine import grade_submission
from grader.spec import load_exercise
from reference.unigram import SPACE, normalize, prune, segment, viterbi

EXERCISE = load_exercise("unigram-lm")


@pytest.mark.parametrize("mistake", REAL_CODE_MISTAKES + COMBINATIONS, ids=lambda m: m.id)
def test_each_real_code_mistake_departs_from_the_reference_on_its_witness(mistake):
    reference = BOOK.reference[mistake.role](**mistake.witness)
    try:
        output = mistake.output_on(mistake.witness)
    except NoPathThroughUnknown:
        return
    assert BOOK.canonical(mistake.role, output) != BOOK.canonical(mistake.role, reference)


def test_conventions_of_sentencepiece_are_said_to_be_conventions():
    by_id = {m.id: m for m in REAL_CODE_MISTAKES}
    for mistake_id in ("unigram-no-dummy-prefix", "unigram-extra-spaces-kept",
                       "unigram-em-digamma"):
        hint = by_id[mistake_id].hint
        assert "SentencePiece" in hint and "This exercise asks for" in hint, mistake_id
    assert by_id["unigram-no-dummy-prefix"].hint.startswith("This is a SentencePiece convention")


def test_digamma_satisfies_its_recurrence_and_known_value():
    assert digamma(1.0) == pytest.approx(-0.5772156649015329, abs=1e-10)
    for x in (0.3, 1.7, 5.5, 12.0):
        assert digamma(x + 1) - digamma(x) == pytest.approx(1 / x, abs=1e-10)


def test_crash_and_infinity_are_told_apart_from_other_failures():
    assert telling_crash("log_likelihood", "log_likelihood must return a finite float; it "
                                           "returned a float(-inf) object")
    assert telling_crash("segment", "TypeError: cannot unpack non-iterable NoneType object")
    assert not telling_crash("segment", "ZeroDivisionError: division by zero")
    assert not telling_crash("em_step", "TypeError: cannot unpack non-iterable NoneType object")


# --------------------------------------------------------------------------- the truth check


def test_unjoined_unknown_characters_are_not_blamed_on_the_tie_rule():
    """The segmentation is right but for the unknown run: the path scores the same as the
    expected one, and the tie rule had nothing to do with it."""
    pieces = {SPACE: -1.0, "a": -1.0}
    want = segment("a zz", pieces)
    got = [SPACE, "a", SPACE, "z", "z"]
    message = segment_message("a zz", pieces, want, got)
    assert "tie rule" not in message
    assert "adjacent unknown characters must come back as one piece" in message


def test_the_tie_rule_is_named_only_when_the_two_paths_really_tie():
    case = next(c for c in EXERCISE.cases if c.id == "equal-scores")
    pieces = dict(case.pieces)
    tied = segment_message(case.text, pieces, list(case.segmentation), [f"{SPACE}a", "b"])
    assert "both score the same" in tied
    # <unk> is no path at all: no score, no tie
    unk = segment_message("a z", {SPACE: -1.0, "a": -1.0}, segment("a z", {SPACE: -1.0, "a": -1.0}),
                          [SPACE, "a", SPACE, "<unk>"])
    assert "tie" not in unk


def test_prune_feedback_counts_the_pieces_returned():
    corpus, pieces, keep = ["ab"], {SPACE: -1.0, "a": -1.0, "b": -1.0, "c": -1.0, "ab": -1.0}, 4
    want = prune(corpus, pieces, keep)
    got = dict(pieces)
    message = model_message("prune", want, got, 1e-6)
    assert "not expected 'ab'" in message
    assert f"You return {len(got)} pieces; {len(want)} are left after pruning." in message


# --------------------------------------------------------------------------- worked examples


def _segmentations(normalized, pieces):
    for cuts in itertools.product([False, True], repeat=len(normalized) - 1):
        tokens, start = [], 0
        for position, cut in enumerate(cuts, 1):
            if cut:
                tokens.append(normalized[start:position])
                start = position
        tokens.append(normalized[start:])
        if all(token in pieces for token in tokens):
            yield tokens


WORDS = {"two": 2, "three": 3, "four": 4}


def test_the_cases_worked_ties_are_recomputed_from_their_own_numbers():
    """"three segmentations of ▁ab score -3.0: the tie rule keeps ▁ + ab": the count, the
    score and the winner, all from the case's own pieces."""
    checked = 0
    for case in EXERCISE.cases:
        found = re.search(r"(\w+) segmentations of (\S+) score (-?[\d.]+): the tie rule keeps "
                          r"(.+)$", case.description or "")
        if not found:
            continue
        count, text, score = WORDS[found.group(1)], found.group(2), float(found.group(3))
        pieces = dict(case.pieces)
        assert normalize(case.text) == text
        scoring = [s for s in _segmentations(text, pieces)
                   if sum(pieces[t] for t in s) == pytest.approx(score)]
        assert len(scoring) == count
        best, best_score = viterbi(case.text, pieces)
        assert best_score == pytest.approx(score)
        assert best == [part.strip() for part in found.group(4).split("+")]
        checked += 1
    assert checked


def test_the_shorter_first_piece_example_holds():
    """"the longest first piece ▁a loses to ▁ followed by ab"."""
    case = next(c for c in EXERCISE.cases if c.id == "shorter-first-piece")
    pieces = dict(case.pieces)
    tokens, _ = viterbi(case.text, pieces)
    assert tokens[:2] == [SPACE, "ab"]
    assert f"{SPACE}a" in pieces and normalize(case.text).startswith(f"{SPACE}a")


# --------------------------------------------------------------------------- another file


@pytest.fixture(scope="module")
def exp_underflow_report(tmp_path_factory):
    path = tmp_path_factory.mktemp("variant") / "student.py"
    path.write_text(student_source(EXERCISE, "unigram-forward-exp-underflow"), encoding="utf-8")
    return grade_submission(path, exercise_without_efficiency(EXERCISE), helper=False)


def test_a_forward_pass_returning_minus_infinity_is_named_underflow(exp_underflow_report):
    """``math.log(sum(math.exp(x) ...))`` guarded to -inf: the shape failure is explained by
    the underflow mistake, and nothing else is named."""
    assert VARIANTS["unigram-forward-exp-underflow"].id == "unigram-likelihood-underflow"
    names = {milestone.id: {d.id for c in milestone.checks for d in c.diagnoses}
             for milestone in exp_underflow_report.milestones}
    failed = {m.id for m in exp_underflow_report.milestones if not m.passed}
    assert failed == {"likelihood"}
    assert names["likelihood"] == {"unigram-likelihood-underflow"}
    assert all(not found for milestone, found in names.items() if milestone != "likelihood")


def test_a_long_text_is_summarised_not_dumped(exp_underflow_report):
    """The 600-character text is shown by its start and its length."""
    from grader.families.unigram.generated import LONG_TEXT

    message = next(c.message for m in exp_underflow_report.milestones for c in m.checks
                   if c.id == "differential" and not c.passed)
    assert LONG_TEXT not in message
    assert f"({len(LONG_TEXT)} characters in all)" in message


def test_every_published_pattern_is_an_audited_published_student():
    """grade audit fails unless a published pattern's file is named by its own mistake: every
    real-code entry with a student file has that file marked so."""
    from grader.families.unigram.mistakes import REAL_CODE_MISTAKES
    from grader.families.unigram.students import STUDENT_MISTAKES

    with_files = {m.id for m in REAL_CODE_MISTAKES} & set(STUDENT_MISTAKES)
    assert with_files and all(STUDENT_MISTAKES[i].published for i in with_files)
