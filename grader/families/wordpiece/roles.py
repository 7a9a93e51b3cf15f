"""WordPiece's roles: train by score, and the first step where WordPiece parts from BPE."""

from __future__ import annotations

from grader.families.bpe.roles import send_corpus
from grader.families.bpe.shapes import merges_shape
from grader.families.wordpiece import differential, judges, stub
from grader.families.wordpiece.shapes import divergence
from grader.families.wordpiece.spec import ROLES as NAMES
from grader.families.api import Role

TRAIN, DIVERGENCE = NAMES
CHECKS = frozenset({"cases", "differential"})

ROLES = (
    Role(
        name=TRAIN,
        arguments=("corpus", "num_merges"),
        checks=CHECKS,
        send=send_corpus,
        shape=merges_shape,
        case_items=judges.train_items,
        stub_examples=stub.train_examples,
        generated=differential.TRAIN_INPUTS,
    ),
    Role(
        name=DIVERGENCE,
        arguments=("corpus", "num_merges"),
        checks=CHECKS,
        send=send_corpus,
        shape=lambda exercise, value, name: divergence(value, name),
        case_items=judges.divergence_items,
        stub_examples=stub.divergence_examples,
        depends_on=frozenset({TRAIN}),
        generated=differential.DIVERGENCE_INPUTS,
    ),
)
