"""The byte-level reference against Stanford CS336's fixtures and GPT-2's released tokenizer.

- Training on ``corpus.en`` at vocab size 500 with ``<|endoftext|>`` gives CS336's reference
  merges and vocab exactly, ids included.
- Encoding with GPT-2's vocab and merges gives the ids of Hugging Face ``tokenizers`` (a
  ByteLevel pre-tokenizer and a BPE model read from the same files), offline.
- ``decode(encode(text)) == text`` for any Unicode text, special tokens included.
- The incremental trainer learns what a recount-everything trainer learns.

The fixtures are copies in ``tests/fixtures/cs336`` (see its README), checked against their
``SHA256SUMS``.
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.byte_level import (
    GPT2_PRETOKENIZE_PATTERN,
    ByteLevelEncoder,
    decode_byte_bpe,
    encode_byte_bpe,
    from_gpt2_string,
    gpt2_byte_order,
    gpt2_bytes_to_unicode,
    load_gpt2_vocab_and_merges,
    pretokenize,
    split_on_special_tokens,
    to_gpt2_string,
    train_byte_bpe,
)
from reference.errors import BPEInputError

FIXTURES = Path(__file__).parent.parent / "fixtures" / "cs336"
EOT = "<|endoftext|>"
SAMPLES = ["tinystories_sample.txt", "german.txt", "address.txt"]


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def trained():
    """CS336's training run: corpus.en, vocab size 500, one special token."""
    return train_byte_bpe(fixture_text("corpus.en"), 500, [EOT])


@pytest.fixture(scope="module")
def gpt2():
    vocab, merges = load_gpt2_vocab_and_merges(
        FIXTURES / "gpt2_vocab.json", FIXTURES / "gpt2_merges.txt", [EOT]
    )
    return ByteLevelEncoder(vocab, merges, [EOT])


@pytest.fixture(scope="module")
def hf_gpt2():
    tokenizers = pytest.importorskip("tokenizers", reason="the cross-check needs `tokenizers`")
    tokenizer = tokenizers.Tokenizer(
        tokenizers.models.BPE.from_file(
            str(FIXTURES / "gpt2_vocab.json"), str(FIXTURES / "gpt2_merges.txt")
        )
    )
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.add_special_tokens([EOT])
    return tokenizer


@pytest.fixture(scope="module")
def hf_pretokenizer():
    tokenizers = pytest.importorskip("tokenizers", reason="the cross-check needs `tokenizers`")
    return tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)


def hf_ids(tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False).ids


# Any Unicode text (no lone surrogates: they have no UTF-8 bytes), with special tokens mixed in.
unicode_text = st.text(st.characters(codec="utf-8"), max_size=40)


# For the comparisons with Hugging Face: characters assigned in Python's Unicode database. The
# `regex` module's tables are newer than those of the regex engine inside `tokenizers`; on
# characters assigned only lately (CJK Extension J, U+323B0.., say) one calls a letter what the
# other calls unassigned, and the two pre-tokenize differently.
assigned_text = st.text(
    st.characters(codec="utf-8").filter(lambda char: unicodedata.category(char) != "Cn"),
    max_size=40,
)


def texts_with(specials: list[str], pieces=unicode_text):
    return st.lists(st.one_of(pieces, st.sampled_from(specials)), max_size=6).map("".join)


# -- the fixtures ---------------------------------------------------------------------------------


def test_fixtures_match_their_checksums():
    for line in (FIXTURES / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split()
        assert hashlib.sha256((FIXTURES / name).read_bytes()).hexdigest() == digest, name


# -- GPT-2's byte spelling -------------------------------------------------------------------------


def test_bytes_to_unicode_spells_every_byte_with_one_visible_character():
    table = gpt2_bytes_to_unicode()
    assert sorted(table) == list(range(256))
    assert len(set(table.values())) == 256
    assert not any(char.isspace() or not char.isprintable() for char in table.values())
    assert (table[ord(" ")], table[ord("\n")], table[ord("a")]) == ("Ġ", "Ċ", "a")


def test_byte_order_is_the_printable_bytes_then_the_rest():
    order = gpt2_byte_order()
    assert order[:3] == [ord("!"), ord('"'), ord("#")]
    assert order[187] == 0xFF and order[188:191] == [0, 1, 2]
    # GPT-2's vocab.json lists the single bytes first, in this order.
    vocab, _ = load_gpt2_vocab_and_merges(
        FIXTURES / "gpt2_vocab.json", FIXTURES / "gpt2_merges.txt"
    )
    assert [vocab[token_id] for token_id in range(256)] == [bytes([value]) for value in order]


@given(st.binary(max_size=20))
def test_gpt2_spelling_round_trips(token):
    assert from_gpt2_string(to_gpt2_string(token)) == token


def test_spelling_of_a_multibyte_token():
    assert to_gpt2_string(" the".encode()) == "Ġthe"
    assert to_gpt2_string("é".encode()) == "Ã©"


# -- pre-tokenization ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, pretokens",
    [
        ("Hello, world!", ["Hello", ",", " world", "!"]),
        ("don't we'll", ["don", "'t", " we", "'ll"]),
        ("a  b\n\nc ", ["a", " ", " b", "\n", "\n", "c", " "]),
        ("x 1234 !?", ["x", " 1234", " !?"]),
        ("über 1.5", ["über", " 1", ".", "5"]),
    ],
)
def test_pretokenize_examples(text, pretokens):
    assert pretokenize(text) == pretokens


