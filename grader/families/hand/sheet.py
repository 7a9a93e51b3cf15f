"""Rendering a student's answers file for an answers exercise from ``answers.yaml.j2`` (here).

The file is the student's stub: YAML whose comments give the instructions, the conventions and
the student's own corpus and words (their variant), and whose keys are the questions with
empty answers to fill in. It carries the ``# exercise: ID`` header the grader reads and the
student id the grader recomputes the variant from. Nothing in it reveals an answer.
"""

from __future__ import annotations

from pathlib import Path

from grader.families.api import Exercise, jinja_environment, yaml_quoted
from grader.families.hand.variants import Variant
from reference.tie_breaks import DESCRIPTIONS

TEMPLATE = "answers.yaml.j2"


def render_answer_sheet(exercise: Exercise, variant: Variant) -> str:
    """The answers file of the student whose variant is ``variant``."""
    environment = jinja_environment(trim_blocks=True, folder=Path(__file__).resolve().parent)
    environment.filters["quoted"] = yaml_quoted
    conventions = exercise.conventions
    return environment.get_template(TEMPLATE).render(
        exercise=exercise,
        variant=variant,
        marker=conventions.end_of_word,
        rule=conventions.tie_break,
        rule_text=DESCRIPTIONS[conventions.tie_break],
        milestones=exercise.milestones,
    )
