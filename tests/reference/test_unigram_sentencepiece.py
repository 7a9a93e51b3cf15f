"""``reference.unigram.segment`` equals Google's sentencepiece on held-out text and on ties.

The model in ``exercises/data/unigram-lm.model`` was trained by
``exercises/data/make_unigram_model.py`` on the first lines of ``cs336-corpus.en``; the
lines after them are held out, and on every one of them the reference's Viterbi
segmentation under the committed pieces (``unigram-lm-pieces.json``) must equal
``sp.encode(line, out_type=str)``. Ties and unknown characters are rare in a trained model,
so small models of our own (the exercise's cases, and seeded random ones with scores in steps
of 0.5, where equal totals are exact) are written into the same model file's pieces and
compared too. sentencepiece is a test-only dependency (the dev extras).
"""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.spec import load_exercise
from reference.unigram import SPACE, normalize, segment

spm = pytest.importorskip("sentencepiece")

DATA = Path(__file__).resolve().parents[2] / "exercises" / "data"
MODEL = DATA / "unigram-lm.model"
RECORD = json.loads((DATA / "unigram-lm-pieces.json").read_text(encoding="utf-8"))
PIECES = {piece: score for piece, score in RECORD["pieces"]}
LINES = (DATA / RECORD["corpus"]).read_text(encoding="utf-8").splitlines()
HELD_OUT = LINES[RECORD["training_lines"]:]
SPECIALS = 3  # <unk>, <s>, </s>: the first pieces of a trained model
RANDOM_MODELS = 300


def processor(model: bytes = b"") -> "spm.SentencePieceProcessor":
    if model:
        return spm.SentencePieceProcessor(model_proto=model)
    return spm.SentencePieceProcessor(model_file=str(MODEL))


def test_the_committed_pieces_are_the_models():
    sp = processor()
    normal = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())
              if not (sp.is_unknown(i) or sp.is_control(i))]
    assert [tuple(piece) for piece in RECORD["pieces"]] == normal
    assert RECORD["options"]["normalization_rule_name"] == "identity"
    assert len(PIECES) > 900


def test_segment_equals_sentencepiece_on_every_held_out_line():
    sp = processor()
    assert len(HELD_OUT) == 215
    differing = [line for line in HELD_OUT if segment(line, PIECES) != sp.encode(line, out_type=str)]
    assert differing == [], differing[:3]


def test_held_out_lines_with_unknown_characters_too():
    """Characters the model never saw, alone and in runs, inside words and between them."""
    sp = processor()
    unknown = ["\u2603", "\u65e5\u672c", " \u2603\u2603 ", "\u0416x"]
    assert all(c not in PIECES for c in "\u2603\u65e5\u672c\u0416") and "x" in PIECES
    lines = [line[: len(line) // 2] + unknown[index % len(unknown)] + line[len(line) // 2:]
             for index, line in enumerate(HELD_OUT)]
    differing = [line for line in lines if segment(line, PIECES) != sp.encode(line, out_type=str)]
    assert differing == [], differing[:3]


# --------------------------------------------------------------------------- models of our own


def _varint(number: int) -> bytes:
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    number = shift = 0
    while True:
        byte = data[at]
        at += 1
        number |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return number, at


def _fields(data: bytes) -> Iterator[tuple[int, bytes]]:
    """The top-level fields of a protobuf message: (field number, its whole encoding)."""
    at = 0
    while at < len(data):
        start = at
        key, at = _read_varint(data, at)
        wire = key & 7
        if wire == 0:
            _, at = _read_varint(data, at)
        elif wire == 2:
            size, at = _read_varint(data, at)
            at += size
        else:
            at += {1: 8, 5: 4}[wire]
        yield key >> 3, data[start:at]


def with_pieces(pieces: dict[str, float]) -> bytes:
    """The trained model with its normal pieces replaced by ``pieces`` (ModelProto field 1
    holds the pieces: a string piece, field 1, and a float score, field 2)."""
    model = MODEL.read_bytes()
    found = list(_fields(model))
    specials = [raw for number, raw in found if number == 1][:SPECIALS]
    rest = [raw for number, raw in found if number != 1]
    out = bytearray(b"".join(specials))
    for piece, score in pieces.items():
        text = piece.encode("utf-8")
        message = b"\x0a" + _varint(len(text)) + text + b"\x15" + struct.pack("<f", score)
        out += b"\x0a" + _varint(len(message)) + message
    return bytes(out + b"".join(rest))


def test_the_cases_of_the_exercise_segment_as_sentencepiece_does():
    exercise = load_exercise("unigram-lm")
    compared = 0
    for case in exercise.cases:
        if case.text is not None:
            sp = processor(with_pieces(dict(case.pieces)))
            assert segment(case.text, case.pieces) == sp.encode(case.text, out_type=str), case.id
            compared += 1
    assert compared >= 5


def _random_model(draw: random.Random) -> tuple[str, dict[str, float]]:
    letters = "abc"[: draw.randint(1, 3)]
    words = ["".join(draw.choice(letters) for _ in range(draw.randint(1, 6)))
             for _ in range(draw.randint(1, 4))]
    text = " ".join(words) + " z" * draw.randint(0, 1)  # z: an unknown character
    pieces = {symbol: -draw.randint(1, 8) / 2 for symbol in SPACE + letters}
    for _ in range(draw.randint(0, 8)):
        piece = (SPACE if draw.random() < 0.4 else "") + "".join(
            draw.choice(letters) for _ in range(draw.randint(1, 3)))
        if len(piece) > 1:
            pieces.setdefault(piece, -draw.randint(1, 8) / 2)
    return text, pieces


def test_random_models_with_exact_ties_segment_as_sentencepiece_does():
    draw = random.Random(2018)
    ties = 0
    for _ in range(RANDOM_MODELS):
        text, pieces = _random_model(draw)
        expected = processor(with_pieces(pieces)).encode(text, out_type=str)
        assert segment(text, pieces) == expected, (text, pieces)
        ties += _has_tie(normalize(text), pieces)
    assert ties > RANDOM_MODELS // 10, "enough of the models have tied best paths"


def _has_tie(normalized: str, pieces: dict[str, float]) -> bool:
    """Whether two best paths to some position score the same (so the tie rule decides)."""
    best: list = [0.0] + [None] * len(normalized)
    tied = False
    for start in range(len(normalized)):
        for end in range(start + 1, len(normalized) + 1):
            piece = normalized[start:end]
            if piece in pieces and best[start] is not None:
                score = best[start] + pieces[piece]
                tied = tied or score == best[end]
                best[end] = score if best[end] is None else max(best[end], score)
        if normalized[start] not in pieces and best[start] is not None:
            best[start + 1] = best[start + 1] if best[start + 1] is not None else best[start] - 99
    return tied
