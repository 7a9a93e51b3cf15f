"""lesson97-checks against the lesson deck: every figure its items state follows from the
reference or from the deck's own numbers, and the deck's slips are named.

Reproduced: check 1's pair frequencies and first merge (slides 35-36); check 2's WordPiece
scores (slides 37-38); check 3's ratios as slide 39 states them; slide 15's claim that
greedy longest match tokenizes 'lowest' right "only by accident" (the reference finds a word
of the same merges where it does not); slide 24's embedding-parameter column and slide 7's
1.44x attention cost of BPE 32k.

A slip: slide 40's "Why B tempts people" measures option B from word-level (300k -> ~100, a
3000x reduction, 4.2x longer, 17.6x attention cost) while option B starts from BPE 32k; slide
39 gives B's own figures (320x, 3.5x). The item follows slide 39.
"""

from __future__ import annotations

import pytest

from grader.families.bpe.wrong_bpe import encode_longest_match
from grader.spec import load_exercise
from reference import encode
from reference.plain import train_steps
from reference.tie_breaks import TIE_BREAKS

EXERCISE = load_exercise("lesson97-checks")
ITEMS = {item.id: item for item in EXERCISE.items}


def option_text(item_id: str, option_id: str) -> str:
    return next(o.text for o in ITEMS[item_id].options if o.id == option_id)


def test_check_1_frequencies_and_first_merge_are_the_references():
    corpus = {"ab": 10, "abc": 5, "bc": 8}
    for rule in TIE_BREAKS:
        first = next(iter(train_steps(corpus, 1, tie_break=rule, end_of_word="</w>")))
        assert first.pair == ("a", "b"), rule
    counts = first.pair_counts
    stated = {"a-b": ("a", "b"), "b-c": ("b", "c"), "c-end": ("c", "</w>"), "b-end": ("b", "</w>")}
    for option_id, pair in stated.items():
        assert option_text("check1-merge-selection", option_id).endswith(f"= {counts[pair]}") or \
            option_text("check1-merge-selection", option_id).endswith(f"frequency {counts[pair]}")
    assert ITEMS["check1-merge-selection"].answer == "a-b"
    assert counts[("b", "c")] == counts[("c", "</w>")] == 13  # the tie slide 36's C mentions


def test_check_2_scores_are_the_decks():
    x, z = 100 / (500 * 200), 20 / (22 * 25)
    assert x == pytest.approx(0.001) and round(z, 3) == 0.036 and z > x
    assert "0.001" in ITEMS["check2-wordpiece-pick"].why and "0.036" in ITEMS["check2-wordpiece-pick"].why
    assert ITEMS["check2-wordpiece-pick"].accept[0] == "Z"


def test_check_3_ratios_as_slide_39_states_them():
    assert round(300_000 / 32_000, 1) == 9.4          # the table 9.4x smaller
    assert 12_000 / 10_000 == 1.2                      # 20 % longer
    assert 32_000 / 100 == 320 and 42_000 / 12_000 == 3.5   # option B from BPE 32k
    assert round(3.5 ** 2) == 12
    tempts = next(o.tempts for o in ITEMS["check3-vocab-size"].options if o.id == "32k-to-char")
    assert "320 times" in tempts and "3.5 times" in tempts and "about 12 times" in tempts
    # slide 40's figures are word-level's, not option B's: the slip
    assert 300_000 / 100 == 3000 and 42_000 / 10_000 == 4.2 and round(4.2 ** 2, 1) == 17.6
    assert 100_000 * 768 == 76_800_000 and round(32_000 * 768 / 1e6, 1) == 24.6


def test_slide_15_longest_match_is_right_on_lowest_only_by_accident():
    corpus = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    steps = list(train_steps(corpus, 6, tie_break="first-seen", end_of_word="</w>"))
    # the deck's merge table (slide 13), ties by the pair met first
    assert [step.pair for step in steps] == [("e", "s"), ("es", "t"), ("est", "</w>"),
                                             ("l", "o"), ("lo", "w"), ("n", "e")]
    merges = [step.pair for step in steps]
    assert encode("lowest", merges) == encode_longest_match("lowest", merges) == ["low", "est</w>"]
    assert encode("nest", merges) == ["n", "est</w>"]
    assert encode_longest_match("nest", merges) == ["ne", "s", "t", "</w>"]
    assert ITEMS["merges-out-of-order"].answer == "by-accident"


def test_the_table_refills_slide_24_and_slide_7():
    table = ITEMS["vocab-size-table"]
    deck_params = {"char (~100)": 76_800, "BPE 1k": 768_000, "BPE 32k": 24_576_000,
                   "BPE 100k": 76_800_000, "word (300k)": 230_400_000}
    for row, (size, tokens, params, attention) in table.rows.items():
        assert params == size * 768 == deck_params[row], row
        assert attention == pytest.approx((tokens / 10_000) ** 2), row
    assert table.rows["BPE 32k"][3] == 1.44  # slide 7's relative attention cost
