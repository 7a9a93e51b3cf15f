"""Splitting the end-of-word marker into its characters is a mistake only when the marker has
more than one: with a one-character marker (``_``) it is the reference itself, so the audit
does not expect a check to catch it, while every other marker mistake still applies."""

from __future__ import annotations

from grader.families.bpe.students import applicable_mistakes
from grader.spec import load_exercise

SPLITS = {"marker-split", "encode-marker-split"}


def with_marker(marker):
    exercise = load_exercise("bpe-train-encode")
    return exercise.model_copy(update={"conventions": exercise.conventions.model_copy(
        update={"end_of_word": marker})})


def test_marker_split_applies_only_to_a_marker_of_several_characters():
    long = {m.id for m in applicable_mistakes(with_marker("</w>"))}
    short = {m.id for m in applicable_mistakes(with_marker("_"))}
    assert SPLITS <= long
    assert not SPLITS & short
    assert long - short == SPLITS  # the other marker mistakes still apply to "_"
