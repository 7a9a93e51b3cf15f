"""Command: ``grade audit``, whether an exercise's checks catch every known mistake."""

from __future__ import annotations

import sys
from typing import Optional

import click

from grader.commands.common import (
    VERDICT_NO,
    exercises_dir_option,
    grader_fault,
    load,
    with_exit_codes,
)
from grader.commands.progress import Progress


@click.command("audit", help=with_exit_codes(
    "Do EXERCISE's checks catch every known mistake? Grades the catalogue's mistaken "
    "students against EXERCISE (an id or a spec file); exits 3 when one slips through."))
@click.argument("exercise_id", metavar="EXERCISE")
@click.option("--mistake", "mistake_ids", multiple=True, metavar="ID",
              help="Audit only this known mistake (repeatable); default: every one.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Report format.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Gradings run at once; default: one per core.")
@click.option("-q", "--quiet", is_flag=True, help="No progress line on standard error.")
@exercises_dir_option
def audit(exercise_id: str, mistake_ids: tuple, fmt: str, jobs: Optional[int], quiet: bool) -> None:
    import json

    from grader.grading.audit import render_text, run_audit
    from grader.spec.hooks import UnknownMistake

    exercise = load(exercise_id)
    try:
        with Progress(f"auditing {exercise.id}", quiet=quiet):
            report = run_audit(exercise, mistake_ids=list(mistake_ids) or None, jobs=jobs)
    except UnknownMistake as error:
        raise click.UsageError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any other failure is the grader's own fault
        grader_fault("audit", "internal error", error)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(report, exercise), nl=False)
    sys.exit(0 if report.ok else VERDICT_NO)
