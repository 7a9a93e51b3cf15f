"""The function roles an exercise can ask students to write, as one table.

A role is what a student's function does (``train``, ``encode``, ``sequence_lengths``, and
for WordPiece ``train_wordpiece`` and ``first_divergence``, the first step where WordPiece and
BPE part; for byte-level BPE ``train_byte_bpe``, ``encode_byte_bpe`` and ``decode_byte_bpe``).
A byte-level case's corpus is its text in pieces, joined without separators; its vocabulary
size is 256 bytes plus its special tokens plus ``num_merges``. Every
fact about a role that more than one module needs lives in its :class:`Role` entry: the
argument names its signature must take, which case field holds its input, what an author adds
to give it one, which other role a student's version of it calls, and how an audit gap is
closed. The grading stage keys its own per-role pieces (judges, properties, messages) by the
same names, so adding a role is one entry here plus its checks and its mistakes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Role:
    name: str
    arguments: tuple[str, ...]
    serves: Callable[[Any], bool]  # does this case hold an input for the role?
    case_field: str  # the case field that holds the role's input, for messages
    how_to_serve: str  # what an author adds to a case so it serves the role
    audit_advice: str  # what case input shows a mistake of this role
    depends_on: frozenset[str] = frozenset()  # roles a student's version may call
    family: str = "bpe"  # the algorithm: "bpe", "wordpiece" or "byte" (one per exercise)


ROLE_TABLE: dict[str, Role] = {
    role.name: role
    for role in (
        Role(
            "train", ("corpus", "num_merges"), lambda case: True, "corpus",
            "add a case", "a case whose corpus shows it",
        ),
        Role(
            "encode", ("word", "merges"), lambda case: bool(case.encode), "encode",
            "add encode: words to a case", "an encode word (in a case) that shows it",
        ),
        Role(
            "sequence_lengths", ("sentence", "merges"), lambda case: case.sentence is not None,
            "sentence", "add a sentence: to a case", "a case sentence that shows it",
            depends_on=frozenset({"encode"}),
        ),
        Role(
            "train_wordpiece", ("corpus", "num_merges"), lambda case: True, "corpus",
            "add a case", "a case whose corpus shows it", family="wordpiece",
        ),
        Role(
            "first_divergence", ("corpus", "num_merges"), lambda case: True, "corpus",
            "add a case", "a case whose corpus shows it",
            depends_on=frozenset({"train_wordpiece"}), family="wordpiece",
        ),
        Role(
            "train_byte_bpe", ("text", "vocab_size", "special_tokens"), lambda case: True,
            "corpus", "add a case", "a case whose text shows it", family="byte",
        ),
        Role(
            "encode_byte_bpe", ("text", "vocab", "merges", "special_tokens"),
            lambda case: bool(case.encode), "encode", "add encode: texts to a case",
            "an encode text (in a case) that shows it", family="byte",
        ),
        Role(
            "decode_byte_bpe", ("ids", "vocab"), lambda case: bool(case.encode), "encode",
            "add encode: texts to a case", "an encode text (in a case) that shows it",
            family="byte",
        ),
    )
}

ROLES: tuple[str, ...] = tuple(ROLE_TABLE)


def role(name: str) -> Role:
    return ROLE_TABLE[name]


def family_of(roles: object) -> str:
    """The algorithm family of an exercise's roles (BPE when it names none)."""
    for name in roles:  # type: ignore[attr-defined]
        return ROLE_TABLE[name].family
    return "bpe"