def test_pretokenize_leaves_out_special_tokens_and_splits_at_them():
    assert pretokenize("a<|endoftext|>b", [EOT]) == ["a", "b"]
    assert pretokenize("a<|endoftext|>b") == ["a", "<|", "endoftext", "|>", "b"]


def test_split_on_special_tokens_prefers_the_longest():
    double = EOT + EOT
    assert split_on_special_tokens(f"x{double}y{EOT}", [EOT, double]) == ["x", double, "y", EOT, ""]
    assert split_on_special_tokens(f"x{double}", [EOT]) == ["x", EOT, "", EOT, ""]


@given(texts_with([EOT, "<s>"]))
def test_pretokens_and_special_tokens_give_back_the_text(text):
    chunks = split_on_special_tokens(text, [EOT, "<s>"])
    rebuilt = "".join(
        chunk if index % 2 else "".join(pretokenize(chunk)) for index, chunk in enumerate(chunks)
    )
    assert rebuilt == text


@settings(max_examples=300)
@given(assigned_text)
def test_pretokenize_agrees_with_hugging_face_bytelevel(hf_pretokenizer, text):
    pieces = hf_pretokenizer.pre_tokenize_str(text)
    expected = [from_gpt2_string(piece).decode("utf-8") for piece, _ in pieces]
    assert pretokenize(text) == expected


def test_the_pattern_is_gpt2s():
    assert GPT2_PRETOKENIZE_PATTERN == (
        r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    )


# -- training: CS336's reference run ---------------------------------------------------------------


def test_training_reproduces_cs336_merges(trained):
    _, merges = trained
    lines = (FIXTURES / "train-bpe-reference-merges.txt").read_text(encoding="utf-8").splitlines()
    assert [f"{to_gpt2_string(a)} {to_gpt2_string(b)}" for a, b in merges] == lines


def test_training_reproduces_cs336_vocab_ids_included(trained):
    vocab, merges = trained
    expected, expected_merges = load_gpt2_vocab_and_merges(
        FIXTURES / "train-bpe-reference-vocab.json",
        FIXTURES / "train-bpe-reference-merges.txt",
        [EOT],
    )
    assert vocab == expected
    assert merges == expected_merges
    # Special token first, then the 256 bytes in GPT-2's order, then the merges in order.
    assert vocab[0] == EOT.encode()
    assert [vocab[i] for i in range(1, 257)] == [bytes([value]) for value in gpt2_byte_order()]
    assert [vocab[257 + rank] for rank in range(len(merges))] == [a + b for a, b in merges]


def test_ties_go_to_the_greater_pair_of_bytes():
    # Every pair occurs once; the greatest (bytes, bytes) tuple is (b"c", b"d").
    _, merges = train_byte_bpe("ab cd", 257)
    assert merges == [(b"c", b"d")]
    # Bytes order, not the order of GPT-2's spellings: b" " (Ġ) < b"a", so (b"a", b"b") wins.
    _, merges = train_byte_bpe("a ab", 257)
    assert merges == [(b"a", b"b")]


def test_special_tokens_are_never_merged_into_or_across():
    text = fixture_text("tinystories_sample.txt")
    assert text.count(EOT) == 5
    vocab, merges = train_byte_bpe(text, 600, [EOT])
    assert list(vocab.values()).count(EOT.encode()) == 1
    assert not any(b"<|" in a + b or b"|>" in a + b for a, b in merges)
    # Without the special token, its pieces are ordinary text and get merged.
    _, merges = train_byte_bpe(text, 600)
    assert any(b"endoftext" in a + b for a, b in merges)


def test_training_stops_when_nothing_is_left_to_merge():
    vocab, merges = train_byte_bpe("aaa", 1000)
    assert merges == [(b"a", b"a"), (b"aa", b"a")]
    assert len(vocab) == 258


