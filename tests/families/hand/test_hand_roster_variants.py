"""A roster's hand variants: classmates share no first merge and as few ties as the exercise's
corpus space allows, each student keeps theirs, and the grader reads it back from the file."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.families import hand
from grader.families.hand import mistakes
from grader.families.hand.assignment import (MAX_INDEX, answer_keys, assign_variants, own_variant,
                                             variant_check)
from grader.families.hand.audit import sheet_text
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.families.hand.variants import Prefilter, Variant, first_tie, variant_stream
from reference import Encoder
from reference.plain import train_steps
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


@pytest.fixture(scope="module")
def roster_of_30():
    """The whole roster's variants (about 10 s of CPU), and each student's first draw."""
    return (assign_variants(EXERCISE, ROSTER, SECRET),
            {s: diagnostic_variant(EXERCISE, s, SECRET) for s in ROSTER})


@pytest.mark.slow
@pytest.mark.xdist_group("hand-roster-of-30")  # the roster is drawn once, in one process
def test_a_roster_of_30_shares_few_first_merges_and_spreads_its_ties_evenly(roster_of_30):
    assigned, independent = roster_of_30
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


@pytest.mark.slow
@pytest.mark.xdist_group("hand-roster-of-30")
def test_two_students_of_a_roster_rarely_share_any_graded_answer(roster_of_30):
    """How rare a shared answer is, per question: the README states these rates."""
    assigned, independent = roster_of_30
    pairs = len(ROSTER) * (len(ROSTER) - 1) // 2

    def shared(variants):
        answers = [expected_answers(EXERCISE, v) for v in variants.values()]
        rates = {}
        for question in answers[0]:
            keys = Counter(repr(sorted(a[question].items()) if isinstance(a[question], dict)
                                else sorted(a[question])) for a in answers)
            rates[question] = sum(n * (n - 1) // 2 for n in keys.values()) / pairs
        rates["all"] = sum(a == b for i, a in enumerate(answers) for b in answers[i + 1:]) / pairs
        return rates

    roster, drawn = shared(assigned), shared(independent)
    assert roster["all"] == 0  # no two students can copy a whole file
    assert roster["first-merge"] <= 0.012 and roster["first-merge"] < drawn["first-merge"] / 4
    assert roster["tie"] < drawn["tie"] / 2  # as even as about a dozen distinct ties allow
    assert roster["pair-counts"] <= 0.01 and roster["tokens"] <= 0.01
    assert roster["vocabulary"] < drawn["vocabulary"]


def test_the_assignment_is_stable_and_keeps_earlier_students_when_others_join(assigned):
    fewer = assign_variants(EXERCISE, ROSTER[:5], SECRET)
    assert {s: v.corpus for s, v in fewer.items()} == {s: assigned[s].corpus for s in ROSTER[:5]}
    assert holders(assigned, "first-merge").most_common(1)[0][1] == 1


def commented(variant, text, check=""):
    lines = ["# Your corpus (word: count):"] + [f"#   {w}: {c}" for w, c in variant.corpus.items()]
    if check:
        lines.append(f"# Your variant: {variant.index} (check {check})")
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


def test_a_stub_names_its_variant_and_a_classmates_file_is_refused_without_a_search(assigned,
                                                                                     tmp_path):
    student, variant = next((s, v) for s, v in assigned.items() if v.index > 0)
    stub = hand.roster_sheets(EXERCISE, ROSTER[:8], SECRET)[student]
    check = variant_check(EXERCISE, SECRET, variant)
    assert f"# Your variant: {variant.index} (check {check})\n" in stub
    answers = sheet_text(EXERCISE, student, expected_answers(EXERCISE, variant))
    mine = tmp_path / "mine.yaml"
    mine.write_text(commented(variant, answers, check))
    report = grade_submission(mine, EXERCISE, seed_secret=SECRET, submitter=student)
    assert report.score == report.max_score == 100
    # Copied by someone who is not on this roster: the check fits only its own student, so
    # the file is refused on their first variant alone, none of their other draws searched.
    stranger = "student999"
    copied = tmp_path / "copied.yaml"
    copied.write_text(commented(variant, sheet_text(EXERCISE, stranger,
                                                    expected_answers(EXERCISE, variant)), check))
    report = grade_submission(copied, EXERCISE, seed_secret=SECRET, submitter=stranger)
    assert report.score == 0 and not report.gradable
    assert "was made for another corpus" in " ".join(report.errors)
    assert len(mistakes._drawn(EXERCISE, stranger, SECRET).variants) == 1
    # A changed check is no check of theirs either: not searched, not graded on that corpus.
    assert own_variant(EXERCISE, student, SECRET, dict(variant.corpus),
                       (variant.index, "0" * len(check))).index == 0


def _plain_words(exercise):
    """Words exposing each encoding mistake, computed afresh on every draw (no memo)."""
    settings, marker = exercise.answers, exercise.conventions.end_of_word
    encoders = list(mistakes._ENCODERS.values())
    pool = sorted(set(settings.encode_pool))

    def choose(rng, corpus, steps):
        merges = [step.pair for step in steps]
        encoder = Encoder(merges, end_of_word=marker)
        pieces = sorted({w[i:j] for w in corpus for i in range(len(w)) for j in range(i + 1, len(w) + 1)})
        low, high = mistakes.WORD_LENGTHS
        candidates = sorted(set(pool) | {a + b for a in pieces for b in pieces if low <= len(a + b) <= high})
        chosen = []
        for wrong in encoders:
            exposing = [w for w in candidates if wrong(w, merges, end_of_word=marker) != encoder.encode(w)]
            if not exposing:
                return None
            if not any(w in chosen for w in exposing):
                chosen.append(rng.choice(exposing))
        rest = [w for w in pool if w not in chosen]
        while len(chosen) < settings.encode_words and rest:
            chosen.append(rest.pop(rng.randrange(len(rest))))
        return tuple(chosen)

    return choose


def _plain_sheets_differ(exercise, questions_left_out=()):
    """Every applicable mistake's whole sheet against the expected one (no shortcut)."""
    def differ(variant):
        expected = expected_answers(exercise, variant)
        for mistake in mistakes.applicable(exercise):
            if questions_left_out and mistake.id in mistakes._ENCODERS:
                continue
            sheet = mistake.sheet(exercise, variant)
            if all(mistakes.same_answer(q, sheet[q], expected[q]) for q in expected
                   if q in sheet and q not in questions_left_out):
                return False
        return True

    return differ


