"""Commands for instructors and students starting out: ``grade list``, ``show``, ``stub``,
``check``, ``new`` and ``schema``. Each parses options and calls :mod:`grader.spec`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import click

from grader.commands.common import (
    INPUT_ERROR,
    VERDICT_NO,
    InputError,
    exercises_dir_option,
    load,
    with_exit_codes,
)
from grader.commands.progress import Progress


@click.command("list", help=with_exit_codes(
    "List the exercises available, with their milestones and points.\n\n"
    "Course folders given with --exercises-dir or GRADE_EXERCISES_PATH are listed too."))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text for people, json for scripts.")
@exercises_dir_option
def list_exercises(fmt: str) -> None:
    from grader.spec import SpecError, available_exercises, display_path

    try:
        exercises = available_exercises()
    except SpecError as error:
        raise InputError(f"an exercise on the search path is broken:\n{error}") from None
    if fmt == "json":
        click.echo(json.dumps([
            {"id": e.id, "title": e.title, "points": e.total_points,
             "file": display_path(e.source) if e.source else None,
             "conventions": e.conventions.model_dump(exclude={"tie_example"}),
             "kind": e.kind,
             "milestones": [{"id": m.id, "title": m.title, "points": m.points,
                             "function": e.function(m.function).name if m.function else None,
                             "questions": list(m.questions)} for m in e.milestones]}
            for e in exercises
        ], indent=2, ensure_ascii=False))
        return
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


@click.command("show", help=with_exit_codes(
    "Print the YAML spec of EXERCISE (an id from `grade list`, or a spec file), to read or to "
    "start a new exercise from (see also `grade new --from`)."))
@click.argument("exercise")
@exercises_dir_option
def show(exercise: str) -> None:
    spec = load(exercise)
    assert spec.source is not None
    click.echo(spec.source.read_text(encoding="utf-8-sig"), nl=False)


@click.command("stub", help=with_exit_codes(
    "Render the student stub of EXERCISE (an id from `grade list`, or a spec file)."))
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
                   "else a practice value everyone shares).")
@exercises_dir_option
def stub(exercise: str, output: Optional[Path], force: bool, student: Optional[str],
         seed_secret: Optional[str]) -> None:
    from grader.spec.prose import prose_problems
    from grader.spec.stubs import StubExists, render_stub, write_stub

    spec = load(exercise)
    if spec.kind == "answers":
        _answer_sheet(spec, output, force, student, seed_secret)
        return
    for loc, message in prose_problems(spec):
        click.echo(f"warning: {spec.problem(loc, message)} (run grade check)", err=True)
    if output is None:
        click.echo(render_stub(spec), nl=False)
        return
    try:
        write_stub(spec, output, force=force)
    except StubExists as error:
        raise InputError(str(error)) from None
    except OSError as error:
        raise InputError(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"wrote {output} (exercise {spec.id})", err=True)


def _answer_sheet(spec, output: Optional[Path], force: bool, student: Optional[str],
                  secret: Optional[str]) -> None:
    from grader.mistakes.hand_answers import diagnostic_variant
    from grader.spec.answer_sheet import render_answer_sheet
    from grader.spec.variants import VariantError, course_secret

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
        raise InputError(f"{output} already exists; pass --force to overwrite it")
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"wrote {output} (exercise {spec.id}, student {student})", err=True)


@click.command("check", help=with_exit_codes(
    "Validate each EXERCISE (an id, a spec file, or a folder of specs) and verify its expected "
    "values against the reference.\n\n"
    "Reports every problem at once as file:line: field: message, and warns when no public "
    "case tells the declared tie rule from another. Exits 3 when a spec has problems."))
@click.argument("exercises", metavar="EXERCISE...", nargs=-1, required=True)
@exercises_dir_option
def check(exercises: tuple[str, ...]) -> None:
    from grader.spec.check import check_spec, iter_report_lines
    from grader.spec.loading import duplicate_ids, spec_files

    targets: list[str] = []
    for name in exercises:
        folder = Path(name)
        if folder.is_dir():
            found = spec_files(folder)
            if not found:
                raise InputError(f"{name} is a folder with no .yaml spec in it")
            for duplicate in duplicate_ids(found):
                click.echo(f"warning: {duplicate}", err=True)
            targets += [str(path) for path in found]
        else:
            targets.append(name)
    worst = 0
    for target in targets:
        with Progress(f"checking {target}"):
            report = check_spec(target)
        if report.not_found:
            click.echo(f"grade check: {report.problems[0]}", err=True)
            worst = max(worst, INPUT_ERROR)
            continue
        for line in iter_report_lines(report):
            click.echo(line)
        if not report.ok:
            worst = max(worst, VERDICT_NO)
    if worst:
        sys.exit(worst)


@click.command("new", help=with_exit_codes(
    "Write a new exercise spec with id ID: rule-consistent text, and generated cases on which "
    "the four tie rules learn four different merge lists. It passes `grade check` and "
    "`grade audit` as written; edit the texts and cases from there."))
@click.argument("exercise_id", metavar="ID")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the spec here (e.g. course/ID.yaml); default: standard output.")
@click.option("--tie-break", type=click.Choice(["lexicographic", "concatenated", "first-seen",
                                                "reverse-lexicographic"]),
              help="Tie rule; default: the --from spec's, else lexicographic.")
@click.option("--corpus-form", type=click.Choice(["texts", "word-counts"]),
              help="Corpus form; default: the --from spec's, else texts.")
@click.option("--from", "base", metavar="EXERCISE",
              help="Start from this exercise (id or spec file): its functions, milestones, "
              "limits and case inputs; every text stating a convention is written anew.")
@click.option("--force", is_flag=True, help="Overwrite the output file if it exists.")
@exercises_dir_option
def new(exercise_id: str, output: Optional[Path], tie_break: Optional[str],
        corpus_form: Optional[str], base: Optional[str], force: bool) -> None:
    from grader.spec.new_spec import NewSpecError, new_spec_text

    base_spec = load(base) if base else None
    try:
        text = new_spec_text(exercise_id, tie_break=tie_break, corpus_form=corpus_form,
                             base=base_spec)
    except NewSpecError as error:
        raise InputError(str(error)) from None
    if output is None:
        click.echo(text, nl=False)
        return
    if output.exists() and not force:
        raise InputError(f"{output} already exists; pass --force to overwrite it")
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"wrote {output}; next: grade check {output} && grade audit {output}", err=True)


@click.command("schema", help=with_exit_codes(
    "Print the exercise spec format as a JSON Schema (every property described), for editor "
    "completion: see the README for VS Code."))
def schema() -> None:
    from grader.spec import json_schema

    click.echo(json.dumps(json_schema(), indent=2, ensure_ascii=False))
