"""The fast byte-level trainer learns exactly the byte-level reference's vocabulary and merges:
on CS336's reference run, on TinyStories with its separator, and on any text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.byte_fast import pretoken_counts, train_byte_bpe_fast
from reference.byte_level import (
    load_gpt2_vocab_and_merges,
    pretokenize,
    train_byte_bpe,
)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cs336"
EOT = "<|endoftext|>"


def test_cs336_reference_run_is_reproduced():
    text = (FIXTURES / "corpus.en").read_text(encoding="utf-8")
    vocab, merges = train_byte_bpe_fast(text, 500, [EOT])
    expected_vocab, expected_merges = load_gpt2_vocab_and_merges(
        FIXTURES / "train-bpe-reference-vocab.json",
        FIXTURES / "train-bpe-reference-merges.txt")
    assert merges == expected_merges
    assert set(vocab.values()) == set(expected_vocab.values())


@pytest.mark.parametrize("vocab_size", [257, 300, 1000])
def test_tinystories_with_its_separator_is_trained_alike(vocab_size):
    text = (FIXTURES / "tinystories_sample.txt").read_text(encoding="utf-8")
    assert train_byte_bpe_fast(text, vocab_size, [EOT]) == train_byte_bpe(text, vocab_size, [EOT])


def test_pretokens_are_counted_as_the_reference_splits_them():
    text = (FIXTURES / "tinystories_sample.txt").read_text(encoding="utf-8")
    counts = pretoken_counts(text, [EOT])
    assert sorted(counts.elements()) == sorted(pretokenize(text, [EOT]))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.one_of(st.text("ab \n'é1日🙂", max_size=12), st.sampled_from([EOT, "<x>"])),
             max_size=8).map("".join),
    st.lists(st.sampled_from([EOT, "<x>", "<x><x>"]), max_size=2, unique=True),
    st.integers(min_value=0, max_value=40),
)
def test_any_text_gets_the_references_vocabulary_and_merges(text, specials, extra):
    vocab_size = 256 + len(specials) + extra
    assert train_byte_bpe_fast(text, vocab_size, specials) == train_byte_bpe(text, vocab_size,
                                                                             specials)
