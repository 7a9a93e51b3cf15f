# exercise: bpe-tests
"""A thorough test suite of character BPE: every kind of known mistake meets an input that
shows it."""

from bpe import encode, train_bpe

PROBLEM = ["low low low low low lower lower newest newest newest newest newest newest "
           "widest widest widest"]
PROBLEM_MERGES = [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w")]


def test_problem_corpus():
    assert train_bpe(PROBLEM, 5) == PROBLEM_MERGES


def test_learned_order_not_sorted():
    assert train_bpe(PROBLEM, 10) == PROBLEM_MERGES + [
        ("e", "w"), ("ew", "est</w>"), ("n", "ewest</w>"), ("low", "</w>"), ("d", "est</w>")]


def test_tie_smallest_pair():
    assert train_bpe(["cab bac abc"], 4) == [("a", "b"), ("c", "</w>"), ("a", "c</w>"),
                                             ("ab", "</w>")]


def test_tie_after_first_merge():
    assert train_bpe(["cat cat cat cat cap cap cap cap"], 4) == [
        ("c", "a"), ("ca", "p"), ("ca", "t"), ("cap", "</w>")]


def test_tie_against_order_met():
    assert train_bpe(["zy ab"], 3) == [("a", "b"), ("ab", "</w>"), ("y", "</w>")]


def test_pair_repeated_in_a_word():
    assert train_bpe(["banana"], 2) == [("a", "n"), ("a", "</w>")]


def test_merge_only_whole_symbols():
    assert train_bpe(["ab abc b b"], 3) == [("b", "</w>"), ("a", "b"), ("a", "b</w>")]


def test_overlapping_pair_from_the_left():
    assert train_bpe(["aaa"], 2) == [("a", "a"), ("a", "</w>")]


def test_every_occurrence_merged():
    assert train_bpe(["abab"], 2) == [("a", "b"), ("ab", "</w>")]


def test_stops_when_no_pair_is_left():
    assert train_bpe(["a"], 10) == [("a", "</w>")]
    assert train_bpe(["ab"], 3) == [("a", "b"), ("ab", "</w>")]


def test_encode_problem_words():
    assert encode("lowest", PROBLEM_MERGES) == ["low", "est</w>"]
    assert encode("low", PROBLEM_MERGES) == ["low", "</w>"]
    assert encode("newest", PROBLEM_MERGES) == ["n", "e", "w", "est</w>"]
    assert encode("lowlow", PROBLEM_MERGES) == ["low", "low", "</w>"]


def test_encode_by_rank_not_position():
    merges = train_bpe(["kkk kmm kmm kmm lkkm lkkm"], 6)
    assert encode("kkm", merges) == ["kkm</w>"]
    assert encode("kkkm", merges) == ["kk", "km", "</w>"]
    assert encode("nest", [("e", "s"), ("es", "t"), ("est", "</w>"), ("n", "e")]) == [
        "n", "est</w>"]
    assert encode("lowiwi", [("l", "o"), ("lo", "w"), ("w", "i")]) == ["low", "i", "wi", "</w>"]


def test_encode_rank_not_longest_match():
    merges = train_bpe(["aaa", "acc acc acc", "baac baac"], 5)
    assert encode("aacc", merges) == ["a", "acc</w>"]


def test_encode_text_as_written():
    assert encode("Low.", PROBLEM_MERGES) == ["L", "o", "w", ".", "</w>"]
    assert encode("low.", PROBLEM_MERGES) == ["low", ".", "</w>"]
    assert encode("lo-w", PROBLEM_MERGES) == ["lo", "-", "w", "</w>"]

