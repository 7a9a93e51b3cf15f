"""The catalogue of known mistakes is honest: each entry departs from the reference on its own
witness, no two entries are the same function on every witness, and each behaves as its title
says on inputs small enough to check by hand."""

from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.families.bpe import catalogue as mistakes
from grader.families.bpe import wrong_bpe
from grader.families.bpe.book import BOOK
from grader.families.bpe.real_code import NoPairLeft
from grader.families.bpe.catalogue import (
    CATALOGUE,
    LESSON_MERGES,
    LESSON_SENTENCE,
    ROLES,
    Mistake,
    mistake_by_id,
    mistakes_for,
)
from reference import END_OF_WORD, TIE_BREAKS, encode, train_bpe
from reference.plain import train_steps
from reference.sequence_lengths import sequence_lengths

REFERENCE = {
    "train": lambda inputs: train_bpe(**inputs),
    "encode": lambda inputs: encode(**inputs),
    "sequence_lengths": lambda inputs: sequence_lengths(**inputs),
    "count_pairs": lambda inputs: BOOK.reference["count_pairs"](**inputs),
    "merge_pair": lambda inputs: BOOK.reference["merge_pair"](**inputs),
    "vocab_tradeoff": lambda inputs: BOOK.reference["vocab_tradeoff"](**inputs),
}

BY_ID = pytest.mark.parametrize("mistake", CATALOGUE, ids=[m.id for m in CATALOGUE])


def _is_merge_list(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(p, tuple) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in value
    )


def _is_token_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


def _is_lengths(value: object) -> bool:
    return (
        isinstance(value, dict)
        and set(value) == {"char", "bpe", "word"}
        and all(type(v) is int for v in value.values())
    )


def _is_counted(value: object) -> bool:
    """A dict of tuples of str (pairs, or words) to positive int counts."""
    return isinstance(value, dict) and all(
        isinstance(key, tuple) and all(isinstance(part, str) for part in key)
        and type(count) is int and count > 0 for key, count in value.items())


SHAPE = {"train": _is_merge_list, "encode": _is_token_list, "sequence_lengths": _is_lengths,
         "count_pairs": _is_counted, "merge_pair": _is_counted,
         "vocab_tradeoff": lambda value: isinstance(value, list) and all(
             isinstance(row, dict) and set(row) == {"size", "avg_tokens", "params"} for row in value)}
CRASHED = "crashed: no pair left"


def outcome(mistake: Mistake, inputs) -> object:
    """The entry's output, or :data:`CRASHED` for an entry whose mistake is the crash."""
    try:
        return mistake.output_on(inputs)
    except NoPairLeft:
        return CRASHED


# --- the catalogue as a whole ----------------------------------------------------------------


def test_ids_are_unique_and_roles_known():
    ids = [m.id for m in CATALOGUE]
    assert len(ids) == len(set(ids))
    assert {m.role for m in CATALOGUE} == set(ROLES)


def test_mistakes_for_keeps_catalogue_order_and_covers_everything():
    by_role = [m for role in ROLES for m in mistakes_for(role)]
    assert sorted(by_role, key=CATALOGUE.index) == [m for m in CATALOGUE]
    for role in ROLES:
        selected = mistakes_for(role)
        assert all(m.role == role for m in selected)
        assert list(selected) == sorted(selected, key=CATALOGUE.index)


def test_entries_can_key_sets_and_dicts():
    assert len(set(CATALOGUE)) == len(CATALOGUE)
    assert {m: m.id for m in CATALOGUE}[CATALOGUE[0]] == CATALOGUE[0].id


def test_unknown_role_is_refused_with_the_valid_ones():
    with pytest.raises(ValueError, match="train, encode, sequence_lengths"):
        mistakes_for("decode")


def test_mistake_by_id_finds_entries_and_refuses_unknown_ids():
    assert mistake_by_id("encode-longest-match").role == "encode"
    with pytest.raises(KeyError, match="no-such-mistake"):
        mistake_by_id("no-such-mistake")


def test_every_other_tie_rule_has_an_entry_and_only_those_carry_a_rule():
    tie_entries = {m.convention["tie_break"]: m for m in CATALOGUE if m.convention}
    assert set(tie_entries) == set(TIE_BREAKS)
    assert all(m.role == "train" for m in tie_entries.values())


