"""The mistakes of published code, checked by hand, and the one trainer every training mistake
plugs into: alone it is each catalogued mistake, together it makes two at once."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.families.bpe.catalogue import LESSON_MERGES, mistake_by_id
from grader.families.bpe.compound import (
    TRAIN_PARTS,
    combination_by_id,
    combinations,
    train_with,
)
from grader.families.bpe.real_code import (
    NoPairLeft,
    crash_looks_like_no_pair_left,
    encode_longest_anywhere,
    encode_lowercased,
    encode_stripped,
    train_crash_when_no_pair,
    train_min_count_two,
)
from reference import TIE_BREAKS, encode, train_bpe

OVERLAP = {"aaa": 1, "acc": 3, "baac": 2}


def test_the_crash_happens_exactly_where_the_reference_runs_out_of_pairs():
    assert train_crash_when_no_pair(["ab"], 2) == train_bpe(["ab"], 2)
    with pytest.raises(NoPairLeft, match="empty sequence"):
        train_crash_when_no_pair(["ab"], 3)
    with pytest.raises(ValueError):
        train_crash_when_no_pair([], 1)
    assert train_crash_when_no_pair([], 0) == []


def test_the_crash_is_recognised_in_a_students_failure_message():
    assert crash_looks_like_no_pair_left("train_bpe raised ValueError: max() arg is an empty sequence")
    assert crash_looks_like_no_pair_left("train_bpe raised IndexError: list index out of range")
    assert not crash_looks_like_no_pair_left("train_bpe raised KeyError: ('a', 'b')")
    # the HF course's form: the best pair left at "" and unpacked into a helper
    assert crash_looks_like_no_pair_left(
        "train_bpe raised TypeError: merge_pair() missing 2 required positional arguments: "
        "'splits' and 'word_freqs'")


def test_min_count_two_stops_when_the_best_pair_occurs_once():
    assert train_min_count_two(["ab ab"], 5) == [("a", "b"), ("ab", "</w>")]
    assert train_min_count_two(["ab"], 5) == []
    assert train_bpe(["ab"], 5) == [("a", "b"), ("ab", "</w>")]


def test_longest_anywhere_takes_the_longest_token_and_recurses_on_both_sides():
    merges = train_bpe(OVERLAP, 4)
    assert merges == [("a", "c"), ("ac", "c"), ("acc", "</w>"), ("a", "a")]
    # (a, c) is learned first, so BPE gives a ac; the leftmost of the two-symbol tokens is aa
    assert encode("aac", merges) == ["a", "ac", "</w>"]
    assert encode_longest_anywhere("aac", merges) == ["aa", "c", "</w>"]
    # the longest token is found in the middle, and each side is split the same way
    assert encode_longest_anywhere("baacc", merges) == ["b", "a", "acc</w>"]
    # on the lesson's words it agrees with BPE: why fixed easy inputs never caught it
    for word in ("lowest", "newest", "widest", "lower", "slowest"):
        assert encode_longest_anywhere(word, LESSON_MERGES) == encode(word, LESSON_MERGES)


def test_lowercasing_and_stripping_encoders():
    assert encode_lowercased("Low", LESSON_MERGES) == encode("low", LESSON_MERGES)
    assert encode("Low", LESSON_MERGES) == ["L", "o", "w", "</w>"]
    assert encode_stripped("(low.)", LESSON_MERGES) == encode("low", LESSON_MERGES)
    assert encode_stripped("lo.w", LESSON_MERGES) == encode("lo.w", LESSON_MERGES)


def test_largest_pair_ties_are_catalogued_as_max_over_count_and_pair():
    entry = mistake_by_id("ties-reverse-lexicographic")
    counts = {("a", "b"): 2, ("b", "c"): 2, ("a", "a"): 1}
    assert max(counts, key=lambda p: (counts[p], p)) == ("b", "c")
    # in "ab bc" every pair occurs once; the largest is (c, </w>) ("c" > "b" > "a")
    assert entry.run(["ab bc"], 1) == [("c", "</w>")]
    assert train_bpe(["ab bc"], 1) == [("a", "b")]
    assert "largest pair" in entry.title


# --------------------------------------------------------------------------- combinations

words = st.text(alphabet="aabc", min_size=1, max_size=5)
corpora = st.one_of(
    st.lists(st.lists(words, max_size=4).map(" ".join), max_size=3),
    st.dictionaries(words, st.integers(1, 3), max_size=4),
)


def _outcome(run, *args, **options):
    try:
        return run(*args, **options)
    except NoPairLeft:
        return "crash"


@settings(max_examples=60, deadline=None)
@given(corpus=corpora, num_merges=st.integers(0, 7), rule=st.sampled_from(TIE_BREAKS))
def test_the_pluggable_trainer_with_one_part_changed_is_that_catalogued_mistake(corpus, num_merges, rule):
    for mistake_id, (part, value) in TRAIN_PARTS.items():
        entry = mistake_by_id(mistake_id)
        assert _outcome(train_with, {part: value}, corpus, num_merges, tie_break=rule) == _outcome(
            entry.run, corpus, num_merges, tie_break=rule), mistake_id


def test_nothing_changed_is_the_reference():
    assert train_with({}, ["low lower newest"], 8) == train_bpe(["low lower newest"], 8)


def test_combinations_pair_each_mistake_with_each_other_tie_rule_and_with_other_parts():
    found = combinations("train", {"tie_break": "lexicographic"})
    ids = [m.id for m in found]
    assert len(ids) == len(set(ids))
    assert "ties-reverse-lexicographic+merge-by-string-replace" in ids
    assert "marker-glued+min-count-two" in ids
    assert "ties-first-seen+no-pair-crash" in ids
    assert not any(i.startswith("ties-lexicographic+") for i in ids)  # the exercise's own rule
    assert "marker-glued+no-end-of-word" not in ids  # both change how words start
    assert "stale-counts+merge-by-string-replace" not in ids  # nothing merged without recounts
    assert "encode-lowercased+encode-longest-anywhere" in [m.id for m in combinations("encode")]


def test_a_combination_makes_both_mistakes_and_says_so():
    combo = combination_by_id("ties-reverse-lexicographic+merge-by-string-replace")
    assert combo.title.startswith("Ties broken by the largest pair, and merged with string replace")
    corpus = ["ab abc b b"]
    both = combo.run(corpus, 3, tie_break="lexicographic")
    assert both == train_with({"pick": "reverse-lexicographic", "merge": "replace"}, corpus, 3)
    glued_min2 = combination_by_id("marker-glued+min-count-two")
    assert glued_min2.run(["low low lower"], 9) == train_bpe(
        ["low low lower"], 9, fuse_end_of_word=True, min_count=2)
    with pytest.raises(NoPairLeft):
        combination_by_id("ties-reverse-lexicographic+no-pair-crash").run(["a"], 3)


def test_encoding_combinations_prepare_the_word_first():
    combo = combination_by_id("encode-lowercased+encode-longest-anywhere")
    merges = train_bpe(OVERLAP, 4)
    assert combo.run("AAC", merges) == encode_longest_anywhere("aac", merges)
