"""Graded for real: inputs that find real students' bugs, one charge per root cause in the text,
follow-through for a function built on another, and inputs shown as the student's function
takes them."""

from __future__ import annotations

import re

import pytest

from grader.grading.audit import exercise_without_efficiency
from grader.grading.engine import grade_submission
from grader.report import render
from grader.spec import load_exercise
from grader.spec.models import Check
from grader.spec.stubs import render_stub
from support.audits import audit_group, audit_of, audited, in_audit_group

TRAIN_ENCODE = load_exercise("bpe-train-encode")
LESSON = load_exercise("lesson97-bpe")


IN_TRAIN_ENCODE_AUDIT = pytest.mark.xdist_group(audit_group("bpe-train-encode"))
"""Tests reading gradings of bpe-train-encode's audit (``support.audits``: a mistake's
student-style file graded without the efficiency milestone, as ``graded`` below grades a
source)."""


def graded(exercise, tmp_path, source):
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(path, exercise_without_efficiency(exercise))


def milestone(report, milestone_id):
    return next(m for m in report.milestones if m.id == milestone_id)


@IN_TRAIN_ENCODE_AUDIT
def test_the_longest_token_encoder_loses_every_input_it_gets_wrong():
    report = audited("bpe-train-encode", "encode-longest-anywhere")
    encode = milestone(report, "encode")
    assert not encode.passed and encode.score < encode.max_score
    differential = next(c for c in encode.checks if c.id == "differential")
    # the share of the generated inputs it answers right, and no more
    assert not differential.passed and differential.score < differential.max_score
    assert "earns their share" in differential.message or differential.score == 0
    assert milestone(report, "train").passed


@IN_TRAIN_ENCODE_AUDIT
def test_the_lowercasing_encoder_fails_generated_and_property_checks():
    report = audited("bpe-train-encode", "encode-lowercased")
    encode = milestone(report, "encode")
    failed = {check.id for check in encode.checks if not check.passed}
    assert "differential" in failed and "property:round-trip" in failed


@IN_TRAIN_ENCODE_AUDIT
def test_a_crash_costs_only_the_inputs_where_it_happens():
    report = audited("bpe-train-encode", "no-pair-crash")
    train = milestone(report, "train")
    properties = [c for c in train.checks if c.id.startswith("property:")]
    assert properties and all(c.passed and c.score > 0 for c in properties)
    # each property earns the share of the inputs it answers, as a wrong answer there would
    assert all("earns their share" in c.message and "could not hold there" in c.message
               for c in properties if c.score < c.max_score)
    differential = next(c for c in train.checks if c.id == "differential")
    assert not differential.passed and 0 < differential.score < differential.max_score
    assert "earns their share" in differential.message
    every_crash = sum(c.max_score for c in train.checks
                      if not c.passed and c.id.startswith("cases:"))
    lost_by_properties = sum(c.max_score - c.score for c in properties)
    assert train.score == pytest.approx(train.max_score - every_crash - lost_by_properties
                                        - (differential.max_score - differential.score), abs=1e-3)
    assert {d.id for c in train.checks for d in c.diagnoses} == {"no-pair-crash"}
    text = render(report, "text")
    assert text.count("max() arg is an empty sequence") + text.count("min() arg is an empty sequence") <= 3
    assert text.count("Likely mistake") == 1


@IN_TRAIN_ENCODE_AUDIT
def test_a_crash_does_not_hide_the_second_bug_from_the_differential_check():
    report = audited("bpe-train-encode", "ties-reverse-lexicographic+no-pair-crash")
    differential = next(c for c in milestone(report, "train").checks if c.id == "differential")
    assert "it differs too" in differential.message
    assert [d.id for d in differential.diagnoses] == ["ties-reverse-lexicographic+no-pair-crash"]


def test_the_untouched_stub_is_a_short_report(tmp_path):
    stub = tmp_path / "stub.py"
    stub.write_text(render_stub(TRAIN_ENCODE), encoding="utf-8")
    text = render(grade_submission(stub, TRAIN_ENCODE), "text")
    assert text.count("NotImplementedError") <= 4
    assert len(text.splitlines()) <= 40


@pytest.mark.xdist_group(audit_group("bpe-train-encode"))
def test_a_correct_solution_is_a_few_lines():
    report = audit_of("bpe-train-encode").reports["reference"]  # the example, graded in full
    text = render(report, "text")
    assert report.score == report.max_score
    assert "passed" not in text.replace("checks passed", "").replace("check passed", "")
    assert len(text.splitlines()) <= 25
    assert len(render(report, "text", verbose=True).splitlines()) > 40


