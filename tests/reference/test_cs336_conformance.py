"""The byte-level reference against what CS336's own tests assert, with tiktoken as the oracle.

CS336's ``test_train_bpe.py`` and ``test_tokenizer.py`` (assignment 1) are the test-only oracle
here, on their fixtures (``tests/fixtures/cs336``, checksummed copies): training on
``corpus.en`` gives the published merges and vocabulary; training with ``<|endoftext|>`` on a
TinyStories sample never puts ``<|`` in an ordinary token; and encoding with GPT-2's vocab and
merges gives tiktoken's GPT-2 ids on their texts (round trips included), special tokens,
overlapping special tokens and ``encode_iterable`` over a file too. tiktoken's GPT-2 encoding
is built offline from the same fixtures, passing tiktoken's own hash check: ``gpt2_vocab.json``
is its ``encoder.json``, and ``"#version: 0.2\\n"`` followed by ``gpt2_merges.txt`` its
``vocab.bpe``. CS336's speed and memory tests time and limit a process; they are not here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference.byte_level import (
    ByteLevelEncoder,
    decode_byte_bpe,
    encode_byte_bpe,
    encode_iterable_byte_bpe,
    load_gpt2_vocab_and_merges,
    train_byte_bpe,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "cs336"
EOT = "<|endoftext|>"
NEEDED = ("gpt2_vocab.json", "gpt2_merges.txt", "corpus.en", "tinystories_sample.txt",
          "train-bpe-reference-merges.txt", "train-bpe-reference-vocab.json", "address.txt",
          "german.txt")
MISSING = [name for name in NEEDED if not (FIXTURES / name).is_file()]
pytestmark = pytest.mark.skipif(
    bool(MISSING), reason=f"CS336's fixtures are not in {FIXTURES}: {', '.join(MISSING)}")

# The strings of CS336's test_tokenizer.py, written here as its tests spell them.
STRINGS = ["", "s", "🙃", "Hello, how are you?", "Héllò hôw are ü? 🙃",
           f"Héllò hôw {EOT}{EOT} are ü? 🙃{EOT}"]


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def gpt2():
    return load_gpt2_vocab_and_merges(FIXTURES / "gpt2_vocab.json", FIXTURES / "gpt2_merges.txt",
                                      [EOT])


@pytest.fixture(scope="module")
def tiktoken_gpt2(tmp_path_factory):
    """tiktoken's own GPT-2 encoding (its name, pattern, ranks, special token and hashes),
    read from the fixtures instead of downloaded."""
    tiktoken = pytest.importorskip("tiktoken", reason="the tiktoken oracle needs `tiktoken`")
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks
    from tiktoken_ext import openai_public

    folder = tmp_path_factory.mktemp("gpt2-encoding")
    (folder / "vocab.bpe").write_bytes(b"#version: 0.2\n"
                                       + (FIXTURES / "gpt2_merges.txt").read_bytes())
    (folder / "encoder.json").write_bytes((FIXTURES / "gpt2_vocab.json").read_bytes())
    hashes: dict = {}

    def from_fixtures(vocab_bpe_file, encoder_json_file, **checks):
        hashes.update(checks)
        return data_gym_to_mergeable_bpe_ranks(str(folder / "vocab.bpe"),
                                               str(folder / "encoder.json"), **checks)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", "")  # no cache: read the files, check their hashes
        patch.setattr(openai_public, "data_gym_to_mergeable_bpe_ranks", from_fixtures)
        parameters = openai_public.gpt2()
    assert hashes.get("vocab_bpe_hash") and hashes.get("encoder_json_hash")
    return tiktoken.Encoding(**parameters)


def tiktoken_ids(encoding, text: str) -> list[int]:
    return encoding.encode(text, allowed_special={EOT})


# -- test_train_bpe.py -----------------------------------------------------------------------------


def test_training_on_corpus_en_gives_cs336s_merges_and_vocabulary():
    vocab, merges = train_byte_bpe(fixture_text("corpus.en"), 500, [EOT])
    expected_vocab, expected_merges = load_gpt2_vocab_and_merges(
        FIXTURES / "train-bpe-reference-vocab.json", FIXTURES / "train-bpe-reference-merges.txt",
        [EOT])
    assert merges == expected_merges
    assert set(vocab) == set(expected_vocab)
    assert set(vocab.values()) == set(expected_vocab.values())


def test_special_tokens_are_in_the_vocabulary_and_merged_into_nothing():
    """``test_train_bpe_special_tokens``: no ordinary token holds ``<|``, on a TinyStories
    sample of documents separated by ``<|endoftext|>``, vocabulary 1000."""
    text = fixture_text("tinystories_sample.txt")
    assert text.count(EOT) >= 2
    vocab, merges = train_byte_bpe(text, 1000, [EOT])
    tokens = list(vocab.values())
    assert tokens.count(EOT.encode("utf-8")) == 1
    ordinary = [token for token in tokens if token != EOT.encode("utf-8")]
    assert ordinary and all(b"<|" not in token for token in ordinary)
    assert merges and all(b"<|" not in a + b for a, b in merges)


# -- test_tokenizer.py -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", STRINGS)
def test_the_strings_match_tiktoken_and_round_trip(gpt2, tiktoken_gpt2, text):
    vocab, merges = gpt2
    ids = encode_byte_bpe(text, vocab, merges, [EOT])
    assert ids == tiktoken_ids(tiktoken_gpt2, text)
    assert decode_byte_bpe(ids, vocab) == text


@pytest.mark.parametrize("name", ["address.txt", "german.txt", "tinystories_sample.txt"])
def test_the_fixture_texts_match_tiktoken_and_round_trip(gpt2, tiktoken_gpt2, name):
    vocab, merges = gpt2
    text = fixture_text(name)
    ids = encode_byte_bpe(text, vocab, merges, [EOT])
    assert ids == tiktoken_ids(tiktoken_gpt2, text)
    assert decode_byte_bpe(ids, vocab) == text


def test_samples_of_corpus_en_match_tiktoken(gpt2, tiktoken_gpt2):
    vocab, merges = gpt2
    encoder = ByteLevelEncoder(vocab, merges, [EOT])  # encode_byte_bpe's, built once for all
    lines = fixture_text("corpus.en").splitlines(keepends=True)
    for start in range(0, len(lines), max(1, len(lines) // 8)):
        sample = "".join(lines[start:start + 40])
        assert encoder.encode(sample) == tiktoken_ids(tiktoken_gpt2, sample)


def test_special_tokens_before_trailing_newlines_match_tiktoken(gpt2, tiktoken_gpt2):
    vocab, merges = gpt2
    text = f"The end.{EOT}\n\n{EOT}\n\nOnce upon a time.\n\n{EOT}"
    assert encode_byte_bpe(text, vocab, merges, [EOT]) == tiktoken_ids(tiktoken_gpt2, text)


def test_overlapping_special_tokens_take_the_longer(gpt2):
    vocab, merges = gpt2
    double = EOT + EOT
    vocab = dict(vocab)
    vocab[max(vocab) + 1] = double.encode("utf-8")
    text = f"Hello, how {double} are you?{EOT}"
    ids = encode_byte_bpe(text, vocab, merges, [EOT, double])
    pieces = [decode_byte_bpe([i], vocab) for i in ids]
    assert pieces.count(EOT) == 1 and pieces.count(double) == 1
    assert decode_byte_bpe(ids, vocab) == text


def test_encode_iterable_over_a_file_matches_tiktoken(gpt2, tiktoken_gpt2):
    vocab, merges = gpt2
    with open(FIXTURES / "tinystories_sample.txt", encoding="utf-8") as handle:
        ids = list(encode_iterable_byte_bpe(handle, vocab, merges, [EOT]))
    text = fixture_text("tinystories_sample.txt")
    assert ids == tiktoken_ids(tiktoken_gpt2, text)
    assert decode_byte_bpe(ids, vocab) == text
