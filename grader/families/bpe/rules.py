"""The semantic rules of a character-BPE spec: corpus and merge forms, and what a case may hold.

A corpus must be in the exercise's corpus form, expected merges in its merge form (each
merge written with its token must join to it), expected lengths need a sentence, and expected
merges need a train function to compare them with. WordPiece and byte-level exercises use
these rules for their cases too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Optional

import yaml

from grader.families.api import Exercise, Loc, describe_spec_value, quote_hint

TRAIN = "train"


def spec_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    for index, case in enumerate(exercise.cases):
        yield from case_problems(exercise, index, case)


def case_problems(exercise: Exercise, index: int, case: Any) -> Iterator[tuple[Loc, str]]:
    loc: Loc = ("cases", index)
    yield from corpus_problems(loc + ("corpus",), case.corpus, exercise.conventions.corpus_form)
    if case.merges is not None:
        yield from merges_problems(loc + ("merges",), case.merges, exercise.conventions.merge_form)
    if case.lengths is not None and case.sentence is None:
        yield loc + ("lengths",), "expected lengths need a sentence: to measure"
    if case.merges is not None and TRAIN not in exercise.roles():
        yield loc + ("merges",), (
            "expected merges are BPE merges for a train function, and this exercise has none; "
            "leave them out (the reference computes every expected value)"
        )


def corpus_problems(loc: Loc, corpus: Any, form: str) -> Iterator[tuple[Loc, str]]:
    if form == "texts":
        if not isinstance(corpus, list):
            yield loc, (
                f"corpus_form is texts, so the corpus must be a list of strings, got "
                f"{describe_spec_value(corpus)}"
            )
            return
        for index, text in enumerate(corpus):
            if not isinstance(text, str):
                yield loc + (index,), f"must be a string, got {describe_spec_value(text)}{quote_hint('string_type', text)}"
        return
    if not isinstance(corpus, dict):
        yield loc, (
            f"corpus_form is word-counts, so the corpus must be a mapping word: count, got "
            f"{describe_spec_value(corpus)}"
        )
        return
    for word, count in corpus.items():
        if not isinstance(word, str):
            yield loc + (word,), (
                f"word {word!r} must be a string{quote_hint('string_type', word)}"
            )
        elif not word or any(ch.isspace() for ch in word):
            yield loc + (word,), f"word {word!r} must be non-empty and contain no whitespace"
        if isinstance(count, bool) or not isinstance(count, int) or count <= 0:
            yield loc + (word,), f"count must be a positive integer, got {describe_spec_value(count)}"


def merges_problems(loc: Loc, merges: Any, form: str) -> Iterator[tuple[Loc, str]]:
    example = "[e, s]" if form == "pairs" else "[[e, s], es]"
    if not isinstance(merges, list):
        yield loc, f"must be a list of merges like {example}, got {describe_spec_value(merges)}"
        return
    for index, item in enumerate(merges):
        problem = _merge_item_problem(item, form)
        if problem:
            yield loc + (index,), f"{problem}; merge_form is {form}, so write each merge as {example}"


def _merge_item_problem(item: Any, form: str) -> Optional[str]:
    if form == "pairs":
        return None if _is_pair(item) else f"{_yaml_text(item)} is not a pair of two strings"
    if not (isinstance(item, list) and len(item) == 2 and _is_pair(item[0]) and isinstance(item[1], str)):
        return f"{_yaml_text(item)} is not a pair with its token"
    if item[0][0] + item[0][1] != item[1]:
        return f"token {item[1]!r} is not the pair joined ({item[0][0] + item[0][1]!r})"
    return None


def _is_pair(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and all(isinstance(p, str) for p in item)


def _yaml_text(value: Any) -> str:
    return yaml.safe_dump(value, default_flow_style=True, width=1000).strip().removesuffix("...").strip()


def placeholder_case(data: dict) -> dict[str, Any]:
    """A valid stand-in for a case with shape errors, so the rules can still judge the rest of
    the spec in the same round (``grader.spec.loading``)."""
    conventions = data.get("conventions") if isinstance(data.get("conventions"), dict) else {}
    empty: Any = {} if conventions.get("corpus_form") == "word-counts" else []
    return {"visibility": "hidden", "corpus": empty, "num_merges": 0}