MARKER_DROPPING_TOKENIZE = '''# exercise: lesson97-bpe
def train_bpe(corpus, num_merges):
    words = {tuple(w) + ("</w>",): c for w, c in corpus.items()}
    merges = []
    for _ in range(num_merges):
        pairs = {}
        for s, c in words.items():
            for p in zip(s, s[1:]):
                pairs[p] = pairs.get(p, 0) + c
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        merges.append((best, best[0] + best[1]))
        new = {}
        for s, c in words.items():
            out, i = [], 0
            while i < len(s):
                if i + 1 < len(s) and (s[i], s[i + 1]) == best:
                    out.append(s[i] + s[i + 1])
                    i += 2
                else:
                    out.append(s[i])
                    i += 1
            new[tuple(out)] = c
        words = new
    return merges


def tokenize(word, merges):
    symbols = list(word) + ["</w>"]
    for (a, b), token in merges:
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                out.append(token)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return [t for t in symbols if t != "</w>"]


def sequence_lengths(sentence, merges):
    words = sentence.split()
    return {"char": sum(len(w) + 1 for w in words),
            "bpe": sum(len(tokenize(w, merges)) for w in words),
            "word": len(words)}
'''


@pytest.fixture(scope="module")
def follow_through_report(tmp_path_factory):
    return graded(LESSON, tmp_path_factory.mktemp("follow"), MARKER_DROPPING_TOKENIZE)


def test_sequence_lengths_are_judged_against_the_students_own_tokenize(follow_through_report):
    report = follow_through_report
    assert not milestone(report, "tokenize").passed
    lengths = milestone(report, "sequence-lengths")
    assert lengths.passed, [(c.id, c.message) for c in lengths.checks if not c.passed]
    notes = [c.message for c in lengths.checks if c.message.startswith("your counts are right")]
    assert notes and "tokenize itself differs from the reference" in notes[0]
    assert "Note: your counts are right for your tokenize" in " ".join(render(report, "text").split())


def test_a_lengths_generated_check_says_it_followed_the_students_tokenize(tmp_path):
    # A course may judge sequence_lengths on generated inputs too. Inputs that pass only
    # because the counts are right for the student's own tokenize are said to, never that
    # they agree with the reference.
    tokenize, lengths = LESSON.milestone("tokenize"), LESSON.milestone("sequence-lengths")
    exercise = LESSON.model_copy(update={"milestones": [
        tokenize.model_copy(update={"checks": [Check(kind="cases")]}),
        lengths.model_copy(update={"checks": [Check(kind="differential")]})]})
    path = tmp_path / "student.py"
    path.write_text(MARKER_DROPPING_TOKENIZE, encoding="utf-8")
    report = grade_submission(path, exercise)
    differential = milestone(report, "sequence-lengths").checks[0]
    assert differential.passed, differential.message
    assert "agrees with the reference" not in differential.message
    assert re.match(r"right on \d+ generated inputs: your counts are right for your tokenize; "
                    r"tokenize itself differs from the reference \(tokenize\(", differential.message), \
        differential.message
    assert differential.message.endswith("milestone charges.")


def test_inputs_are_shown_in_the_form_the_students_function_takes(follow_through_report):
    tokenize = milestone(follow_through_report, "tokenize")
    failing = [c for c in tokenize.checks if not c.passed and c.visibility == "visible"]
    text = render(follow_through_report, "text")
    assert "(('e', 's'), 'es')" in text
    differential = next(c for c in failing if c.id == "differential")
    assert "[((" in differential.message or "[])" in differential.message
    names = {d.id for c in failing for d in c.diagnoses}
    assert names == {"encode-marker-dropped"}


@pytest.mark.parametrize("exercise_id, mistake_id, milestone_id", in_audit_group([
    ("wordpiece", "wordpiece-raw-frequency", "train"),
    ("wordpiece", "divergence-pairs-swapped", "divergence"),
    ("byte-bpe", "byte-ties-smaller", "train"),
    ("byte-bpe", "byte-str-tokens", "train"),
    ("byte-bpe", "byte-decode-each-token", "decode"),
]))
def test_every_family_names_a_milestone_from_all_its_failing_inputs(
        exercise_id, mistake_id, milestone_id):
    # The evidence ("reproduces your output on all N failing inputs") comes only from naming
    # the milestone as a whole: every family goes that one way.
    report = audited(exercise_id, mistake_id)
    named = [d for c in milestone(report, milestone_id).checks for d in c.diagnoses]
    assert named and {d.id for d in named} == {mistake_id}
    assert all(d.evidence and "reproduces your output" in d.evidence for d in named)

