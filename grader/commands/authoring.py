"""Commands for instructors and students starting out: ``grade list``, ``stub``, ``check``, ``schema``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import click

from grader.spec import (
    ExerciseNotFound,
    SpecError,
    available_exercises,
    json_schema,
    load_exercise,
)
from grader.spec.check import check_spec, iter_report_lines
from grader.spec.answer_sheet import render_answer_sheet
from grader.spec.stubs import StubExists, render_stub, write_stub
from grader.mistakes.hand_answers import diagnostic_variant
from grader.spec.variants import DEFAULT_SECRET, VariantError, course_secret


def _load(exercise_ref: str):
    try:
        return load_exercise(exercise_ref)
    except ExerciseNotFound as error:
        raise click.BadParameter(str(error), param_hint="EXERCISE") from None
    except SpecError as error:
        raise click.ClickException(str(error)) from None


@click.command("list")
def list_exercises() -> None:
    """List the exercises available, with their milestones and points."""
    try:
        exercises = available_exercises()
    except SpecError as error:
        raise click.ClickException(f"a shipped exercise is broken:\n{error}") from None
    if not exercises:
        click.echo("No exercises found.")
        return
    for exercise in exercises:
        click.echo(f"{exercise.id}  ({exercise.total_points:g} points)  {exercise.title}")
        for milestone in exercise.milestones:
            function = (exercise.function(milestone.function).name if milestone.function
                        else "answers file")
            click.echo(
                f"    {milestone.id:<18} {milestone.points:>5g} pts  {function:<18} {milestone.title}"
            )


@click.command("stub")
@click.argument("exercise")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
    help="Write the stub to this file instead of standard output.",
)
@click.option("--force", is_flag=True, help="Overwrite the output file if it exists.")
@click.option("--student", metavar="ID",
              help="Answers exercises: the student whose variant (corpus and words) to render.")
@click.option("--seed-secret", metavar="SECRET", envvar="GRADE_SEED_SECRET",
              help="The course secret variants are drawn with (default: env GRADE_SEED_SECRET, "
                   f"else the practice value {DEFAULT_SECRET!r}).")
def stub(exercise: str, output: Optional[Path], force: bool, student: Optional[str],
         seed_secret: Optional[str]) -> None:
    """Render the student stub of EXERCISE (an id from `grade list`, or a spec file)."""
    spec = _load(exercise)
    if spec.kind == "answers":
        _answer_sheet(spec, output, force, student, seed_secret)
        return
    if output is None:
        click.echo(render_stub(spec), nl=False)
        return
    try:
        write_stub(spec, output, force=force)
    except StubExists as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:
        raise click.ClickException(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"wrote {output} (exercise {spec.id})", err=True)


def _answer_sheet(spec, output: Optional[Path], force: bool, student: Optional[str],
                  secret: Optional[str]) -> None:
    if not student:
        raise click.UsageError(f"{spec.id} gives each student their own corpus: pass --student ID")
    try:
        text = render_answer_sheet(spec, diagnostic_variant(spec, student, course_secret(secret)))
    except VariantError as error:
        raise click.BadParameter(str(error), param_hint="--student") from None
    if output is None:
        click.echo(text, nl=False)
        return
    if output.exists() and not force:
        raise click.ClickException(f"{output} already exists; pass --force to overwrite it")
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise click.ClickException(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"wrote {output} (exercise {spec.id}, student {student})", err=True)


@click.command("check")
@click.argument("exercise")
def check(exercise: str) -> None:
    """Validate EXERCISE (an id or a spec file) and verify its expected values.

    Exits 0 when the spec is clean and 1 when it has problems.
    """
    report = check_spec(exercise)
    for line in iter_report_lines(report):
        click.echo(line)
    if not report.ok:
        raise SystemExit(1)


@click.command("schema")
def schema() -> None:
    """Print the exercise spec format as a JSON Schema."""
    click.echo(json.dumps(json_schema(), indent=2, ensure_ascii=False))
