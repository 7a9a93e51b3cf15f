"""Rendering a student's answers file for an answers exercise from ``answers.yaml.j2`` (here).

The file is the student's stub: YAML whose comments give the instructions, the conventions and
the student's own corpus and words (their variant, and which of their own it is), and whose keys are the questions with
empty answers to fill in. It carries the ``# exercise: ID`` header the grader reads and the
student id the grader recomputes the variant from. Nothing in it reveals an answer.
"""

from __future__ import annotations

from pathlib import Path

from grader.families.api import Exercise, jinja_environment, yaml_quoted
from grader.families.hand.variants import Variant
from reference.tie_breaks import DESCRIPTIONS

TEMPLATE = "answers.yaml.j2"


def render_answer_sheet(exercise: Exercise, variant: Variant, check: str = "") -> str:
    """The answers file of the student whose variant is ``variant``; ``check`` is the keyed
    hash that tells the grader which of the student's variants it is
    (:func:`~grader.families.hand.assignment.variant_check`)."""
    environment = jinja_environment(trim_blocks=True, folder=Path(__file__).resolve().parent)
    environment.filters["quoted"] = yaml_quoted
    conventions = exercise.conventions
    return environment.get_template(TEMPLATE).render(
        exercise=exercise,
        variant=variant,
        check=check,
        marker=conventions.end_of_word,
        rule=conventions.tie_break,
        rule_text=DESCRIPTIONS[conventions.tie_break],
        milestones=exercise.milestones,
    )
