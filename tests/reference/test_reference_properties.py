"""Properties every reference training run and encoding must have, plus the edge cases.

Corpora are drawn from alphabets of two to four letters so that ties, repeated letters and
overlapping pairs are everywhere. Encoding is compared with independent encoders written
here: one find-and-replace pass per merge rule in order (the deck's and the episode's style)
and a naive leftmost-lowest-rank loop, both on merge lists training produced, and the solved
problem's "merge every occurrence of the lowest-ranked pair" loop on any merge list.
"""

from __future__ import annotations

import copy
import inspect
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference.corpus
from reference import END_OF_WORD, TIE_BREAKS, encode, train_bpe
from reference.plain import train_steps

EOW = END_OF_WORD

ALPHABETS = st.sampled_from(["ab", "abc", "abcd", "xyz"])
RULES = st.sampled_from(TIE_BREAKS)


@st.composite
def words(draw, alphabet=None, min_size=1):
    letters = alphabet or draw(ALPHABETS)
    return draw(st.text(alphabet=letters, min_size=min_size, max_size=7))


@st.composite
def text_corpora(draw):
    """A list of texts, each a few words joined by single or repeated whitespace."""
    letters = draw(ALPHABETS)
    texts = st.lists(words(alphabet=letters), max_size=6).map(lambda ws: " ".join(ws))
    return draw(st.lists(texts, max_size=5))


@st.composite
def count_corpora(draw):
    letters = draw(ALPHABETS)
    return draw(
        st.dictionaries(words(alphabet=letters), st.integers(min_value=1, max_value=9), max_size=6)
    )


CORPORA = st.one_of(text_corpora(), count_corpora())
MERGE_COUNTS = st.integers(min_value=0, max_value=14)


def one_pass_per_rule_encode(word, merges):
    """Each rule in learning order gets one left-to-right find-and-replace pass."""
    tokens = list(word) + [EOW]
    for a, b in merges:
        out, i = [], 0
        while i < len(tokens):
            if i + 1 < len(tokens) and tokens[i] == a and tokens[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(tokens[i])
                i += 1
        tokens = out
    return tokens


def naive_rank_encode(word, merges):
    """Repeatedly merge the leftmost occurrence of the adjacent pair with the lowest rank."""
    rank = {}
    for index, pair in enumerate(merges):
        rank.setdefault(tuple(pair), index)
    tokens = list(word) + [EOW]
    while True:
        ranked = [(rank[pair], i) for i, pair in enumerate(zip(tokens, tokens[1:])) if pair in rank]
        if not ranked:
            return tokens
        _, i = min(ranked)
        tokens[i : i + 2] = [tokens[i] + tokens[i + 1]]


def solved_problem_encode(word, merges):
    """Seed 001's encode: merge every occurrence of the lowest-ranked pair present, repeat."""
    rank = {pair: index for index, pair in enumerate(merges)}
    symbols = list(word) + [EOW]
    while len(symbols) > 1:
        candidates = [(rank[p], p) for p in zip(symbols, symbols[1:]) if p in rank]
        if not candidates:
            break
        _, (a, b) = min(candidates)
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
                out.append(a + b)
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        symbols = out
    return symbols


def corpus_words(corpus):
    if isinstance(corpus, dict):
        return list(corpus)
    return [word for text in corpus for word in text.split()]


# ---------------------------------------------------------------------------------------------
# Training


@settings(max_examples=150)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES)
def test_fewer_merges_is_a_prefix_of_more(corpus, num_merges, rule):
    shorter = train_bpe(corpus, num_merges, tie_break=rule)
    longer = train_bpe(corpus, num_merges + 1, tie_break=rule)
    assert longer[:num_merges] == shorter


@settings(max_examples=150)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES)
def test_at_most_num_merges_and_only_pairs_of_strings(corpus, num_merges, rule):
    merges = train_bpe(corpus, num_merges, tie_break=rule)
    assert len(merges) <= num_merges
    assert all(isinstance(m, tuple) and len(m) == 2 and all(isinstance(s, str) for s in m) for m in merges)
    assert len(set(merges)) == len(merges)


@settings(max_examples=100)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES)
def test_training_stops_only_when_pairs_run_out(corpus, num_merges, rule):
    merges = train_bpe(corpus, num_merges, tie_break=rule)
    if len(merges) < num_merges:
        # Every word is a single token by now: encoding it with these merges gives one token.
        assert all(len(encode(word, merges)) == 1 for word in corpus_words(corpus))