def test_the_remembered_draws_are_the_plain_ones():
    """The draws skip training a corpus already rejected in another order, tell a tie rule's
    sheet from where its run departs, and remember the words that expose each encoding
    mistake: the variants are exactly those of checking every mistake's whole sheet afresh."""
    settings = EXERCISE.answers

    def plain_prefilter(corpus, steps):
        variant = Variant("", corpus, (), settings.num_merges, settings.pair_counts_step,
                          first_tie(steps) or 0, tuple(steps))
        return _plain_sheets_differ(EXERCISE, ("tokens",))(variant)

    # The cheap checks give the plain ones' verdict on every corpus, draws apart ...
    rng = random.Random(5)
    pool = sorted(set(settings.word_pool))
    prefilter = mistakes.training_exposes(EXERCISE)
    told = 0
    for _ in range(1500):
        corpus = {word: rng.randint(1, settings.max_count)
                  for word in rng.sample(pool, settings.corpus_words)}
        steps = list(train_steps(corpus, settings.num_merges, tie_break="concatenated"))
        if len(steps) == settings.num_merges and first_tie(steps):
            assert prefilter(corpus, steps) == plain_prefilter(corpus, steps), corpus
            told += 1
    assert told > 1000
    # ... and so the variants drawn are the same.
    for student in ("student000", "plain-check"):
        plain = variant_stream(EXERCISE, student, SECRET, choose_words=_plain_words(EXERCISE),
                               accept=_plain_sheets_differ(EXERCISE),
                               prefilter=Prefilter(lambda corpus, steps: True, plain_prefilter))
        for index in range(3):
            drawn, expected = diagnostic_variant(EXERCISE, student, SECRET, index), next(plain)
            assert drawn == expected and list(drawn.corpus.items()) == list(expected.corpus.items())
            assert drawn.index == index
