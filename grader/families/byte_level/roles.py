"""Byte-level BPE's roles (CS336 conventions): train, encode a text to ids, decode ids to text."""

from __future__ import annotations

from grader.families.byte_level import efficiency, judges, shapes, stub
from grader.families.byte_level.spec import ROLES as NAMES
from grader.spec import Exercise, Role

TRAIN, ENCODE, DECODE = NAMES


def send_train(exercise: Exercise, args: tuple) -> list:
    text, vocab_size, special_tokens = args
    return [text, vocab_size, list(special_tokens)]


def send_encode(exercise: Exercise, args: tuple) -> list:
    text, vocab, merges, special_tokens = args
    return [text, dict(vocab), [tuple(m) for m in merges], list(special_tokens)]


def send_decode(exercise: Exercise, args: tuple) -> list:
    ids, vocab = args
    return [list(ids), dict(vocab)]


ROLES = (
    Role(
        name=TRAIN,
        arguments=("text", "vocab_size", "special_tokens"),
        checks=frozenset({"cases", "efficiency"}),
        send=send_train,
        shape=lambda exercise, value, name: shapes.byte_training(value, name),
        case_items=judges.train_items,
        stub_examples=stub.train_examples,
        audit_advice="a case whose text shows it",
        timed=efficiency.run,
    ),
    Role(
        name=ENCODE,
        arguments=("text", "vocab", "merges", "special_tokens"),
        checks=frozenset({"cases"}),
        send=send_encode,
        shape=lambda exercise, value, name: shapes.token_ids(value, name),
        case_items=judges.encode_items,
        stub_examples=stub.encode_examples,
        serves=lambda case: bool(case.encode),
        case_field="encode",
        how_to_serve="add encode: texts to a case",
        audit_advice="an encode text (in a case) that shows it",
    ),
    Role(
        name=DECODE,
        arguments=("ids", "vocab"),
        checks=frozenset({"cases"}),
        send=send_decode,
        shape=lambda exercise, value, name: shapes.text(value, name),
        case_items=judges.decode_items,
        stub_examples=stub.decode_examples,
        serves=lambda case: bool(case.encode),
        case_field="encode",
        how_to_serve="add encode: texts to a case",
        audit_advice="an encode text (in a case) that shows it",
    ),
)