@settings(max_examples=100)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES)
def test_training_does_not_mutate_the_corpus(corpus, num_merges, rule):
    before = copy.deepcopy(corpus)
    train_bpe(corpus, num_merges, tie_break=rule)
    assert corpus == before
    assert type(corpus) is type(before)
    if isinstance(corpus, dict):
        assert list(corpus) == list(before)  # insertion order too


@settings(max_examples=100)
@given(corpus=text_corpora(), num_merges=MERGE_COUNTS, rule=RULES)
def test_texts_and_their_word_counts_train_alike(corpus, num_merges, rule):
    counts = {}
    for word in corpus_words(corpus):
        counts[word] = counts.get(word, 0) + 1
    assert train_bpe(corpus, num_merges, tie_break=rule) == train_bpe(counts, num_merges, tie_break=rule)


@settings(max_examples=60)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES)
def test_training_is_deterministic(corpus, num_merges, rule):
    assert train_bpe(corpus, num_merges, tie_break=rule) == train_bpe(
        copy.deepcopy(corpus), num_merges, tie_break=rule
    )


# ---------------------------------------------------------------------------------------------
# Encoding


@settings(max_examples=150)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES, extra=words(alphabet="abcdq", min_size=0))
def test_encode_joins_back_to_word_and_marker(corpus, num_merges, rule, extra):
    merges = train_bpe(corpus, num_merges, tie_break=rule)
    products = {a + b for a, b in merges}
    for word in corpus_words(corpus) + [extra]:
        tokens = encode(word, merges)
        assert "".join(tokens) == word + EOW
        # Every token is a character, the marker or a merge product.
        assert all(len(t) == 1 or t == EOW or t in products for t in tokens)


@settings(max_examples=150)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES, extra=words(alphabet="abcd"))
def test_encode_equals_one_pass_per_rule_on_trained_merges(corpus, num_merges, rule, extra):
    merges = train_bpe(corpus, num_merges, tie_break=rule)
    for word in corpus_words(corpus) + [extra]:
        assert encode(word, merges) == one_pass_per_rule_encode(word, merges)


@settings(max_examples=150)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES, extra=words(alphabet="abcd"))
def test_encode_equals_naive_rank_order_on_trained_merges(corpus, num_merges, rule, extra):
    merges = train_bpe(corpus, num_merges, tie_break=rule)
    for word in corpus_words(corpus) + [extra]:
        assert encode(word, merges) == naive_rank_encode(word, merges)


TOKENS = st.text(alphabet="ab", min_size=1, max_size=3)
ANY_MERGES = st.lists(st.tuples(TOKENS, TOKENS), max_size=8, unique=True)


@settings(max_examples=200)
@given(merges=ANY_MERGES, word=st.text(alphabet="ab", max_size=8))
def test_encode_equals_the_solved_problems_encode_on_any_merge_list(merges, word):
    # Any list of distinct pairs, not only trained ones: pairs of tokens no training could
    # produce, and later rules that build a token an earlier rule needs.
    assert encode(word, merges) == solved_problem_encode(word, merges)


def test_encode_merges_every_occurrence_of_the_lowest_ranked_pair():
    # On a list training cannot produce ((ab, a) ranked before (a, b)) merging one occurrence
    # at a time would give aba b; the reference, like the solved problem, merges both (a, b)
    # occurrences at once, and (ab, a) no longer has an a to act on.
    merges = [("ab", "a"), ("a", "b")]
    assert encode("abab", merges) == ["ab", "ab", EOW]
    assert naive_rank_encode("abab", merges) == ["aba", "b", EOW]


@settings(max_examples=60)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES)
def test_training_words_encode_as_their_final_segmentation(corpus, num_merges, rule):
    # Encoding a training word with the learned merges retraces how training split it; once
    # training has run out of pairs, every training word is one token.
    steps = list(train_steps(corpus, num_merges, tie_break=rule))
    merges = [step.pair for step in steps]
    final = steps[-1].words_after if steps else {tuple(w) + (EOW,): 1 for w in corpus_words(corpus)}
    assert {tuple(encode(word, merges)) for word in corpus_words(corpus)} == set(final)
    # Each merge shortens some word by at least one symbol, so this many always runs out.
    enough = sum(len(word) for word in set(corpus_words(corpus))) + 1
    exhausted = train_bpe(corpus, enough, tie_break=rule)
    assert len(exhausted) < enough
    for word in corpus_words(corpus):
        assert encode(word, exhausted) == [word + EOW]


