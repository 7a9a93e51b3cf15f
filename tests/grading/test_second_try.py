"""The CPU-time bound of a second try: set only where the role's reference needs little CPU
time on the input and the bound is below the call limit; and each shipped ``reference`` hook
gives the same answer as the reference the judges use."""

from __future__ import annotations

import pytest

from grader.families.bpe.generated import reference_merges
from grader.families.bpe.pair_counts import count_pairs
from grader.families.bpe.tradeoff import reference_rows
from grader.families.byte_level.expected import case_text, reference_byte_bpe, vocab_size
from grader.families.unigram.expected import expected as unigram_expected
from grader.families.wordpiece.expected import wordpiece_merges
from grader.grading import second_try
from grader.grading.second_try import CPU_STOP_RATIO, CPU_STOP_SECONDS, cpu_bound
from grader.spec import load_exercise
from grader.spec.registry import role_of

BPE = load_exercise("bpe-train-encode")
SMALL = ([""], 3)


def test_a_tiny_input_gets_the_bound():
    assert cpu_bound(BPE, "train", SMALL) == CPU_STOP_SECONDS


def test_no_bound_without_a_reference_or_above_the_call_limit():
    assert role_of(BPE, "encode").reference is None
    assert cpu_bound(BPE, "encode", ("low", [])) is None
    short = BPE.model_copy(update={"limits": BPE.limits.model_copy(
        update={"call_seconds": CPU_STOP_SECONDS})})
    assert cpu_bound(short, "train", SMALL) is None


def test_no_bound_where_the_reference_needs_more_than_its_share(monkeypatch):
    share = CPU_STOP_SECONDS / CPU_STOP_RATIO
    monkeypatch.setattr(second_try, "_cpu_of", lambda reference, exercise, args: share)
    assert cpu_bound(BPE, "train", SMALL) is None  # the bound would not be *over* the ratio
    monkeypatch.setattr(second_try, "_cpu_of", lambda reference, exercise, args: share * 0.99)
    assert cpu_bound(BPE, "train", SMALL) == CPU_STOP_SECONDS
    monkeypatch.setattr(second_try, "_cpu_of", lambda reference, exercise, args: None)
    assert cpu_bound(BPE, "train", SMALL) is None  # the reference refused the input


@pytest.mark.parametrize("exercise_id", ["bpe-train-encode", "bpe-steps", "lesson97-bpe"])
def test_the_character_bpe_hooks_give_the_references_answers(exercise_id):
    exercise = load_exercise(exercise_id)
    case = exercise.cases[0]
    args = (case.corpus, case.num_merges)
    assert role_of(exercise, "train").reference(exercise, args) == reference_merges(exercise, *args)
    if "count_pairs" in exercise.roles():
        words = {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2}
        assert role_of(exercise, "count_pairs").reference(exercise, (words,)) == count_pairs(words)
    if "vocab_tradeoff" in exercise.roles():
        documents, sizes = ["low low lower", "newest widest"], [2, 4]
        assert (role_of(exercise, "vocab_tradeoff").reference(exercise, (documents, sizes, 8))
                == reference_rows(exercise, documents, sizes, 8))


def test_the_other_families_hooks_give_the_references_answers():
    byte = load_exercise("byte-bpe")
    case = byte.cases[0]
    args = (case_text(case), vocab_size(case), tuple(case.special_tokens))
    assert role_of(byte, "train_byte_bpe").reference(byte, args) == reference_byte_bpe(case)
    wordpiece = load_exercise("wordpiece")
    case = wordpiece.cases[0]
    args = (case.corpus, case.num_merges)
    assert (role_of(wordpiece, "train_wordpiece").reference(wordpiece, args)
            == wordpiece_merges(wordpiece, *args))
    unigram = load_exercise("unigram-lm")
    pieces = {"▁": -1.0, "a": -1.0, "b": -1.0, "▁a": -2.0, "ab": -1.5}
    for role, inputs in (("segment", ("ab", pieces)), ("em_step", (["ab ab", "b"], pieces))):
        assert role_of(unigram, role).reference(unigram, inputs) == unigram_expected(role, inputs)