def naive_train(text: str, vocab_size: int, special_tokens: list[str]) -> list[tuple[bytes, bytes]]:
    """The definition: recount every pair after every merge, take the (count, pair) maximum."""
    counts = Counter(pretokenize(text, special_tokens))
    words = {tuple(bytes([b]) for b in word.encode()): n for word, n in counts.items()}
    merges = []
    while 256 + len(special_tokens) + len(merges) < vocab_size:
        pairs: Counter = Counter()
        for word, n in words.items():
            for pair in zip(word, word[1:]):
                pairs[pair] += n
        if not pairs:
            break
        best = max(pairs, key=lambda pair: (pairs[pair], pair))
        merges.append(best)
        merged = {}
        for word, n in words.items():
            out, i = [], 0
            while i < len(word):
                if word[i : i + 2] == best:
                    out.append(best[0] + best[1])
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged
    return merges


@settings(max_examples=150)
@given(
    st.lists(st.one_of(st.text("ab \n'é1", max_size=12), st.just(EOT)), max_size=8).map("".join),
    st.integers(min_value=257, max_value=290),
)
def test_incremental_training_equals_the_definition(text, vocab_size):
    vocab, merges = train_byte_bpe(text, vocab_size, [EOT])
    assert merges == naive_train(text, vocab_size, [EOT])
    assert len(vocab) == 257 + len(merges)


# -- encoding --------------------------------------------------------------------------------------


def test_known_gpt2_ids(gpt2):
    assert gpt2.encode("Hello world") == [15496, 995]
    assert gpt2.encode(EOT) == [50256]


@pytest.mark.parametrize("name", SAMPLES)
def test_encode_agrees_with_hugging_face_on_the_samples(gpt2, hf_gpt2, name):
    text = fixture_text(name)
    ids = gpt2.encode(text)
    assert ids == hf_ids(hf_gpt2, text)
    assert gpt2.decode(ids) == text


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "Héllò hôw <|endoftext|><|endoftext|> are ü? 🙃<|endoftext|>",
        "  a\n\n b  \t",
        "don't I'LL 123 4567 x",
        "\u00a0x \u3000y\r\n",
        "<|endoftext",
    ],
)
def test_encode_agrees_with_hugging_face_on_edge_cases(gpt2, hf_gpt2, text):
    assert gpt2.encode(text) == hf_ids(hf_gpt2, text)


@settings(max_examples=300)
@given(texts_with([EOT], assigned_text))
def test_encode_agrees_with_hugging_face_on_any_text(gpt2, hf_gpt2, text):
    assert gpt2.encode(text) == hf_ids(hf_gpt2, text)


@pytest.mark.parametrize("name", SAMPLES)
def test_the_functions_agree_with_the_encoder(gpt2, name):
    text = fixture_text(name)
    ids = encode_byte_bpe(text, gpt2.vocab, list(gpt2.ranks), [EOT])
    assert ids == gpt2.encode(text)
    assert decode_byte_bpe(ids, gpt2.vocab) == text


def test_overlapping_special_tokens_take_the_longest(gpt2):
    double = EOT + EOT
    vocab = dict(gpt2.vocab)
    vocab[len(vocab)] = double.encode()
    encoder = ByteLevelEncoder(vocab, list(gpt2.ranks), [EOT, double])
    ids = encoder.encode(f"Hello, how {double} are you?{EOT}")
    assert ids.count(len(vocab) - 1) == 1 and ids.count(50256) == 1
    assert encoder.decode(ids) == f"Hello, how {double} are you?{EOT}"


def test_without_the_special_token_its_text_is_ordinary(gpt2):
    plain = ByteLevelEncoder(gpt2.vocab, list(gpt2.ranks))
    assert 50256 not in plain.encode(f"a{EOT}b")
    assert plain.decode(plain.encode(f"a{EOT}b")) == f"a{EOT}b"


def test_encode_with_the_trained_vocab(trained):
    vocab, merges = trained
    encoder = ByteLevelEncoder(vocab, merges, [EOT])
    for name in SAMPLES:
        text = fixture_text(name)
        ids = encoder.encode(text)
        assert encoder.decode(ids) == text
        assert len(ids) < len(text.encode())  # the merges compress
    assert encoder.encode(" the") == [261]  # Ġthe, the fifth merge: id 257 + 4


# -- decoding --------------------------------------------------------------------------------------


@settings(max_examples=300)
@given(texts_with([EOT, "<|pad|>"]))
def test_round_trip_with_the_trained_vocab(trained, text):
    vocab, merges = trained
    vocab = {**vocab, len(vocab): b"<|pad|>"}
    encoder = ByteLevelEncoder(vocab, merges, [EOT, "<|pad|>"])
    assert encoder.decode(encoder.encode(text)) == text


@settings(max_examples=300)
@given(texts_with([EOT]))
def test_round_trip_with_gpt2(gpt2, text):
    assert gpt2.decode(gpt2.encode(text)) == text


