"""What a failing student reads: the first differing step, the tie, the diagnosis; and what a
hidden case never reveals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from exercise_variants import quick

from grader.grading.engine import grade_submission
from grader.families.bpe.feedback import first_difference, merges_message, tokens_message
from grader.grading.feedback import first_differing_index
from grader.result import GradeReport
from grader.spec import Exercise, load_exercise

SUBMISSIONS = Path(__file__).parents[1] / "submissions"


def all_public(exercise: Exercise) -> Exercise:
    cases = [case.model_copy(update={"visibility": "public"}) for case in exercise.cases]
    return exercise.model_copy(update={"cases": cases})


@pytest.fixture(scope="module")
def exercise() -> Exercise:
    return quick(load_exercise("bpe-train-encode"))


@pytest.fixture(scope="module")
def tie_report(exercise) -> GradeReport:
    return grade_submission(SUBMISSIONS / "wrong_tie_first_seen.py", exercise)


@pytest.fixture(scope="module")
def tie_report_all_public(exercise) -> GradeReport:
    return grade_submission(SUBMISSIONS / "wrong_tie_first_seen.py", all_public(exercise))


def check(report: GradeReport, milestone_id: str, check_id: str):
    milestone = next(m for m in report.milestones if m.id == milestone_id)
    return next(c for c in milestone.checks if c.id == check_id)


# --------------------------------------------------------------------------- the tie rule


def test_tie_rule_case_names_the_step_the_tied_pairs_and_the_rules_pick(tie_report_all_public):
    # cat x4, cap x4: after (c, a) four pairs tie at 4; lexicographic picks (ca, p), the
    # submission's first-seen rule picks (ca, t).
    result = check(tie_report_all_public, "train", "cases:four-way-tie")
    assert not result.passed and result.score == 0
    assert "merge 2 differs: expected ('ca', 'p'), got ('ca', 't')" in result.message
    assert "4 pairs tie at count 4" in result.message
    for pair in ("('ca', 't')", "('t', '</w>')", "('ca', 'p')", "('p', '</w>')"):
        assert pair in result.message
    assert "'lexicographic'" in result.message and "picks ('ca', 'p')" in result.message
    difference = result.details["first_difference"]
    assert difference["step"] == 2
    assert difference["expected"] == ["ca", "p"] and difference["actual"] == ["ca", "t"]
    assert sorted(map(tuple, difference["tied"])) == [("ca", "p"), ("ca", "t"), ("p", "</w>"), ("t", "</w>")]
    assert difference["tied"][0] == ["ca", "p"]  # the rule's order: its pick first
    assert difference["rule"] == "lexicographic"
    assert [row[2] for row in difference["pair_counts"]][:4] == [4, 4, 4, 4]
    assert result.details["input"] == {"corpus": ["cat cat cat cat cap cap cap cap"], "num_merges": 2}


def test_tie_rule_failure_is_diagnosed_as_the_first_seen_rule(tie_report_all_public):
    result = check(tie_report_all_public, "train", "cases:four-way-tie")
    assert "ties-first-seen" in [d.id for d in result.diagnoses]
    assert all(d.message for d in result.diagnoses)


def test_tie_rule_differential_reports_the_shrunk_counterexample(tie_report):
    result = check(tie_report, "train", "differential")
    assert not result.passed
    details = result.details
    assert details["kind"] == "counterexample"
    # The smallest corpus on which first-seen and lexicographic differ is a single two-letter
    # word: its two pairs tie at count 1 at the very first merge.
    corpus = details["input"]["corpus"]
    assert len(corpus) == 1 and len(corpus[0]) == 2
    assert details["first_difference"]["step"] == 1
    assert len(details["first_difference"]["tied"]) == 2
    assert "the smallest found is train_bpe(" in result.message
    # Diagnosed on the unshrunk input too, so only tie rules that reproduce both remain.
    ids = [d.id for d in result.diagnoses]
    assert "ties-first-seen" in ids
    assert all(i.startswith("ties-") for i in ids), ids


def test_properties_still_pass_for_a_wrong_but_consistent_trainer(tie_report):
    train = next(m for m in tie_report.milestones if m.id == "train")
    properties = [c for c in train.checks if c.id.startswith("property:")]
    assert {c.id for c in properties} == {
        "property:deterministic", "property:prefix-stable", "property:at-most-k",
        "property:inputs-unmodified",
    }
    assert all(c.passed for c in properties)


# --------------------------------------------------------------------------- hidden cases


def hidden_values(exercise: Exercise) -> list[str]:
    """Strings that would betray a hidden case: its texts, expected merges and long words
    (leaving out any that a public case shows anyway)."""
    public = json.dumps([case.model_dump() for case in exercise.public_cases], ensure_ascii=False)
    values = []
    for case in exercise.hidden_cases:
        values += [text for text in case.corpus if len(text.strip()) >= 4]  # texts or words
        if case.merges and len(case.merges) >= 2:
            values.append(json.dumps(case.merges))
        values += [item.word for item in case.encode if set(item.word) - set("abc")]
    return [value for value in values if value not in public]


def test_hidden_cases_never_reveal_their_input_or_expected_values(tie_report, exercise):
    hidden = [c for c in tie_report.checks if c.visibility == "hidden"]
    assert any(not c.passed for c in hidden), "the tie rule must fail some hidden case"
    for result in hidden:
        assert result.details is None and result.diagnoses == []
        assert result.message in ("passed", "failed (hidden case)")
    document = json.dumps(tie_report.to_json(), ensure_ascii=False)
    escaped = json.dumps(tie_report.to_json())
    for value in hidden_values(exercise):
        assert value not in document and value not in escaped, value


def test_hidden_check_titles_do_not_carry_case_descriptions(tie_report, exercise):
    titles = " ".join(c.title for c in tie_report.checks if c.visibility == "hidden")
    for case in exercise.hidden_cases:
        assert case.description not in titles


# --------------------------------------------------------------------------- encode


def test_encode_failure_shows_word_expected_and_actual_tokens(exercise):
    report = grade_submission(SUBMISSIONS / "wrong_encode_drops_marker.py", exercise)
    train = next(m for m in report.milestones if m.id == "train")
    assert train.score == train.max_score  # the encode bug does not cost training points
    result = check(report, "encode", "cases:problem-corpus:3")  # zz
    assert not result.passed
    assert result.details["kind"] == "tokens"
    assert result.details["input"]["word"] == "zz"
    assert result.details["expected"] == ["z", "z", "</w>"]
    assert result.details["actual"] == ["z", "z"]
    assert "encode('zz') returned ['z', 'z'], expected ['z', 'z', '</w>']" in result.message
    round_trip = check(report, "encode", "property:round-trip")
    assert not round_trip.passed
    assert round_trip.details["property"] == "round-trip"
    assert "join" in round_trip.message


# --------------------------------------------------------------------------- feedback functions


def test_first_differing_index_counts_an_ended_list_as_a_difference():
    assert first_differing_index([1, 2, 3], [1, 2, 3]) is None
    assert first_differing_index([1, 2, 3], [1, 5, 3]) == 1
    assert first_differing_index([1, 2], [1, 2, 3]) == 2
    assert first_differing_index([1, 2, 3], [1]) == 1


def test_merge_message_when_the_student_returns_too_many_or_too_few(exercise):
    corpus = ["hi hi", "ha"]
    expected = [("h", "i"), ("hi", "</w>"), ("h", "a"), ("ha", "</w>")]
    extra = first_difference(exercise, corpus, 50, expected, expected + [("hi</w>", "x")])
    assert extra["step"] == 5 and extra["expected"] is None and extra["pair_counts"] == []
    assert "no pair is left" in merges_message(extra, 50)
    short = first_difference(exercise, corpus, 50, expected, expected[:2])
    assert short["step"] == 3 and short["actual"] is None
    assert "your merges stop after 2, but merge 3 should be ('h', 'a')" in merges_message(short, 50)
    capped = first_difference(exercise, corpus, 2, expected[:2], expected[:3])
    assert "num_merges is 2" in merges_message(capped, 2)


def test_tokens_message_names_the_first_differing_token():
    text = tokens_message("encode", "lowest", ["low", "est</w>"], ["lo", "w", "est</w>"])
    assert "they first differ at token 1" in text
    text = tokens_message("encode", "zz", ["z", "z", "</w>"], ["z", "z"])
    assert "you returned 2 tokens, expected 3" in text
