"""Diagnosis names a mistake only when it reproduces the student's output exactly: each
catalogued mistake is named on its own output, the reference's output names nothing, and no
named mistake ever disagrees with what the student returned."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.families.bpe.catalogue import (
    CATALOGUE,
    LESSON_MERGES,
    LESSON_WORD_COUNTS,
    SOLVED_PROBLEM_TEXTS,
    Mistake,
    mistake_by_id,
    mistakes_for,
)
from grader.families.bpe.book import BOOK
from grader.families.bpe.real_code import NoPairLeft
from grader.mistakes.diagnosis import DEFAULT_TIME_LIMIT, matching
from reference import END_OF_WORD, TIE_BREAKS, encode, train_bpe
from reference.sequence_lengths import sequence_lengths

BY_ID = pytest.mark.parametrize("mistake", CATALOGUE, ids=[m.id for m in CATALOGUE])
OPTIONS = ("tie_break", "end_of_word")


def diagnose(role, actual, inputs, *, book=None, time_limit=DEFAULT_TIME_LIMIT, **options):
    """The BPE mistakes reproducing ``actual``; options may come with the inputs (a witness)."""
    book = book or BOOK
    if role not in book.reference:
        raise ValueError(f"role {role!r} is not one of {', '.join(book.reference)}")
    given = {**inputs, **options}
    return matching(book, role, actual, {k: v for k, v in given.items() if k not in OPTIONS},
                    {k: v for k, v in given.items() if k in OPTIONS}, time_limit=time_limit)


def diagnose_train(actual, corpus, num_merges, *, tie_break, end_of_word=END_OF_WORD, **more):
    return diagnose("train", actual, {"corpus": corpus, "num_merges": num_merges},
                    tie_break=tie_break, end_of_word=end_of_word, **more)


def diagnose_encode(actual, word, merges, *, end_of_word=END_OF_WORD, **more):
    return diagnose("encode", actual, {"word": word, "merges": merges}, end_of_word=end_of_word,
                    **more)


def diagnose_lengths(actual, sentence, merges, *, end_of_word=END_OF_WORD, **more):
    return diagnose("sequence_lengths", actual, {"sentence": sentence, "merges": merges},
                    end_of_word=end_of_word, **more)


def _answers(mistake: Mistake) -> bool:
    try:
        mistake.output_on(mistake.witness)
    except NoPairLeft:  # the crash entry: its witness is where it crashes (see test_narrowing)
        return False
    return True


ANSWERING = [m for m in CATALOGUE if _answers(m)]
BY_ANSWERING_ID = pytest.mark.parametrize("mistake", ANSWERING, ids=[m.id for m in ANSWERING])

REFERENCE = {
    "train": lambda inputs: train_bpe(**inputs),
    "encode": lambda inputs: encode(**inputs),
    "sequence_lengths": lambda inputs: sequence_lengths(**inputs),
    "count_pairs": lambda inputs: BOOK.reference["count_pairs"](**inputs),
    "merge_pair": lambda inputs: BOOK.reference["merge_pair"](**inputs),
    "vocab_tradeoff": lambda inputs: BOOK.reference["vocab_tradeoff"](**inputs),
}


@BY_ANSWERING_ID
def test_a_mistakes_own_output_on_its_witness_names_it(mistake: Mistake):
    actual = mistake.output_on(mistake.witness)
    named = diagnose(mistake.role, actual, mistake.witness)
    assert mistake in named
    for other in named:
        assert other.output_on(mistake.witness) == actual


@BY_ID
def test_the_references_output_names_nothing(mistake: Mistake):
    correct = REFERENCE[mistake.role](mistake.witness)
    assert diagnose(mistake.role, correct, mistake.witness) == []


@BY_ANSWERING_ID
def test_results_follow_catalogue_order(mistake: Mistake):
    named = diagnose(mistake.role, mistake.output_on(mistake.witness), mistake.witness)
    assert named == sorted(named, key=CATALOGUE.index)


def test_the_solved_problem_with_the_decks_first_seen_ties():
    """A student who copied the deck's `max(pairs, key=pairs.get)` into the lexicographic
    exercise is told about first-seen ties."""
    student = train_bpe(SOLVED_PROBLEM_TEXTS, 10, tie_break="first-seen")
    named = diagnose_train(student, SOLVED_PROBLEM_TEXTS, 10, tie_break="lexicographic")
    assert [m.id for m in named] == ["ties-first-seen"]


def test_the_exercise_own_tie_rule_is_never_named():
    rule = "concatenated"
    student = train_bpe(["cat cat cat cat cap cap cap cap"], 4, tie_break=rule)
    # an expected value that differs from the student's keeps the comparison going
    named = diagnose_train(
        student, ["cat cat cat cat cap cap cap cap"], 4, tie_break=rule, expected=[]
    )
    assert f"ties-{rule}" not in [m.id for m in named]
    named_elsewhere = diagnose_train(
        student, ["cat cat cat cat cap cap cap cap"], 4, tie_break="lexicographic"
    )
    assert f"ties-{rule}" in [m.id for m in named_elsewhere]


def test_lists_of_lists_are_the_same_merges():
    mistake = mistake_by_id("stale-counts")
    actual = [list(pair) for pair in mistake.output_on(mistake.witness)]
    assert mistake in diagnose("train", actual, mistake.witness)


@pytest.mark.parametrize(
    "actual",
    [None, "es", [("e", "s", "t")], [("e", 1)], {"e": "s"}, [["e", "s"], "est"]],
)
def test_a_malformed_merge_list_names_nothing(actual):
    assert diagnose_train(actual, LESSON_WORD_COUNTS, 6, tie_break="lexicographic") == []


@pytest.mark.parametrize("actual", [None, "low", [1, 2], ["low", None]])
def test_malformed_tokens_name_nothing(actual):
    assert diagnose_encode(actual, "lowest", LESSON_MERGES) == []


@pytest.mark.parametrize(
    "actual",
    [None, [44, 49, 6], {"char": True, "bpe": 49, "word": 6}, {"char": 44.0, "bpe": 49, "word": 6}],
)
def test_malformed_lengths_name_nothing(actual):
    assert diagnose_lengths(actual, "low lower low", LESSON_MERGES) == []


def test_an_unexplained_wrong_answer_names_nothing():
    assert diagnose_encode(["l", "owest", END_OF_WORD], "lowest", LESSON_MERGES) == []
    assert diagnose_train([("z", "z")], LESSON_WORD_COUNTS, 1, tie_break="lexicographic") == []


def test_inputs_the_reference_refuses_name_nothing():
    assert diagnose_train([("a", "b")], "not a corpus", 1, tie_break="lexicographic") == []


def test_unknown_role_is_refused():
    with pytest.raises(ValueError, match="train, encode, sequence_lengths"):
        diagnose("decode", [], {})


# --- mistakes that crash or hang are skipped -------------------------------------------------


def _fake(run) -> Mistake:
    return Mistake("fake", "Fake", "Fake hint.", "encode", run, {})


def _with_fakes(monkeypatch, *fakes: Mistake) -> None:
    monkeypatch.setitem(globals(), "BOOK", replace(BOOK, entries=fakes))


def test_a_mistake_that_raises_is_skipped(monkeypatch):
    def crash(word, merges, *, end_of_word):
        raise ZeroDivisionError

    agrees = _fake(lambda word, merges, *, end_of_word: ["x"])
    _with_fakes(monkeypatch, _fake(crash), agrees)
    assert diagnose_encode(["x"], "ab", []) == [agrees]


def test_a_mistake_over_the_time_limit_is_interrupted_and_skipped(monkeypatch):
    def slow(word, merges, *, end_of_word):
        time.sleep(5)
        return ["x"]

    _with_fakes(monkeypatch, _fake(slow))
    started = time.perf_counter()
    assert diagnose_encode(["x"], "ab", [], time_limit=0.2) == []
    assert time.perf_counter() - started < 2


def test_off_the_main_thread_a_late_result_is_discarded(monkeypatch):
    def slow(word, merges, *, end_of_word):
        time.sleep(0.3)
        return ["x"]

    _with_fakes(monkeypatch, _fake(slow))
    results: list[object] = []
    worker = threading.Thread(
        target=lambda: results.append(diagnose_encode(["x"], "ab", [], time_limit=0.05))
    )
    worker.start()
    worker.join()
    assert results == [[]]


# --- never a diagnosis that disagrees with the student ---------------------------------------

words = st.text(alphabet="abc", min_size=1, max_size=5)
corpora = st.one_of(
    st.lists(st.lists(words, max_size=4).map(" ".join), min_size=1, max_size=3),
    st.dictionaries(words, st.integers(1, 3), min_size=1, max_size=4),
)
mistake_index = st.integers(0, 10**6)


@settings(max_examples=30)
@given(
    corpus=corpora,
    num_merges=st.integers(0, 5),
    rule=st.sampled_from(TIE_BREAKS),
    source=mistake_index,
    perturb=st.booleans(),
)
def test_train_diagnosis_only_names_exact_reproductions(corpus, num_merges, rule, source, perturb):
    inputs = {
        "corpus": corpus, "num_merges": num_merges, "tie_break": rule, "end_of_word": END_OF_WORD
    }
    entries = mistakes_for("train")
    origin = entries[source % len(entries)]
    actual = origin.output_on(inputs)
    if perturb:
        actual = actual[::-1]
    named = diagnose("train", actual, inputs)
    for mistake in named:
        assert mistake.output_on(inputs) == actual
        assert mistake.convention.get("tie_break") != rule
    if actual != train_bpe(**inputs) and origin.convention.get("tie_break") != rule and not perturb:
        assert origin in named


@settings(max_examples=30)
@given(
    corpus=corpora,
    num_merges=st.integers(1, 6),
    word=st.text(alphabet="abcd", min_size=0, max_size=6),
    source=mistake_index,
)
def test_encode_diagnosis_only_names_exact_reproductions(corpus, num_merges, word, source):
    merges = train_bpe(corpus, num_merges)
    inputs = {"word": word, "merges": merges, "end_of_word": END_OF_WORD}
    entries = mistakes_for("encode")
    origin = entries[source % len(entries)]
    actual = origin.output_on(inputs)
    named = diagnose("encode", actual, inputs)
    for mistake in named:
        assert mistake.output_on(inputs) == actual
    assert (origin in named) == (actual != encode(**inputs))


@settings(max_examples=20)
@given(
    corpus=corpora,
    num_merges=st.integers(0, 6),
    sentence=st.lists(words, min_size=1, max_size=4).map(" ".join),
    source=mistake_index,
)
def test_lengths_diagnosis_only_names_exact_reproductions(corpus, num_merges, sentence, source):
    merges = train_bpe(corpus, num_merges)
    inputs = {"sentence": sentence, "merges": merges, "end_of_word": END_OF_WORD}
    entries = mistakes_for("sequence_lengths")
    origin = entries[source % len(entries)]
    actual = origin.output_on(inputs)
    named = diagnose("sequence_lengths", actual, inputs)
    for mistake in named:
        assert mistake.output_on(inputs) == actual
    assert (origin in named) == (actual != sequence_lengths(**inputs))
