"""The semantic rules of a byte-level spec: BPE's case rules, special tokens, the timed text (a
shipped one must exist)."""

from __future__ import annotations

from collections.abc import Iterator

from grader.families.bpe import rules as bpe_rules
from grader.families.api import Exercise, Loc, data_dir

TRAIN = "train_byte_bpe"


def spec_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    yield from bpe_rules.spec_problems(exercise)
    for index, case in enumerate(exercise.cases):
        for token_index, token in enumerate(case.special_tokens):
            if not token:
                yield ("cases", index, "special_tokens", token_index), "a special token cannot be empty"
    if any(m.function == TRAIN and m.check("efficiency") is not None for m in exercise.milestones):
        yield from _text_file_problems(exercise)


def _text_file_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    """A byte-level efficiency check trains on a generated text, or on one shipped in
    exercises/data/ when its spec names one."""
    name = exercise.efficiency.text_file
    if not name:
        return
    if "/" in name or "\\" in name or not (data_dir("exercises") / "data" / name).is_file():
        yield ("efficiency", "text_file"), f"{name!r} is not a file in exercises/data/"