def test_the_issue_minimum_is_catalogued():
    required = {
        "no-end-of-word", "marker-glued", "unweighted-counts",
        "across-word-boundaries", "raw-text", "stale-counts",
        "overlap-right-to-left", "one-merge-too-many", "one-merge-too-few",
        "no-stop-when-done", "ties-last-seen", "encode-left-to-right",
        "encode-longest-match", "encode-first-occurrence-only", "encode-marker-dropped",
        "encode-marker-after-merging", "encode-reverse-rank", "lengths-char-letters-only",
        "lengths-char-with-spaces", "lengths-word-with-marker",
    }
    assert required <= {m.id for m in CATALOGUE}


@BY_ID
def test_title_and_hint_are_teaching_text(mistake: Mistake):
    assert mistake.title and mistake.title[0].isupper() and not mistake.title.endswith(".")
    sentences = [s for s in mistake.hint.replace("e.g.", "eg").split(". ") if s.strip()]
    assert 2 <= len(sentences) <= 4, mistake.hint
    assert mistake.hint.endswith((".", ")", "`"))
    assert 80 <= len(mistake.hint) <= 420


# --- witnesses -------------------------------------------------------------------------------


@BY_ID
def test_output_departs_from_the_reference_on_its_witness(mistake: Mistake):
    output = outcome(mistake, mistake.witness)
    if output == CRASHED:  # the crash is the mistake: the reference answers there
        assert SHAPE[mistake.role](REFERENCE[mistake.role](mistake.witness))
        return
    assert SHAPE[mistake.role](output), output
    assert output != REFERENCE[mistake.role](mistake.witness)


@BY_ID
def test_running_does_not_mutate_the_witness(mistake: Mistake):
    before = copy.deepcopy(dict(mistake.witness))
    outcome(mistake, mistake.witness)
    assert dict(mistake.witness) == before


def test_tie_entries_witness_an_exercise_rule_other_than_their_own():
    for mistake in CATALOGUE:
        if mistake.convention:
            assert mistake.witness["tie_break"] != mistake.convention["tie_break"]


def test_encode_witnesses_use_merges_that_training_produced():
    for mistake in mistakes_for("encode"):
        merges = mistake.witness["merges"]
        assert any(
            train_bpe(corpus, len(merges), tie_break=rule) == merges
            for corpus in (mistakes.LESSON_WORD_COUNTS, {"aaa": 1, "acc": 3, "baac": 2})
            for rule in TIE_BREAKS
        ), mistake.id


@pytest.mark.parametrize("role", ROLES)
def test_no_two_entries_agree_on_every_witness_of_their_role(role):
    entries = mistakes_for(role)
    for first, second in itertools.combinations(entries, 2):
        assert any(
            outcome(first, w.witness) != outcome(second, w.witness) for w in entries
        ), f"{first.id} and {second.id} are the same mistake on every witness; merge them"


# --- the mechanics, checked by hand ------------------------------------------------------------


def test_merges_of_an_overlapping_pair():
    assert wrong_bpe.merge_right_to_left(("a", "a", "a"), ("a", "a")) == ("a", "aa")
    assert wrong_bpe.merge_first_occurrence(("a", "b", "a", "b"), ("a", "b")) == ("ab", "a", "b")
    # string replace glues `a` to a symbol that only starts with `b`
    assert wrong_bpe.merge_by_string_replace(("a", "b</w>"), ("a", "b")) == ("ab</w>",)
    assert wrong_bpe.merge_by_string_replace(("ca", "b"), ("a", "b")) == ("cab",)


def test_marker_variants_on_one_word():
    corpus = {"ab": 1}
    assert mistakes.train_marker_split(corpus, 1) == [("/", "w")]  # "/" sorts before "<"
    assert mistakes.train_marker_glued(corpus, 1) == [("a", "b</w>")]
    assert mistakes.train_without_marker(corpus, 2) == [("a", "b")]


def test_counting_variants_by_hand():
    # "ab" 3 times, "cd" once: weighted, (a, b) wins; unweighted, every pair ties at 1
    corpus = {"cd": 1, "ab": 3}
    assert train_bpe(corpus, 1) == [("a", "b")]
    assert mistakes.train_unweighted(corpus, 1, tie_break="first-seen") == [("c", "d")]
    # across words, "x y" is one stream x </w> y </w>, so a token spans the word boundary
    assert mistakes.train_across_words(["x y"], 2, tie_break="first-seen") == [
        ("x", END_OF_WORD),
        ("x" + END_OF_WORD, "y"),
    ]
    assert mistakes.train_texts_not_split(["x y"], 1, tie_break="first-seen") == [("x", " ")]
    stale = mistakes.train_stale_counts(["abc abc"], 3)
    assert stale == [("a", "b"), ("b", "c"), ("c", END_OF_WORD)]
    assert mistakes.train_merge_discarded(["abc abc"], 3) == [("a", "b")] * 3


