"""WordPiece as lesson 000 (the deck "Lesson 97: Subword Tokenization") presents it, and where
it parts from BPE.

Each deck example names its slide. The deck gives its WordPiece numbers as tables of counts
(freq(ab), freq(a), freq(b)); each test builds a segmentation or a corpus that has exactly
those counts and checks the scores and the winner the deck states. The deck shows no
WordPiece code, so no tie-break rule is implied; the examples have no ties, and the tests
check every rule.

Slide 20, "WordPiece vs BPE: when the winner changes", contradicts itself: "the appears 1
million times and th appears 900 k times", but every "the" contains "th", so th occurs at
least 1 million times; and (h, e) then occurs at least 1 million times too, more than the
900 k of (t, h), so BPE would not merge (t, h) first. Its numbers cannot be realised; the test
for that slide realises its claim at a small scale instead.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference import TIE_BREAKS, BPEInputError, train_bpe
from reference.plain import count_pairs, initial_segmentation
from reference.tie_breaks import best_pair
from reference.wordpiece import (
    first_divergence,
    symbol_counts,
    train_wordpiece,
    wordpiece_score,
    wordpiece_scores,
    wordpiece_steps,
)

EOW = "</w>"
# Slide 13, "Worked example: BPE on a 4-word corpus" (also slides 42 and 47).
LESSON_CORPUS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
# Slides 35-36, "Check 1: BPE merge selection".
CHECK_1_CORPUS = {"ab": 10, "abc": 5, "bc": 8}


def winners(scores):
    """The pair each tie-break rule picks from ``scores``."""
    return {rule: best_pair(scores, rule) for rule in TIE_BREAKS}


# -- the deck's examples ---------------------------------------------------------------------------


def test_slide_19_candidate_table():
    # Slide 19, "WordPiece: likelihood-based merging (BERT)": (un, happy) 4 / (14 x 15) =
    # 0.01905 and (happi, ness) 3 / (3 x 9) = 0.11111. A segmentation with those counts:
    words = {
        ("un", "happy"): 4,
        ("un",): 10,
        ("happy",): 11,
        ("happi", "ness"): 3,
        ("ness",): 6,
    }
    counts = symbol_counts(words)
    assert (counts["un"], counts["happy"], counts["happi"], counts["ness"]) == (14, 15, 3, 9)
    assert count_pairs(words) == {("un", "happy"): 4, ("happi", "ness"): 3}
    scores = wordpiece_scores(words)
    assert scores == {("un", "happy"): Fraction(4, 210), ("happi", "ness"): Fraction(1, 9)}
    assert round(float(scores["un", "happy"]), 5) == 0.01905
    assert round(float(scores["happi", "ness"]), 5) == 0.11111
    # The rarer pair wins, under every rule; BPE would take (un, happy).
    assert set(winners(scores).values()) == {("happi", "ness")}
    assert set(winners(count_pairs(words)).values()) == {("un", "happy")}


def test_slide_30_the_fix_with_its_stated_counts():
    # Slide 30, "Trap: confusing the merge objective", the fix: "If freq(e) = 20 and
    # freq(s) = 15, score(e, s) = 9/300 = 0.030. score(happi, ness) = 0.111 wins — merge
    # (happi, ness) first even though raw freq(e,s)=9 > freq(happi,ness)=3."
    words = {("e", "s"): 9, ("e",): 11, ("s",): 6, ("happi", "ness"): 3, ("ness",): 6}
    scores = wordpiece_scores(words)
    assert scores == {("e", "s"): Fraction(9, 300), ("happi", "ness"): Fraction(3, 27)}
    assert float(scores["e", "s"]) == 0.03
    assert round(float(scores["happi", "ness"]), 3) == 0.111
    assert set(winners(scores).values()) == {("happi", "ness")}
    assert set(winners(count_pairs(words)).values()) == {("e", "s")}


def test_slide_30_the_trap_on_the_lesson_corpus():
    # Slide 30's trap: "if (e, s) has the highest raw frequency in the corpus, WordPiece merges
    # (e, s) first". (e, s) with freq 9 is BPE's first merge on slide 13's corpus; there
    # freq(e) = 2 + 12 + 3 = 17 and freq(s) = 9 (not the slide's illustrative 20 and 15), so
    # score(e, s) = 9/153 = 1/17, and WordPiece merges (i, d), 3/(3 x 3) = 1/3, first.
    words = initial_segmentation(LESSON_CORPUS)
    counts = symbol_counts(words)
    assert (counts["e"], counts["s"], counts["i"], counts["d"]) == (17, 9, 3, 3)
    scores = wordpiece_scores(words)
    assert scores["e", "s"] == Fraction(1, 17)
    assert scores["i", "d"] == Fraction(1, 3) == max(scores.values())
    for rule in TIE_BREAKS:
        assert train_wordpiece(LESSON_CORPUS, 1, tie_break=rule) == [("i", "d")]
    # (e, s), (s, t) and (t, </w>) tie at 9 for BPE; all rules but reverse-lexicographic pick
    # (e, s), as the slides do.
    for rule in ("lexicographic", "concatenated", "first-seen"):
        assert first_divergence(LESSON_CORPUS, tie_break=rule) == (1, ("e", "s"), ("i", "d"))
    assert first_divergence(LESSON_CORPUS, tie_break="reverse-lexicographic") == (
        1,
        ("t", EOW),
        ("i", "d"),
    )


def test_slide_30_wordpiece_trace_on_the_lesson_corpus():
    # Not on the slides: the first merges WordPiece learns from slide 13's corpus, beside BPE's
    # (e, s), (es, t), (est, </w>), (l, o), (lo, w), (n, e). Step 4 is a four-way tie at 1/16.
    steps = list(wordpiece_steps(LESSON_CORPUS, 4, tie_break="first-seen"))
    assert [(s.pair, s.pair_count, s.score) for s in steps] == [
        (("i", "d"), 3, Fraction(1, 3)),
        (("l", "o"), 7, Fraction(1, 7)),
        (("s", "t"), 9, Fraction(1, 9)),
        (("lo", "w"), 7, Fraction(1, 16)),
    ]
    assert steps[3].tied == [("lo", "w"), ("r", EOW), ("st", EOW), ("w", "id")]


def test_slides_37_38_check_2():
    # Slides 37-38, "Check 2: WordPiece vs BPE criterion": freq(XY)=100, freq(X)=500,
    # freq(Y)=200; freq(ZW)=20, freq(Z)=22, freq(W)=25. "score(X) = 100/100000 = 0.001;
    # score(Z) = 20/550 ≈ 0.036 ... WordPiece merges Z first while BPE merges X first".
    # Realised without end-of-word markers, so those are the only two pairs:
    corpus = {"xy": 100, "x": 400, "y": 100, "zw": 20, "z": 2, "w": 5}
    words = initial_segmentation(corpus, "")
    assert symbol_counts(words) == {"x": 500, "y": 200, "z": 22, "w": 25}
    scores = wordpiece_scores(words)
    assert scores == {("x", "y"): Fraction(100, 100_000), ("z", "w"): Fraction(20, 550)}
    assert float(scores["x", "y"]) == 0.001
    assert round(float(scores["z", "w"]), 3) == 0.036
    for rule in TIE_BREAKS:
        found = first_divergence(corpus, tie_break=rule, end_of_word="")
        assert found == (1, ("x", "y"), ("z", "w"))


def test_slide_20_a_rarer_exclusive_pair_wins():
    # Slide 20: "BPE merges (t, h) first ... if both t and h are individually very common, the
    # PMI is low and a rarer but more exclusive pair wins instead." At a scale where the counts
    # can hold (see the module docstring): (t, h) occurs 14 times, (q, u) twice, but q and u
    # occur nowhere else.
    corpus = {"the": 10, "with": 4, "quiz": 2}
    scores = wordpiece_scores(initial_segmentation(corpus))
    assert scores["t", "h"] == Fraction(14, 14 * 14)
    assert scores["q", "u"] == Fraction(1, 2) == max(scores.values())
    for rule in TIE_BREAKS:
        assert first_divergence(corpus, tie_break=rule) == (1, ("t", "h"), ("q", "u"))


def test_slide_20_counts_are_impossible():
    # "the appears 1 million times and th appears 900 k times": a word's pairs are counted
    # every time the word is, so th and he occur at least 1 million times.
    pairs = count_pairs(initial_segmentation({"the": 1_000_000}))
    assert pairs["t", "h"] == pairs["h", "e"] == 1_000_000 > 900_000


def test_slides_35_36_check_1_corpus_under_wordpiece():
    # Slides 35-36, "Check 1": BPE merges (a, b), count 15. Under WordPiece the same corpus
    # has a three-way tie: (a, b) 15/(15 x 23), (b, c) 13/(23 x 13) and (c, </w>) 13/(13 x 23)
    # are all 1/23, so the tie-break rule decides ("ties would be broken by index", slide 36).
    scores = wordpiece_scores(initial_segmentation(CHECK_1_CORPUS))
    assert scores == {
        ("a", "b"): Fraction(1, 23),
        ("b", EOW): Fraction(10, 23 * 23),
        ("b", "c"): Fraction(1, 23),
        ("c", EOW): Fraction(1, 23),
    }
    assert winners(scores) == {
        "lexicographic": ("a", "b"),
        "concatenated": ("a", "b"),
        "first-seen": ("a", "b"),
        "reverse-lexicographic": ("c", EOW),
    }
    # The two agree on (a, b) where the rule picks it, then part: BPE takes (c, </w>) (13),
    # WordPiece (b, c): 8 / (8 x 13) = 1/13.
    assert first_divergence(CHECK_1_CORPUS) == (2, ("c", EOW), ("b", "c"))
    assert first_divergence(CHECK_1_CORPUS, tie_break="reverse-lexicographic") == (
        1,
        ("a", "b"),
        ("c", EOW),
    )


# -- properties ------------------------------------------------------------------------------------

corpora = st.dictionaries(
    st.text("abcde", min_size=1, max_size=6), st.integers(min_value=1, max_value=9), max_size=6
)
rules = st.sampled_from(TIE_BREAKS)


@settings(max_examples=150)
@given(corpora, rules)
def test_each_step_merges_a_pair_with_the_highest_score(corpus, rule):
    for step in wordpiece_steps(corpus, 6, tie_break=rule):
        best = max(step.scores.values())
        assert step.score == best
        assert step.tied == [p for p in step.tied if step.scores[p] == best]
        assert set(step.tied) == {p for p, s in step.scores.items() if s == best}
        assert step.pair == step.tied[0]


@settings(max_examples=100)
@given(corpora, rules, st.integers(min_value=0, max_value=8))
def test_fewer_merges_are_a_prefix(corpus, rule, num_merges):
    longer = train_wordpiece(corpus, num_merges + 1, tie_break=rule)
    assert train_wordpiece(corpus, num_merges, tie_break=rule) == longer[:num_merges]


@settings(max_examples=100)
@given(corpora, rules, st.integers(min_value=2, max_value=5))
def test_scaling_every_count_changes_nothing(corpus, rule, factor):
    # Every score divides by the factor, so the order of the scores is unchanged.
    scaled = {word: count * factor for word, count in corpus.items()}
    assert train_wordpiece(scaled, 8, tie_break=rule) == train_wordpiece(corpus, 8, tie_break=rule)


@settings(max_examples=150)
@given(corpora, rules)
def test_first_divergence_is_where_the_two_runs_part(corpus, rule):
    limit = 12
    bpe = train_bpe(corpus, limit, tie_break=rule)
    wordpiece = train_wordpiece(corpus, limit, tie_break=rule)
    found = first_divergence(corpus, limit, tie_break=rule)
    if found is None:
        assert bpe == wordpiece
    else:
        step, bpe_pair, wordpiece_pair = found
        assert bpe[: step - 1] == wordpiece[: step - 1]
        assert (bpe[step - 1], wordpiece[step - 1]) == (bpe_pair, wordpiece_pair)
        assert bpe_pair != wordpiece_pair


def test_first_divergence_none_when_they_always_agree():
    # One word with distinct letters: each step has a single pair left with the best count.
    assert first_divergence({"ab": 3}) is None
    assert train_bpe({"ab": 3}, 5) == train_wordpiece({"ab": 3}, 5) == [("a", "b"), ("ab", EOW)]
    assert first_divergence(CHECK_1_CORPUS, 1) is None
    assert first_divergence({}) is None


def test_the_marker_options_are_those_of_bpe():
    corpus = {"hug": 10, "pug": 5}
    assert train_wordpiece(corpus, 1, end_of_word="") == [("h", "u")]
    assert train_wordpiece(corpus, 1, fuse_end_of_word=True) == [("h", "u")]
    assert train_wordpiece(["hug hug pug"], 3) == train_wordpiece({"hug": 2, "pug": 1}, 3)


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: train_wordpiece({"a": 1}, -1), "num_merges must be a non-negative int"),
        (lambda: train_wordpiece({"a": 1}, 1, tie_break="random"), "tie_break 'random' is not"),
        (lambda: train_wordpiece("low lower", 1), "corpus must be a list of texts or a dict"),
        (lambda: train_wordpiece({"a": 0}, 1), "count of word 'a' must be positive"),
        (lambda: first_divergence({"a": 1}, 2.0), "num_merges must be a non-negative int"),
        (lambda: first_divergence({"a": 1}, tie_break=None), "tie_break None is not one of"),
        (lambda: wordpiece_score(1, 0, 3), "counts must be positive"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(BPEInputError, match=message):
        call()
