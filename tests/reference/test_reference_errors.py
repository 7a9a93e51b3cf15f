"""Bad input to the reference gets a ``BPEInputError`` (a ``ValueError``) that says what is wrong.

Each test checks the exception type and the parts of the message a user needs to fix the
call: the argument's name, what was expected and what was given.
"""

from __future__ import annotations

import pytest

from reference import TIE_BREAKS, BPEInputError, encode, train_bpe

CORPUS = ["low lower newest"]


def test_the_error_type_is_a_value_error():
    assert issubclass(BPEInputError, ValueError)


# --- num_merges ---------------------------------------------------------------------------


def test_negative_num_merges():
    with pytest.raises(BPEInputError, match=r"num_merges must be a non-negative int, got -1"):
        train_bpe(CORPUS, -1)


def test_negative_num_merges_is_refused_even_for_an_empty_corpus():
    with pytest.raises(BPEInputError, match="num_merges"):
        train_bpe([], -3)


@pytest.mark.parametrize(
    "num_merges, shown",
    [(2.5, "float 2.5"), (3.0, "float 3.0"), ("3", "str '3'"), (None, "NoneType None")],
)
def test_non_integer_num_merges(num_merges, shown):
    with pytest.raises(BPEInputError, match="num_merges must be a non-negative int") as error:
        train_bpe(CORPUS, num_merges)
    assert shown in str(error.value)


@pytest.mark.parametrize("flag", [True, False])
def test_bool_num_merges_is_not_an_int_here(flag):
    with pytest.raises(BPEInputError, match=f"num_merges must be a non-negative int, got bool {flag}"):
        train_bpe(CORPUS, flag)


# --- corpus -------------------------------------------------------------------------------


@pytest.mark.parametrize("corpus, type_name", [(42, "int"), (None, "NoneType"), (3.5, "float")])
def test_corpus_that_is_neither_texts_nor_counts(corpus, type_name):
    with pytest.raises(BPEInputError, match="corpus must be a list of texts or a dict word -> count") as error:
        train_bpe(corpus, 3)
    assert type_name in str(error.value)


def test_bare_string_corpus_suggests_wrapping_it_in_a_list():
    with pytest.raises(BPEInputError, match=r"not a single str; wrap it in a list: \['low lower'\]"):
        train_bpe("low lower", 3)


def test_bare_string_suggestion_is_shortened_for_long_texts():
    long_text = "word " * 100
    with pytest.raises(BPEInputError, match="wrap it in a list") as error:
        train_bpe(long_text, 3)
    assert len(str(error.value)) < 200


def test_bytes_corpus_is_refused():
    with pytest.raises(BPEInputError, match="not a single bytes"):
        train_bpe(b"low lower", 3)


@pytest.mark.parametrize("texts, shown", [(["low", 7], "int at index 1"), ([b"low"], "bytes at index 0")])
def test_texts_that_are_not_str(texts, shown):
    with pytest.raises(BPEInputError, match="corpus texts must be str") as error:
        train_bpe(texts, 3)
    assert shown in str(error.value)


@pytest.mark.parametrize("word, shown", [(7, "int 7"), (("l", "o"), "tuple ('l', 'o')"), (None, "NoneType None")])
def test_word_count_keys_that_are_not_str(word, shown):
    with pytest.raises(BPEInputError, match="corpus words must be str") as error:
        train_bpe({"low": 2, word: 3}, 3)
    assert shown in str(error.value)


@pytest.mark.parametrize("count", [0, -4])
def test_non_positive_counts(count):
    with pytest.raises(BPEInputError, match=f"count of word 'low' must be positive, got {count}"):
        train_bpe({"new": 1, "low": count}, 3)


@pytest.mark.parametrize("count, shown", [(2.5, "float 2.5"), ("3", "str '3'"), (True, "bool True")])
def test_counts_that_are_not_ints(count, shown):
    with pytest.raises(BPEInputError, match="count of word 'low' must be an int") as error:
        train_bpe({"low": count}, 3)
    assert shown in str(error.value)


# --- tie-break rule -----------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["alphabetical", "Lexicographic", "", None, 1])
def test_unknown_tie_rule_lists_the_valid_ones(rule):
    with pytest.raises(BPEInputError, match=f"tie_break {rule!r} is not one of") as error:
        train_bpe(CORPUS, 3, tie_break=rule)
    for valid in TIE_BREAKS:
        assert valid in str(error.value)


def test_unknown_tie_rule_is_refused_even_when_no_tie_arises():
    with pytest.raises(BPEInputError, match="tie_break"):
        train_bpe([], 0, tie_break="alphabetical")


# --- end-of-word marker -------------------------------------------------------------------


@pytest.mark.parametrize("marker", [None, 0, ["</w>"]])
def test_end_of_word_must_be_a_string(marker):
    with pytest.raises(BPEInputError, match="end_of_word must be a str"):
        train_bpe(CORPUS, 3, end_of_word=marker)
    with pytest.raises(BPEInputError, match="end_of_word must be a str"):
        encode("low", [], end_of_word=marker)


# --- encode -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "merges, shown",
    [
        ([("a", "b"), ("ab",)], "merges[1] must be a pair of two str, got ('ab',)"),
        ([("a", "b", "c")], "merges[0] must be a pair of two str, got ('a', 'b', 'c')"),
        ([("a", 1)], "merges[0] must be a pair of two str, got ('a', 1)"),
        (["ab"], "merges[0] must be a pair of two str, got 'ab'"),
        ([None], "merges[0] must be a pair of two str, got None"),
    ],
)
def test_merges_that_are_not_pairs_of_strings(merges, shown):
    with pytest.raises(BPEInputError) as error:
        encode("abc", merges)
    assert shown in str(error.value)


@pytest.mark.parametrize("merges, type_name", [("ab", "str"), (None, "NoneType"), (5, "int")])
def test_merges_that_are_not_a_list(merges, type_name):
    with pytest.raises(BPEInputError, match=f"merges must be a list of \\(str, str\\) pairs, got {type_name}"):
        encode("abc", merges)


def test_merge_lists_are_accepted_as_lists_of_lists():
    # JSON round-trips turn pairs into lists; those are still pairs of strings.
    assert encode("abc", [["a", "b"], ["ab", "c"]]) == ["abc", "</w>"]


@pytest.mark.parametrize("word, type_name", [(None, "NoneType"), (5, "int"), (["a"], "list")])
def test_encoding_a_word_that_is_not_a_string(word, type_name):
    with pytest.raises(BPEInputError, match=f"word must be a str, got {type_name}"):
        encode(word, [("a", "b")])
