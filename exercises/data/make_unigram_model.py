"""Train the small SentencePiece Unigram model the unigram-lm exercise is checked against.

Run from the repository root with the dev extras installed (``pip install -e '.[dev]'``):

    python exercises/data/make_unigram_model.py

It trains ``sentencepiece`` (offline) on the first ``TRAINING_LINES`` lines of
``exercises/data/cs336-corpus.en`` and writes ``exercises/data/unigram-lm.model`` (the model
as SentencePiece saves it) and ``exercises/data/unigram-lm-pieces.json`` (its normal pieces
and their log-probabilities, in id order, with the options used). The lines after
``TRAINING_LINES`` are the held-out text: ``tests/reference/test_unigram_sentencepiece.py``
checks that ``reference.unigram.segment`` equals ``sp.encode(line, out_type=str)`` on each.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import sentencepiece as spm

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "cs336-corpus.en"
MODEL = HERE / "unigram-lm.model"
PIECES = HERE / "unigram-lm-pieces.json"
TRAINING_LINES = 800
OPTIONS = {
    "model_type": "unigram",
    "vocab_size": 1000,
    "normalization_rule_name": "identity",
    "character_coverage": 1.0,
    "add_dummy_prefix": True,
    "remove_extra_whitespaces": True,
    "split_by_whitespace": True,
    "byte_fallback": False,
    "num_threads": 1,
}


def training_lines() -> list[str]:
    return CORPUS.read_text(encoding="utf-8").splitlines()[:TRAINING_LINES]


def held_out_lines() -> list[str]:
    return CORPUS.read_text(encoding="utf-8").splitlines()[TRAINING_LINES:]


def normal_pieces(processor: spm.SentencePieceProcessor) -> list[list]:
    """The pieces the lattice matches (not <unk>, <s>, </s>), with their scores, by id."""
    return [[processor.id_to_piece(i), processor.get_score(i)]
            for i in range(processor.get_piece_size())
            if not (processor.is_unknown(i) or processor.is_control(i))]


def as_json(record: dict) -> str:
    """The record with one piece per line (small diffs when the model is retrained)."""
    head = {key: value for key, value in record.items() if key != "pieces"}
    lines = [json.dumps(piece, ensure_ascii=False) for piece in record["pieces"]]
    text = json.dumps(head, ensure_ascii=False, indent=1)[:-2]
    return text + ',\n "pieces": [\n' + ",\n".join(lines) + "\n ]\n}\n"


def main() -> None:
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(training_lines()),
                                   model_writer=model, minloglevel=2, **OPTIONS)
    MODEL.write_bytes(model.getvalue())
    processor = spm.SentencePieceProcessor(model_proto=model.getvalue())
    record = {
        "sentencepiece": spm.__version__,
        "corpus": CORPUS.name,
        "training_lines": TRAINING_LINES,
        "options": OPTIONS,
        "pieces": normal_pieces(processor),
    }
    PIECES.write_text(as_json(record), encoding="utf-8")
    print(f"{len(record['pieces'])} pieces -> {PIECES.name}, {MODEL.name}")


if __name__ == "__main__":
    main()
