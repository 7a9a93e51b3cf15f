"""The Unigram roles: Viterbi segmentation, log-likelihood, one EM step, and pruning."""

from __future__ import annotations

from typing import Any

from grader.families.unigram import properties, shapes, stub
from grader.families.unigram.expected import ARGUMENTS, EM_STEP, LIKELIHOOD, PRUNE, SEGMENT
from grader.families.unigram.judges import RECORDS, items, serves
from grader.families.api import Role

CHECKS = frozenset({"cases", "differential", "properties"})
SHAPES = {SEGMENT: shapes.pieces_list, LIKELIHOOD: shapes.number, EM_STEP: shapes.scores,
          PRUNE: shapes.scores}
LAWS = {SEGMENT: properties.segment_properties, LIKELIHOOD: properties.likelihood_properties,
        EM_STEP: properties.em_properties, PRUNE: properties.prune_properties}
FIELDS = {SEGMENT: "text", LIKELIHOOD: "text", EM_STEP: "corpus", PRUNE: "keep"}
ADVICE = {
    SEGMENT: "a case whose best segmentation does not start with the longest piece",
    LIKELIHOOD: "a case with several segmentations, and a long text",
    EM_STEP: "a case whose corpus has more than one segmentation",
    PRUNE: "a case where a single character would cost less than a longer piece",
}


def send(exercise: Any, args: tuple) -> list:
    """The arguments as the student's function takes them (fresh copies of the containers)."""
    return [dict(arg) if isinstance(arg, dict) else list(arg) if isinstance(arg, list) else arg
            for arg in args]


ROLES = tuple(
    Role(
        name=role,
        arguments=ARGUMENTS[role],
        checks=CHECKS,
        send=send,
        shape=SHAPES[role],
        case_items=items(role),
        stub_examples=stub.examples(role),
        serves=serves(role),
        case_field=FIELDS[role],
        how_to_serve=f"add a case with a {FIELDS[role]}",
        audit_advice=ADVICE[role],
        generated=RECORDS[role],
        properties=LAWS[role],
    )
    for role in (SEGMENT, LIKELIHOOD, EM_STEP, PRUNE)
)
