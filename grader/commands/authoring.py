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
from grader.spec.stubs import StubExists, render_stub, write_stub


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
            function = exercise.function(milestone.function).name
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
def stub(exercise: str, output: Optional[Path], force: bool) -> None:
    """Render the student stub of EXERCISE (an id from `grade list`, or a spec file)."""
    spec = _load(exercise)
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
