"""Naming per milestone: a name survives only if it explains failing inputs and contradicts none;
two mistakes at once are named together when no single one explains them all."""

from __future__ import annotations

import time

import pytest

from grader.families.bpe.catalogue import LESSON_WORD_COUNTS, SOLVED_PROBLEM_TEXTS, mistake_by_id
from grader.families.bpe.compound import combination_by_id, train_with
from grader.families.bpe.book import BOOK
from grader.mistakes import narrowing
from grader.spec.mistake_book import Observation
from grader.families.bpe.real_code import NoPairLeft
from reference import encode, train_bpe

LEX = {"tie_break": "lexicographic", "end_of_word": "</w>"}
FIRST_SEEN = {"tie_break": "first-seen", "end_of_word": "</w>"}
CRASH_TEXT = "train_bpe raised ValueError: max() arg is an empty sequence"

# the inputs of a train milestone: the shipped cases' corpora, and a few small generated ones
TRAIN_INPUTS = [
    (SOLVED_PROBLEM_TEXTS, 5), (["a"], 10), ([""], 3), (["cat cat cat cat cap cap cap cap"], 2),
    (["low low low low low lower lower lowest lowest lowest lowest newer newer newer newer newer "
      "newer wider wider wider new new"], 10),
    (["ab ab ab abc abc"], 4), (["zy ab"], 3), (["aaaa aaa aa aaaa"], 4), (["hi hi", "ha"], 50),
    ([], 3), (["ab abc b b"], 3), (["cab ab abc bc"], 6), (["ab ca bca"], 6),
]


def observe_train(run, options=LEX, inputs=TRAIN_INPUTS):
    """What a student whose trainer is ``run`` shows on failing inputs, and the ones it gets right."""
    failing, right = [], []
    for corpus, num_merges in inputs:
        given = {"corpus": corpus, "num_merges": num_merges}
        try:
            out = run(corpus, num_merges, **options)
        except NoPairLeft:
            failing.append(Observation(given, crash=CRASH_TEXT))
            continue
        if out != train_bpe(corpus, num_merges, **options):
            failing.append(Observation(given, actual=out))
        else:
            right.append(Observation(given, actual=out))
    return failing, right


def names(role, failing, options, right=()):
    return [n.mistake.id for n in name_for_milestone(role, failing, options, agreeing=right)]


@pytest.mark.parametrize("mistake_id", [
    "no-pair-crash", "min-count-two", "marker-glued", "merge-by-string-replace",
    "ties-reverse-lexicographic", "ties-first-seen",
])
def test_a_single_real_code_mistake_is_named_alone(mistake_id):
    failing, right = observe_train(mistake_by_id(mistake_id).run)
    assert names("train", failing, LEX, right) == [mistake_id]


@pytest.mark.parametrize("combined_id", [
    "ties-reverse-lexicographic+merge-by-string-replace",
    "marker-glued+min-count-two",
    "ties-reverse-lexicographic+no-pair-crash",
    "unweighted-counts+no-pair-crash",
])
def test_two_mistakes_at_once_are_named_together(combined_id):
    failing, right = observe_train(combination_by_id(combined_id).run)
    found = name_for_milestone("train", failing, LEX, agreeing=right)
    assert [n.mistake.id for n in found] == [combined_id]
    assert found[0].combined and found[0].explained == len(failing)


def test_a_tie_rule_bug_is_named_first_as_the_tie_rule():
    """Stale counts also reproduce some tie-rule outputs; across the inputs it is contradicted."""
    run = mistake_by_id("ties-first-seen").run
    failing, right = observe_train(run)
    assert names("train", failing, LEX, right)[0] == "ties-first-seen"
    assert "ties-first-seen" in names("train", failing[:1], LEX)


def test_a_name_contradicted_by_one_failing_input_is_dropped():
    corpus = {"corpus": ["aa"], "num_merges": 10}
    # on ["aa"] a first-seen tie and a missing marker both merge (a, a) first
    out = mistake_by_id("ties-first-seen").run(["aa"], 10, **LEX)
    alone = names("train", [Observation(corpus, actual=out)], LEX)
    assert "ties-first-seen" in alone
    bigger = {"corpus": LESSON_WORD_COUNTS, "num_merges": 6}
    more = Observation(bigger, actual=mistake_by_id("ties-first-seen").run(LESSON_WORD_COUNTS, 6, **LEX))
    narrowed = names("train", [Observation(corpus, actual=out), more], LEX)
    assert narrowed == ["ties-first-seen"]
    assert set(alone) - set(narrowed)  # something was dropped


