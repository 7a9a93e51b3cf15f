"""Expected values computed for exercise cases, against the lessons' own printed results."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.families.bpe.expected import (
    bare_pairs,
    case_encodings,
    case_lengths,
    expected_lengths,
    expected_merges,
    expected_tokens,
    to_merge_form,
)
from grader.spec import load_exercise
from reference import train_bpe
from reference.sequence_lengths import sequence_lengths


def case(exercise, case_id):
    return next(c for c in exercise.cases if c.id == case_id)


def test_lesson97_reproduces_the_decks_six_step_table():
    exercise = load_exercise("lesson97-bpe")
    merges = expected_merges(exercise, case(exercise, "deck-six-steps"))
    # The deck's table: step, pair merged, new symbol.
    assert merges == [
        (("e", "s"), "es"), (("es", "t"), "est"), (("est", "</w>"), "est</w>"),
        (("l", "o"), "lo"), (("lo", "w"), "low"), (("n", "e"), "ne"),
    ]


def test_lesson97_reproduces_the_decks_tokens_table_and_sentence():
    exercise = load_exercise("lesson97-bpe")
    full = case(exercise, "deck-full-solution")
    tokens = {item.word: computed for item, computed in case_encodings(exercise, full)}
    assert tokens == {
        "lowest": ["low", "est</w>"],
        "newest": ["newest</w>"],
        "widest": ["wi", "d", "est</w>"],
        "lower": ["low", "e", "r", "</w>"],
    }
    assert case_lengths(exercise, full) == {"char": 50, "bpe": 49, "word": 6}
    letters = sum(len(word) for word in full.sentence.split())
    assert letters == 44


def test_bpe_train_encode_reproduces_the_problems_asserts():
    exercise = load_exercise("bpe-train-encode")
    corpus_case = case(exercise, "problem-corpus")
    merges = expected_merges(exercise, corpus_case)
    assert merges == [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w")]
    assert expected_tokens(exercise, merges, "lowest") == ["low", "est</w>"]
    assert expected_tokens(exercise, merges, "zz") == ["z", "z", "</w>"]
    assert expected_merges(exercise, case(exercise, "single-letter")) == [("a", "</w>")]
    assert expected_merges(exercise, case(exercise, "empty-text")) == []


def test_the_episodes_trace_is_a_hidden_first_seen_case():
    exercise = load_exercise("lesson97-bpe")
    episode = case(exercise, "episode-corpus")
    assert bare_pairs(expected_merges(exercise, episode))[:4] == [
        ("w", "e"), ("l", "o"), ("r", "</w>"), ("we", "r</w>"),
    ]
    tokens = {item.word: computed for item, computed in case_encodings(exercise, episode)}
    assert tokens["lowering"] == ["lowe", "r", "i", "n", "g", "</w>"]


def test_merge_forms_round_trip():
    pairs = [("a", "b"), ("ab", "</w>")]
    with_tokens = to_merge_form(pairs, "pairs-with-token")
    assert with_tokens == [(("a", "b"), "ab"), (("ab", "</w>"), "ab</w>")]
    assert bare_pairs(with_tokens) == pairs
    assert bare_pairs([[["a", "b"], "ab"]]) == [("a", "b")]
    assert to_merge_form(pairs, "pairs") == pairs


def test_expected_lengths_accept_either_merge_form():
    exercise = load_exercise("lesson97-bpe")
    pairs = [("a", "a")]
    assert expected_lengths(exercise, pairs, "aa b") == expected_lengths(
        exercise, to_merge_form(pairs, "pairs-with-token"), "aa b"
    ) == {"char": 5, "bpe": 4, "word": 2}


words = st.text(alphabet="abc", min_size=1, max_size=6)


@settings(max_examples=60)
@given(
    corpus=st.dictionaries(words, st.integers(1, 5), max_size=6),
    num_merges=st.integers(0, 10),
    sentence=st.lists(words, max_size=6).map(" ".join),
)
def test_bpe_lies_between_character_and_word_level(corpus, num_merges, sentence):
    merges = train_bpe(corpus, num_merges, tie_break="first-seen")
    lengths = sequence_lengths(sentence, merges)
    assert lengths["char"] >= lengths["bpe"] >= lengths["word"] == len(sentence.split())
    assert sequence_lengths(sentence, [])["bpe"] == lengths["char"]