@settings(max_examples=60)
@given(corpus=CORPORA, num_merges=MERGE_COUNTS, rule=RULES)
def test_encode_does_not_mutate_the_merges(corpus, num_merges, rule):
    merges = train_bpe(corpus, num_merges, tie_break=rule)
    as_lists = [list(pair) for pair in merges]
    before = copy.deepcopy(as_lists)
    for word in corpus_words(corpus):
        tokens = encode(word, as_lists)
        tokens.append("mutated by the caller")
        assert encode(word, as_lists) == encode(word, merges)  # a fresh list, not a cached one
    assert as_lists == before


# ---------------------------------------------------------------------------------------------
# Edge cases


@pytest.mark.parametrize("corpus", [[], {}, [""], ["   \n\t "], ("",)])
@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_empty_corpus_learns_nothing(corpus, rule):
    assert train_bpe(corpus, 5, tie_break=rule) == []


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_zero_merges_learns_nothing_and_encodes_to_characters(rule):
    merges = train_bpe(["low lower newest"], 0, tie_break=rule)
    assert merges == []
    assert encode("newest", merges) == ["n", "e", "w", "e", "s", "t", EOW]


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_one_letter_words(rule):
    # Each word a </w>, b </w> has one pair; the more frequent goes first, then the other.
    assert train_bpe(["a b a"], 5, tie_break=rule) == [("a", EOW), ("b", EOW)]
    assert encode("a", [("a", EOW)]) == ["a</w>"]
    assert encode("b", [("a", EOW)]) == ["b", EOW]


def test_overlapping_pairs_merge_left_to_right():
    # a a a a </w>: (a, a) counts 3 (overlapping occurrences each count) and merging it
    # left to right gives aa aa, never a aa a.
    merges = train_bpe(["aaaa"], 5, tie_break="lexicographic")
    # Then (aa, aa) and (aa, </w>) tie at 1; '<' sorts before 'a', so (aa, </w>) goes first.
    assert merges == [("a", "a"), ("aa", EOW), ("aa", "aa</w>")]
    assert encode("aaaa", merges[:1]) == ["aa", "aa", EOW]
    assert encode("aaa", merges[:1]) == ["aa", "a", EOW]
    assert encode("aaaa", merges) == ["aaaa</w>"]
    assert encode("aaaaa", merges) == ["aa", "aa", "a", EOW]
    assert encode("aaaaaa", merges) == ["aa", "aaaa</w>"]


def test_overlapping_pair_counts_include_every_position():
    step = next(train_steps(["aaaa"], 1))
    assert step.pair_counts == {("a", "a"): 3, ("a", EOW): 1}


@pytest.mark.parametrize(
    "word, symbols",
    [
        ("café", ["c", "a", "f", "é"]),  # precomposed é: one code point
        ("cafe\u0301", ["c", "a", "f", "e", "\u0301"]),  # e + combining acute: two
        ("東京", ["東", "京"]),
        ("😀x", ["😀", "x"]),
        ("👩\u200d💻", ["👩", "\u200d", "💻"]),  # a ZWJ sequence is three code points
    ],
)
def test_non_ascii_each_code_point_is_one_character(word, symbols):
    assert encode(word, []) == symbols + [EOW]
    merges = train_bpe([word, word], 20)
    assert "".join(merges[0]) in word + EOW
    assert encode(word, merges) == [word + EOW]


def test_combining_mark_merges_with_its_base_letter_like_any_pair():
    merges = train_bpe(["cafe\u0301 fe\u0301e"], 1, tie_break="lexicographic")
    assert merges == [("e", "\u0301")]
    assert encode("e\u0301", merges) == ["e\u0301", EOW]


def test_literal_marker_text_inside_a_word_is_ordinary_characters():
    # "a</w>" is six symbols: a < / w > and then the marker, which stays a symbol of its own.
    assert encode("a</w>", []) == ["a", "<", "/", "w", ">", EOW]
    merges = train_bpe(["a</w>"], 10)
    assert len(merges) == 5  # six symbols need five merges to become one token
    assert all(EOW not in pair for pair in merges[:2])  # the characters merge among themselves
    assert merges[:2] == [("/", "w"), ("/w", ">")]
    assert encode("a</w>", merges) == ["a</w></w>"]
    # The characters can build a token that spells the marker; it is still not the marker:
    # '</w>' encodes as that token followed by the real end-of-word symbol.
    merges = train_bpe(["</w>"], 3, tie_break="first-seen")
    assert merges == [("<", "/"), ("</", "w"), ("</w", ">")]
    assert encode("</w>", merges) == ["</w>", EOW]
    assert len(encode("</w>", merges)) == 2


def test_corpus_docstring_documents_literal_marker_text():
    doc = inspect.getdoc(reference.corpus.segment) or ""
    assert re.search(r"[Ll]iteral marker text .*\(``\"a</w>\"``\) is just more characters", doc)
