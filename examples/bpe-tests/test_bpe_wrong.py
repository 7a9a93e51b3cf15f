# exercise: bpe-tests
"""A careful test suite that never meets a tie: every corpus has one most frequent pair."""

from bpe import encode, train_bpe

MERGES = [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w")]


def test_counts_weighted_by_word_frequency():
    assert train_bpe(["abx abx abx aby cdp cdq cdr"], 1) == [("a", "b")]


def test_end_of_word_marker_is_a_symbol():
    assert train_bpe(["a"], 1) == [("a", "</w>")]


def test_stops_when_no_pair_is_left():
    assert train_bpe(["a"], 10) == [("a", "</w>")]


def test_encode_problem_words():
    assert encode("lowest", MERGES) == ["low", "est</w>"]
    assert encode("low", MERGES) == ["low", "</w>"]
    assert encode("newest", MERGES) == ["n", "e", "w", "est</w>"]
    assert encode("lowlow", MERGES) == ["low", "low", "</w>"]


def test_encode_by_rank_not_position():
    assert encode("nest", [("e", "s"), ("es", "t"), ("est", "</w>"), ("n", "e")]) == [
        "n", "est</w>"]
    assert encode("lowiwi", [("l", "o"), ("lo", "w"), ("w", "i")]) == ["low", "i", "wi", "</w>"]


def test_encode_text_as_written():
    assert encode("Low.", MERGES) == ["L", "o", "w", ".", "</w>"]
    assert encode("lo-w", MERGES) == ["lo", "-", "w", "</w>"]