def test_stopping_variants_by_hand():
    assert mistakes.train_repeat_last_when_done(["a"], 3) == [("a", END_OF_WORD)] * 3
    assert mistakes.train_repeat_last_when_done([""], 3) == []
    assert mistakes.train_one_too_many(["abc"], 1) == [("a", "b"), ("ab", "c")]
    assert mistakes.train_one_too_few(["abc"], 0) == []


def test_last_seen_tie_keeps_the_last_pair_met():
    counts = {("x", "y"): 2, ("a", "b"): 2, ("m", "n"): 1}
    assert wrong_bpe._pick_last_seen(counts, "lexicographic") == ("a", "b")


def test_the_deck_trap_longest_match_is_right_on_lowest_only_by_accident():
    assert mistakes.encode_longest_match("lowest", LESSON_MERGES) == encode("lowest", LESSON_MERGES)


def test_encode_variants_by_hand():
    merges = [("a", "b"), ("b", "c")]
    assert mistakes.encode_reverse_rank("abc", merges, end_of_word="") == ["a", "bc"]
    by_position = mistakes.encode_left_to_right("abc", [("b", "c"), ("a", "b")], end_of_word="")
    assert by_position == ["ab", "c"]
    assert mistakes.encode_marker_dropped("ab", merges) == ["ab"]
    late_marker = mistakes.encode_marker_after_merging("ab", [("b", END_OF_WORD)])
    assert late_marker == ["a", "b", END_OF_WORD]


def test_the_decks_sentence_lengths():
    """Lesson 97's 10 merges: BPE 49 tokens between characters-with-markers 50 and words 6;
    counting letters only (44) would put BPE above character level."""
    right = sequence_lengths(LESSON_SENTENCE, LESSON_MERGES)
    assert right == {"char": 50, "bpe": 49, "word": 6}
    assert mistakes.lengths_char_letters_only(LESSON_SENTENCE, LESSON_MERGES)["char"] == 44
    with_spaces = mistakes.lengths_char_with_spaces(LESSON_SENTENCE, LESSON_MERGES)
    assert with_spaces["char"] == len(LESSON_SENTENCE)


# --- every mistake runs on any small valid input ------------------------------------------------

words = st.text(alphabet="ab", min_size=1, max_size=5)
corpora = st.one_of(
    st.lists(st.lists(words, max_size=4).map(" ".join), max_size=3),
    st.dictionaries(words, st.integers(1, 3), max_size=4),
)


@settings(max_examples=40)
@given(corpus=corpora, num_merges=st.integers(0, 6), rule=st.sampled_from(TIE_BREAKS))
def test_train_mistakes_return_merge_lists_on_any_corpus(corpus, num_merges, rule):
    reference = train_bpe(corpus, num_merges, tie_break=rule)
    for mistake in mistakes_for("train"):
        inputs = {"corpus": corpus, "num_merges": num_merges, "tie_break": rule,
                  "end_of_word": END_OF_WORD}
        output = outcome(mistake, inputs)
        if output == CRASHED:  # only where the reference runs out of pairs
            assert len(reference) < num_merges, mistake.id
            continue
        assert _is_merge_list(output), mistake.id
    too_few = mistakes.train_one_too_few(corpus, num_merges, tie_break=rule)
    assert too_few == reference[: max(num_merges - 1, 0)]
    assert sorted(mistakes.train_sorted(corpus, num_merges, tie_break=rule)) == sorted(reference)


@settings(max_examples=40)
@given(corpus=corpora, num_merges=st.integers(0, 6), word=st.text(alphabet="abc", max_size=6))
def test_encode_and_length_mistakes_return_their_shapes(corpus, num_merges, word):
    merges = train_bpe(corpus, num_merges)
    for mistake in mistakes_for("encode"):
        assert _is_token_list(mistake.run(word, merges, end_of_word=END_OF_WORD)), mistake.id
    sentence = f"{word} {word}b"
    for mistake in mistakes_for("sequence_lengths"):
        assert _is_lengths(mistake.run(sentence, merges, end_of_word=END_OF_WORD)), mistake.id


@settings(max_examples=40)
@given(corpus=corpora, num_merges=st.integers(0, 8), rule=st.sampled_from(TIE_BREAKS))
def test_winning_counts_never_rise_so_sorting_by_count_is_no_mistake(corpus, num_merges, rule):
    """Why the catalogue has no "merges sorted by frequency" entry: it would equal the
    reference, because a stable sort by a non-increasing count keeps the learned order."""
    counts = [step.count for step in train_steps(corpus, num_merges, tie_break=rule)]
    assert counts == sorted(counts, reverse=True)
