"""Byte-level BPE's roles (CS336 conventions): train, encode a text to ids, decode ids to text,
encode an iterable of lines lazily."""

from __future__ import annotations

from grader.families.byte_level import (
    differential,
    efficiency,
    judges,
    properties,
    shapes,
    streaming,
    stub,
)
from grader.families.byte_level.spec import ROLES as NAMES
from grader.families.api import Exercise, Role

TRAIN, ENCODE, DECODE, ITERABLE = NAMES


def send_train(exercise: Exercise, args: tuple) -> list:
    text, vocab_size, special_tokens = args
    return [text, vocab_size, list(special_tokens)]


def send_encode(exercise: Exercise, args: tuple) -> list:
    text, vocab, merges, special_tokens = args
    return [text, dict(vocab), [tuple(m) for m in merges], list(special_tokens)]


def send_encode_iterable(exercise: Exercise, args: tuple) -> list:
    lines, vocab, merges, special_tokens = args
    return [list(lines), dict(vocab), [tuple(m) for m in merges], list(special_tokens)]


def send_decode(exercise: Exercise, args: tuple) -> list:
    ids, vocab = args
    return [list(ids), dict(vocab)]


# The roles whose inputs are a case's encode texts, and what an author adds to give them one.
ON_ENCODE_TEXTS = {"serves": lambda case: bool(case.encode), "case_field": "encode",
                   "how_to_serve": "add encode: texts to a case"}

ROLES = (
    Role(
        name=TRAIN,
        arguments=("text", "vocab_size", "special_tokens"),
        checks=frozenset({"cases", "differential", "properties", "efficiency"}),
        send=send_train,
        shape=lambda exercise, value, name: shapes.byte_training(value, name),
        case_items=judges.train_items,
        stub_examples=stub.train_examples,
        audit_advice="a case whose text shows it",
        generated=differential.TRAIN_INPUTS,
        properties=properties.train_properties,
        timed=efficiency.run,
    ),
    Role(
        name=ENCODE,
        arguments=("text", "vocab", "merges", "special_tokens"),
        checks=frozenset({"cases", "differential", "properties"}),
        send=send_encode,
        shape=lambda exercise, value, name: shapes.token_ids(value, name),
        case_items=judges.encode_items,
        stub_examples=stub.encode_examples,
        **ON_ENCODE_TEXTS,
        audit_advice="an encode text (in a case) that shows it",
        generated=differential.ENCODE_INPUTS,
        properties=properties.encode_properties,
    ),
    Role(
        name=DECODE,
        arguments=("ids", "vocab"),
        checks=frozenset({"cases", "differential", "properties"}),
        send=send_decode,
        shape=lambda exercise, value, name: shapes.text(value, name),
        case_items=judges.decode_items,
        stub_examples=stub.decode_examples,
        **ON_ENCODE_TEXTS,
        audit_advice="an encode text (in a case) that shows it",
        generated=differential.DECODE_INPUTS,
        properties=properties.decode_properties,
    ),
    Role(
        name=ITERABLE,
        arguments=("lines", "vocab", "merges", "special_tokens"),
        checks=frozenset({"cases"}),
        send=send_encode_iterable,
        shape=lambda exercise, value, name: shapes.token_ids(value, name),
        case_items=streaming.iterable_items,
        stub_examples=stub.iterable_examples,
        **ON_ENCODE_TEXTS,
        audit_advice="an encode text (in a case) whose lines show it",
        depends_on=frozenset({ENCODE}),
    ),
)
