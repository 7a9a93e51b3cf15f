"""Character BPE's roles: train merges, encode a word, count a sentence's sequence lengths,
count a vocabulary's pairs, apply one merge to a vocabulary, tabulate the vocabulary-size
trade-off.

Each role says what its function takes (a corpus in the exercise's corpus form; merge lists
sent in its merge form), how its answer's shape is checked, which cases hold an input for it,
how each case is judged, what its generated inputs are, which laws it obeys and, for
training, the timed run.
"""

from __future__ import annotations

from typing import Any

from grader.families.bpe import (
    differential,
    efficiency,
    judges,
    merging,
    pair_counts,
    properties,
    shapes,
    stub,
    tradeoff,
    tradeoff_checks,
)
from grader.families.bpe.evidence import NO_WORK
from grader.families.bpe.expected import to_merge_form
from grader.families.bpe.spec import ROLES as NAMES
from grader.families.api import Exercise, Role

COUNT, MERGE, TRAIN, ENCODE, LENGTHS, TRADEOFF = NAMES
CODE_CHECKS = frozenset({"cases", "differential", "properties"})


def merge_list(exercise: Exercise, merges: Any) -> list[Any]:
    """Bare pairs written in the exercise's merge form, as the student's trainer returns them."""
    return to_merge_form(list(merges), exercise.conventions.merge_form)


def send_corpus(exercise: Exercise, args: tuple) -> list:
    corpus, num_merges = args
    return [corpus, num_merges]


def send_with_merges(exercise: Exercise, args: tuple) -> list:
    text, merges = args
    return [text, merge_list(exercise, merges)]


TRAIN_ROLE = Role(
    name=TRAIN,
    arguments=("corpus", "num_merges"),
    checks=CODE_CHECKS | {"efficiency"},
    send=send_corpus,
    shape=shapes.merges_shape,
    case_items=judges.train_items,
    stub_examples=stub.train_examples,
    generated=differential.TRAIN_INPUTS,
    properties=properties.train_properties,
    timed=efficiency.run,
    depends_on=frozenset({COUNT, MERGE}),
    no_work=NO_WORK[TRAIN],
)

ENCODE_ROLE = Role(
    name=ENCODE,
    arguments=("word", "merges"),
    checks=CODE_CHECKS,
    send=send_with_merges,
    shape=lambda exercise, value, name: shapes.tokens(value, name),
    case_items=judges.encode_items,
    stub_examples=stub.encode_examples,
    serves=lambda case: bool(case.encode),
    case_field="encode",
    how_to_serve="add encode: words to a case",
    audit_advice="an encode word (in a case) that shows it",
    generated=differential.ENCODE_INPUTS,
    properties=properties.encode_properties,
    no_work=NO_WORK[ENCODE],
)

LENGTHS_ROLE = Role(
    name=LENGTHS,
    arguments=("sentence", "merges"),
    checks=CODE_CHECKS,
    send=send_with_merges,
    shape=lambda exercise, value, name: shapes.lengths(value, name),
    case_items=judges.lengths_items,
    stub_examples=stub.lengths_examples,
    serves=lambda case: case.sentence is not None,
    case_field="sentence",
    how_to_serve="add a sentence: to a case",
    audit_advice="a case sentence that shows it",
    depends_on=frozenset({ENCODE}),
    generated=differential.LENGTHS_INPUTS,
    properties=properties.lengths_properties,
    no_work=NO_WORK[LENGTHS],
)

COUNT_ROLE = Role(
    name=COUNT,
    arguments=("words",),
    checks=CODE_CHECKS,
    send=pair_counts.send,
    shape=pair_counts.shape,
    case_items=pair_counts.case_items,
    stub_examples=pair_counts.stub_examples,
    generated=pair_counts.GENERATED,
    properties=pair_counts.properties,
    audit_advice="a case whose corpus, at some step, shows it",
    no_work=NO_WORK[COUNT],
)

MERGE_ROLE = Role(
    name=MERGE,
    arguments=("pair", "words"),
    checks=CODE_CHECKS,
    send=merging.send,
    shape=merging.shape,
    case_items=merging.case_items,
    stub_examples=merging.stub_examples,
    generated=merging.GENERATED,
    properties=merging.properties,
    audit_advice="a case whose corpus, at some step, shows it",
    no_work=NO_WORK[MERGE],
)

TRADEOFF_ROLE = Role(
    name=TRADEOFF,
    arguments=("corpus", "sizes", "d_model"),
    checks=CODE_CHECKS,
    send=tradeoff.send,
    shape=tradeoff.shape,
    case_items=tradeoff_checks.case_items,
    stub_examples=tradeoff_checks.stub_examples,
    serves=tradeoff_checks.serves,
    case_field="tradeoff",
    how_to_serve="add a tradeoff: (documents, sizes, d_model) to a case",
    audit_advice="a case tradeoff (documents and sizes) that shows it",
    depends_on=frozenset({TRAIN, ENCODE}),
    generated=tradeoff_checks.GENERATED,
    properties=tradeoff_checks.properties,
    no_work=tradeoff.NO_WORK,
)

ROLES = (COUNT_ROLE, MERGE_ROLE, TRAIN_ROLE, ENCODE_ROLE, LENGTHS_ROLE, TRADEOFF_ROLE)