def test_a_partial_character_decodes_to_the_replacement_character(gpt2):
    ids = gpt2.encode("🙃")
    assert len(ids) > 1
    assert "\ufffd" in gpt2.decode(ids[:1])
    assert gpt2.decode(ids) == "🙃"


# -- loading files ---------------------------------------------------------------------------------


def test_loading_adds_a_missing_special_token(tmp_path):
    (tmp_path / "vocab.json").write_text('{"a": 0, "Ġ": 1}', encoding="utf-8")
    (tmp_path / "merges.txt").write_text("#version: 0.2\nĠ a\n\n", encoding="utf-8")
    vocab, merges = load_gpt2_vocab_and_merges(
        tmp_path / "vocab.json", tmp_path / "merges.txt", ["<pad>"]
    )
    assert vocab == {0: b"a", 1: b" ", 2: b"<pad>"}
    assert merges == [(b" ", b"a")]


def test_loading_reads_a_listed_special_token_as_text(tmp_path):
    # "é" spelled in a GPT-2 file stands for the byte 0xe9; as a special token, for UTF-8 "é".
    (tmp_path / "vocab.json").write_text('{"é": 0}', encoding="utf-8")
    (tmp_path / "merges.txt").write_text("", encoding="utf-8")
    assert load_gpt2_vocab_and_merges(tmp_path / "vocab.json", tmp_path / "merges.txt")[0] == {
        0: b"\xe9"
    }
    assert load_gpt2_vocab_and_merges(
        tmp_path / "vocab.json", tmp_path / "merges.txt", ["é"]
    )[0] == {0: "é".encode()}


@pytest.mark.parametrize(
    "merges_text, message",
    [
        ("a b c\n", r"merges.txt:1: expected 'a b'"),
        ("a\u3000 b\n", r"merges.txt:1: .* stands for no byte"),
    ],
)
def test_loading_refuses_malformed_merges(tmp_path, merges_text, message):
    (tmp_path / "vocab.json").write_text('{"a": 0}', encoding="utf-8")
    (tmp_path / "merges.txt").write_text(merges_text, encoding="utf-8")
    with pytest.raises(BPEInputError, match=message):
        load_gpt2_vocab_and_merges(tmp_path / "vocab.json", tmp_path / "merges.txt")


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        ((b"abc", 300), r"text must be a str, got bytes"),
        (("abc", 256, [EOT]), r"vocab_size must be at least 257 \(256 bytes \+ 1 special"),
        (("abc", 255), r"vocab_size must be at least 256"),
        (("abc", 300.0), r"vocab_size must be an int, got float"),
        (("abc", True), r"vocab_size must be an int, got bool"),
        (("abc", 300, EOT), r"special_tokens must be a list of str, got str"),
        (("abc", 300, [""]), r"special_tokens\[0\] is empty"),
        (("abc", 300, [EOT, EOT]), r"special_tokens\[1\] repeats"),
        (("abc", 300, [b"<s>"]), r"special_tokens\[0\] must be a str, got bytes"),
        (("a\ud800b", 300), r"text has a lone surrogate '\\ud800' at index 1"),
    ],
)
def test_training_refuses_bad_input(args, message):
    with pytest.raises(BPEInputError, match=message):
        train_byte_bpe(*args)


def test_encoding_refuses_bad_input(gpt2):
    vocab, merges = gpt2.vocab, list(gpt2.ranks)
    with pytest.raises(BPEInputError, match="text must be a str, got list"):
        gpt2.encode(["a"])
    with pytest.raises(BPEInputError, match=r"special token '<s>' is not in the vocab"):
        ByteLevelEncoder(vocab, merges, ["<s>"])
    with pytest.raises(BPEInputError, match=r"merges\[0\] must be a pair of two non-empty bytes"):
        ByteLevelEncoder(vocab, [("a", "b")])
    with pytest.raises(BPEInputError, match=r"merges\[0\] makes b'zq', which is not in the vocab"):
        ByteLevelEncoder({i: bytes([i]) for i in range(256)}, [(b"z", b"q")])
    with pytest.raises(BPEInputError, match=r"vocab has no token for the single byte 0xff"):
        ByteLevelEncoder({i: bytes([i]) for i in range(255)}, [])


def test_decoding_refuses_bad_input(gpt2):
    with pytest.raises(BPEInputError, match=r"ids\[1\] is 99999, which is not in the vocab"):
        gpt2.decode([15496, 99999])
    with pytest.raises(BPEInputError, match=r"ids\[0\] must be an int, got str"):
        gpt2.decode(["15496"])
    with pytest.raises(BPEInputError, match=r"vocab\[0\] must be bytes, got str"):
        decode_byte_bpe([0], {0: "a"})
