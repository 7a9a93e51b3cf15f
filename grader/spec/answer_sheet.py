"""Rendering a student's answers file for an answers exercise from ``templates/answers.yaml.j2``.

The file is the student's stub: YAML whose comments give the instructions, the conventions and
the student's own corpus and words (their variant), and whose keys are the questions with
empty answers to fill in. It carries the ``# exercise: ID`` header the grader reads and the
student id the grader recomputes the variant from. Nothing in it reveals an answer.
"""

from __future__ import annotations

import json

import jinja2

from grader.package_data import templates_path
from grader.spec.models import Exercise
from grader.spec.variants import Variant
from reference.tie_breaks import DESCRIPTIONS

TEMPLATE = "answers.yaml.j2"


def quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar (JSON strings are valid YAML)."""
    return json.dumps(text, ensure_ascii=False)


def render_answer_sheet(exercise: Exercise, variant: Variant) -> str:
    """The answers file of the student whose variant is ``variant``."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_path())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    environment.filters["quoted"] = quoted
    conventions = exercise.conventions
    return environment.get_template(TEMPLATE).render(
        exercise=exercise,
        variant=variant,
        marker=conventions.end_of_word,
        rule=conventions.tie_break,
        rule_text=DESCRIPTIONS[conventions.tie_break],
        milestones=exercise.milestones,
    )