def test_a_right_answer_contradicts_the_mistakes_that_would_get_it_wrong():
    merges = train_bpe(LESSON_WORD_COUNTS, 10, tie_break="first-seen")
    dropped = [t for t in encode("zz", merges) if t != "</w>"]
    failing = [Observation({"word": "zz", "merges": merges}, actual=dropped)]
    both = names("encode", failing, {"end_of_word": "</w>"})
    assert {"encode-no-end-of-word", "encode-marker-dropped"} <= set(both)
    lowest = [t for t in encode("lowest", merges) if t != "</w>"]  # est</w> kept: marker merged
    right = [Observation({"word": "lowest", "merges": merges}, actual=lowest)]
    assert names("encode", failing, {"end_of_word": "</w>"}, right) == ["encode-marker-dropped"]


def test_glued_marker_code_is_not_said_to_drop_the_marker():
    merges = train_bpe(LESSON_WORD_COUNTS, 10, tie_break="first-seen")
    run = mistake_by_id("encode-marker-glued").run
    failing = [Observation({"word": w, "merges": merges}, actual=run(w, merges))
               for w in ("lowest", "newest", "widest", "lower", "nest", "low")
               if run(w, merges) != encode(w, merges)]
    assert names("encode", failing, {"end_of_word": "</w>"}) == ["encode-marker-glued"]


def test_encoders_that_lowercase_or_cut_the_longest_token_are_named():
    learned = {k: train_bpe({"aaa": 1, "acc": 3, "baac": 2}, k) for k in (4, 6)}
    for mistake_id, words in {
        "encode-lowercased": [("Aac", 4), ("ACC", 4), ("Baac", 6)],
        "encode-longest-anywhere": [("aac", 4), ("aaac", 6), ("baaac", 6)],
        "encode-lowercased+encode-longest-anywhere": [("Aac", 4), ("AAAC", 6), ("baaac", 6)],
    }.items():
        run = (combination_by_id(mistake_id) if "+" in mistake_id else mistake_by_id(mistake_id)).run
        failing = [Observation({"word": w, "merges": learned[k]}, actual=run(w, learned[k]))
                   for w, k in words]
        assert names("encode", failing, {"end_of_word": "</w>"}) == [mistake_id]


def test_survivors_are_ranked_by_how_many_inputs_they_explain():
    out = mistake_by_id("ties-first-seen").run(LESSON_WORD_COUNTS, 6, **LEX)
    crash = Observation({"corpus": ["a"], "num_merges": 10}, crash="train_bpe raised a KeyError")
    assert not usable("train", crash)  # another crash says nothing about running out of pairs
    found = name_for_milestone(
        "train", [Observation({"corpus": LESSON_WORD_COUNTS, "num_merges": 6}, actual=out), crash], LEX)
    assert found and all(n.explained == 1 for n in found)
    assert "reproduces your output on the failing input" in found[0].evidence()


def test_the_combination_search_keeps_to_its_budget():
    failing, _ = observe_train(combination_by_id("marker-glued+min-count-two").run)
    started = time.perf_counter()
    assert name_for_milestone("train", failing, LEX, budget=0.0) == []
    assert time.perf_counter() - started < 0.5
    started = time.perf_counter()
    assert name_for_milestone("train", failing, LEX)
    assert time.perf_counter() - started < 1.0


def test_the_exercise_rule_is_never_part_of_a_name():
    failing, right = observe_train(
        lambda c, n, **o: train_with({"words": "glued"}, c, n, **o), options=FIRST_SEEN)
    found = names("train", failing, FIRST_SEEN, right)
    assert found == ["marker-glued"]
    assert not any("ties-first-seen" in name for name in found)


def name_for_milestone(role, observations, options, **more):
    return narrowing.name_for_milestone(BOOK, role, observations, options, **more)


def usable(role, observation):
    return narrowing.usable(BOOK, role, observation)
