"""The fast trainer learns exactly what the plain definition learns, under every rule and option.

Differential property tests on corpora over 2-4 letters (so ties are everywhere), the pair counts
held at every step, identical errors for bad input, and regressions for the first-seen rule,
whose order moves as segmentations change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import fast, plain
from reference.corpus import word_counts
from reference.errors import BPEInputError
from reference.plain import count_pairs, initial_segmentation
from reference.tie_breaks import TIE_BREAKS

# The lesson texts sit in shared/ beside the checkout (CI lays it there too).
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
LESSON_MERGES = 30  # plain recounts ~10,000 words per merge; enough to pass the frequent pairs

# Markers made of the corpus letters let a merge rebuild a symbol that already exists.
MARKERS = ["</w>", "", "_", "a", "ab"]


@st.composite
def corpora(draw):
    """Texts or word counts over a 2-4 letter alphabet, empty words and empty corpora included."""
    alphabet = "abcd"[: draw(st.integers(2, 4))]
    words = st.text(alphabet, max_size=8)
    if draw(st.booleans()):
        return draw(st.lists(st.lists(words, max_size=6).map(" ".join), max_size=4))
    return draw(st.dictionaries(words, st.integers(1, 5), max_size=8))


options = st.fixed_dictionaries(
    {
        "end_of_word": st.sampled_from(MARKERS),
        "fuse_end_of_word": st.booleans(),
        "min_count": st.integers(1, 3),
    }
)


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@settings(max_examples=250)
@given(corpus=corpora(), num_merges=st.integers(0, 40), opts=options)
def test_fast_learns_the_same_merges_as_plain(tie_break, corpus, num_merges, opts):
    expected = plain.train_bpe(corpus, num_merges, tie_break=tie_break, **opts)
    assert fast.train_bpe(corpus, num_merges, tie_break=tie_break, **opts) == expected


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@settings(max_examples=60)
@given(corpus=corpora(), opts=options)
def test_fast_holds_plains_pair_counts_and_words_at_every_step(tie_break, corpus, opts):
    segmenting = {key: opts[key] for key in ("end_of_word", "fuse_end_of_word")}
    counts = word_counts(corpus)
    words = initial_segmentation(counts, **segmenting)
    trainer = fast.IncrementalTrainer(counts, tie_break=tie_break, **segmenting)
    steps = list(plain.train_steps(corpus, 40, tie_break=tie_break, **opts))
    for step in steps:
        assert trainer.pair_counts() == count_pairs(words)
        assert trainer.segmentation() == list(words)
        pair_id, count = trainer.best()
        assert (trainer.pair(pair_id), count) == (step.pair, step.count)
        trainer.merge(pair_id)
        words = step.words_after
    assert trainer.pair_counts() == count_pairs(words)
    assert trainer.segmentation() == list(words)
    if len(steps) < 40:  # plain stopped: no pair left, or the best one is too rare
        left = trainer.best()
        assert left is None or left[1] < opts["min_count"]


@pytest.mark.skipif(not any(SEEDS.glob("*.txt")), reason=f"no lesson texts in {SEEDS}")
@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_fast_matches_plain_with_counts_on_the_lesson_texts(tie_break):
    texts = [path.read_text(encoding="utf-8") for path in sorted(SEEDS.glob("*.txt"))]
    steps = plain.train_steps(texts, LESSON_MERGES, tie_break=tie_break)
    expected = [(step.pair, step.count) for step in steps]
    assert len(expected) == LESSON_MERGES
    assert list(fast.iter_merges(texts, LESSON_MERGES, tie_break=tie_break)) == expected


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@settings(max_examples=80)
@given(
    corpus=st.lists(
        st.lists(st.text("é\u0301猫😀</w>", max_size=7), max_size=6).map(" ".join), max_size=3
    ),
    fuse_end_of_word=st.booleans(),
)
def test_fast_matches_plain_on_non_ascii_and_literal_marker_text(
    tie_break, corpus, fuse_end_of_word
):
    # Words may contain the marker's own characters, so merges can spell "</w>" inside a word.
    options = {"tie_break": tie_break, "fuse_end_of_word": fuse_end_of_word}
    assert fast.train_bpe(corpus, 30, **options) == plain.train_bpe(corpus, 30, **options)


@given(st.text(max_size=4), st.text(max_size=4))
def test_inverted_keys_sort_in_reverse_string_order(first, second):
    assert (first < second) == (fast.inverted(first) > fast.inverted(second))
    assert (first == second) == (fast.inverted(first) == fast.inverted(second))


# -- first-seen regressions: the hand-derived merge lists are explained step by step ----------


def test_first_seen_a_new_pair_in_an_earlier_word_goes_first():
    # "a a </w>", "b </w>": after (a, a) the pairs (aa, </w>) and (b, </w>) both count 1;
    # (aa, </w>) was born in word 0, so it comes before (b, </w>) of word 1 even though
    # (b, </w>) has been counted since the start.
    expected = [("a", "a"), ("aa", "</w>"), ("b", "</w>")]
    assert plain.train_bpe(["aa b"], 5, tie_break="first-seen") == expected
    assert fast.train_bpe(["aa b"], 5, tie_break="first-seen") == expected


def test_first_seen_a_pair_that_vanishes_from_its_first_word_moves_back():
    # "a a </w>", "a a a </w>": (a, a) counts 3 and is merged -> "aa </w>", "aa a </w>".
    # Then (aa, </w>) wins the three-way tie of 1s (word 0). (a, </w>) was first seen in word 0
    # at the start but no longer occurs there; its first occurrence is now offset 2 of word 1,
    # after (aa, a) at offset 0, so (aa, a) is merged before it.
    expected = [("a", "a"), ("aa", "</w>"), ("aa", "a"), ("aaa", "</w>")]
    assert plain.train_bpe(["aa aaa"], 6, tie_break="first-seen") == expected
    assert fast.train_bpe(["aa aaa"], 6, tie_break="first-seen") == expected


def test_first_seen_overlapping_runs_merge_left_to_right():
    # "a a a a </w>": (a, a) counts 3 (overlapping) -> "aa aa </w>"; (aa, aa) and (aa, </w>)
    # tie at 1 and (aa, aa) comes first in the word.
    expected = [("a", "a"), ("aa", "aa"), ("aaaa", "</w>")]
    assert plain.train_bpe(["aaaa"], 5, tie_break="first-seen") == expected
    assert fast.train_bpe(["aaaa"], 5, tie_break="first-seen") == expected


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
@pytest.mark.parametrize(
    "corpus",
    [
        ["abab baba abba aabb"],
        {"aaa": 2, "aaaa": 1, "a": 3, "aa": 1},
        ["ab ba ab ba aba bab"],
    ],
)
def test_overlaps_and_repeats_match_plain(tie_break, corpus):
    expected = plain.train_bpe(corpus, 30, tie_break=tie_break)
    assert len(expected) >= 5
    assert fast.train_bpe(corpus, 30, tie_break=tie_break) == expected


@pytest.mark.parametrize("tie_break", TIE_BREAKS)
def test_a_merge_that_rebuilds_an_existing_symbol_matches_plain(tie_break):
    # With the marker "ab", (a, b) counts 7 and is merged first, making the marker's own string
    # again: "b a b ab" becomes "b ab ab", so (b, ab), already counted in "b ab", gains.
    corpus = {"abab": 3, "b": 1, "bab": 1}
    merges = plain.train_bpe(corpus, 20, tie_break=tie_break, end_of_word="ab")
    assert merges[0] == ("a", "b")
    assert fast.train_bpe(corpus, 20, tie_break=tie_break, end_of_word="ab") == merges


@pytest.mark.parametrize(
    "corpus",
    [{"bbaca": 1, "caba": 1}, {"abac": 1, "ba": 1}, {"bba": 1, "ba": 1, "b": 1}],
)
def test_first_seen_when_a_merge_rebuilds_the_marker(corpus):
    # Marker "ba": merging (b, a) first makes the marker's string again, and the words' symbol
    # positions shift while first occurrences are compared by character offset.
    merges = plain.train_bpe(corpus, 20, tie_break="first-seen", end_of_word="ba")
    assert merges[0] == ("b", "a")
    assert fast.train_bpe(corpus, 20, tie_break="first-seen", end_of_word="ba") == merges


@settings(max_examples=300)
@given(
    corpus=st.dictionaries(st.text("abc", max_size=9), st.integers(1, 3), min_size=1, max_size=6),
    end_of_word=st.sampled_from(["</w>", "", "b", "ab", "ba"]),
    fuse_end_of_word=st.booleans(),
)
def test_first_seen_with_markers_made_of_corpus_letters(corpus, end_of_word, fuse_end_of_word):
    options = {
        "tie_break": "first-seen",
        "end_of_word": end_of_word,
        "fuse_end_of_word": fuse_end_of_word,
    }
    assert fast.train_bpe(corpus, 40, **options) == plain.train_bpe(corpus, 40, **options)


def test_concatenated_equal_joins_fall_back_to_the_smaller_pair():
    # Marker "a" fused: "a" is the symbol "aa" and "aaaa" is a a a aa. (a, a) counts 2 and is
    # merged -> aa a aa; now (aa, a) and (a, aa) both count 1 and both join to "aaa", so the
    # smaller pair (a, aa) goes first, although the symbol "aa" was met before "a".
    corpus = {"a": 1, "aaaa": 1}
    options = {"tie_break": "concatenated", "end_of_word": "a", "fuse_end_of_word": True}
    expected = [("a", "a"), ("a", "aa"), ("aa", "aaa")]
    assert plain.train_bpe(corpus, 5, **options) == expected
    assert fast.train_bpe(corpus, 5, **options) == expected


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "corpus, num_merges, options",
    [
        (["a b"], -1, {}),
        (["a b"], 2.0, {}),
        (["a b"], True, {}),
        (["a b"], "3", {}),
        ("a b", 3, {}),
        (42, 3, {}),
        ([1, 2], 3, {}),
        ({"a": 0}, 3, {}),
        ({"a": 1.5}, 3, {}),
        ({"a": True}, 3, {}),
        ({1: 2}, 3, {}),
        (["a b"], 3, {"tie_break": "alphabetical"}),
        (["a b"], 3, {"min_count": 0}),
        (["a b"], 3, {"end_of_word": None}),
    ],
)
def test_bad_input_gets_plains_error(corpus, num_merges, options):
    with pytest.raises(BPEInputError) as from_plain:
        plain.train_bpe(corpus, num_merges, **options)
    with pytest.raises(BPEInputError) as from_fast:
        fast.train_bpe(corpus, num_merges, **options)
    assert str(from_fast.value) == str(from_plain.value)


def test_input_is_not_mutated():
    counts = {"abab": 2, "ba": 1}
    texts = ["abab ba", "ab"]
    fast.train_bpe(counts, 10)
    fast.train_bpe(texts, 10)
    assert counts == {"abab": 2, "ba": 1}
    assert texts == ["abab ba", "ab"]


def test_reference_exports_the_fast_trainer():
    import reference

    assert reference.train_bpe is fast.train_bpe
