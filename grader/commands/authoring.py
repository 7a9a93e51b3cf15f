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
    grader_fault,
    load,
    student_id_option,
    with_exit_codes,
)
from grader.commands.progress import Progress


@click.command("list", help=with_exit_codes(
    "List the exercises available, with their milestones and points (or, with --families, the "
    "exercise families and the functions each asks students to write).\n\n"
    "Course folders given with --exercises-dir or GRADE_EXERCISES_PATH are listed too, with "
    "the families they define."))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="text for people, json for scripts.")
@click.option("--families", "families", is_flag=True,
              help="List the families (kinds of exercise) and their roles instead.")
@exercises_dir_option
def list_exercises(fmt: str, families: bool) -> None:
    from grader.spec import SpecError, display_path
    from grader.spec.loading import loadable_exercises
    from grader.spec.registry import family_of

    if families:
        _list_families(fmt)
        return
    try:
        exercises, broken = loadable_exercises()
    except SpecError as error:
        raise InputError(str(error)) from None
    try:
        _list(exercises, fmt, display_path, family_of)
    finally:
        for error in broken:  # listed last, on standard error, after the good ones
            first = error.problems[0] if error.problems else error
            more = len(error.problems) - 1
            click.echo(f"grade list: not listed: {first}"
                       + (f" (and {more} more problem(s): grade check it)" if more > 0 else
                          " (grade check it)"), err=True)
    if broken:
        sys.exit(INPUT_ERROR)


def _list(exercises, fmt: str, display_path, family_of) -> None:
    if fmt == "json":
        click.echo(json.dumps([
            {"id": e.id, "title": e.title, "points": e.total_points,
             "file": display_path(e.source) if e.source else None,
             "family": e.family,
             "conventions": (e.conventions.model_dump(exclude={"tie_example"})
                             if hasattr(e, "conventions") else None),
             "kind": family_of(e).kind,
             "milestones": [{"id": m.id, "title": m.title, "points": m.points,
                             "function": e.function(m.function).name if m.function else None,
                             "questions": list(getattr(m, "questions", []))}
                            for m in e.milestones]}
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
                        else exercise.student_file)
            click.echo(
                f"    {milestone.id:<18} {milestone.points:>5g} pts  {function:<18} {milestone.title}"
            )


def _list_families(fmt: str) -> None:
    from grader.spec.family import FamilyError
    from grader.spec.registry import family_named, family_names

    rows = []
    for name in family_names():
        try:
            family = family_named(name)
        except FamilyError as error:
            raise InputError(str(error)) from None
        handed_in = getattr(family.submission, "noun", None)
        rows.append({"family": family.name, "summary": family.summary,
                     "hands_in": handed_in,
                     "roles": [{"role": role.name, "arguments": list(role.arguments),
                                "checks": sorted(role.checks)} for role in family.roles],
                     "builds_on": list(family.builds_on)})
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        click.echo(f"{row['family']}  {row['summary']}")
        for role in row["roles"]:
            click.echo(f"    {role['role']:<18} ({', '.join(role['arguments'])}); "
                       f"checks: {', '.join(role['checks'])}")
        if not row["roles"]:
            click.echo(f"    no functions: students hand in {row['hands_in'] or 'a file'}")


@click.command("show", help=with_exit_codes(
    "Print the YAML spec of EXERCISE (an id from `grade list`, or a spec file), to read or to "
    "start a new exercise from (see also `grade new --from`). Hidden cases are left out "
    "unless --hidden is given."))
@click.argument("exercise")
@click.option("--hidden", is_flag=True, help="Print the hidden cases too (instructors).")
@exercises_dir_option
def show(exercise: str, hidden: bool) -> None:
    from grader.spec.student_view import without_hidden_cases

    spec = load(exercise)
    assert spec.source is not None
    text = spec.source.read_text(encoding="utf-8-sig")
    click.echo(text if hidden else without_hidden_cases(text)[0], nl=False)


@click.command("stub", help=with_exit_codes(
    "Render the student stub of EXERCISE (an id from `grade list`, or a spec file)."))
@click.argument("exercise")
@click.option(
    "-o", "--output", type=click.Path(path_type=Path),
    help="Write the stub to this file instead of standard output (with --roster: the folder "
         "to write ID/FILE into for every student).",
)
@click.option("--force", is_flag=True, help="Overwrite the output file if it exists.")
@click.option("--notebook", is_flag=True,
              help="Write a Jupyter notebook (default file: ID.ipynb): the instructions in "
                   "Markdown, a cell per function, its public examples, and a check cell after "
                   "each milestone.")
@click.option("--student", metavar="ID",
              help="Answers exercises: the student whose variant (corpus and words) to render.")
@click.option("--roster", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Answers exercises: render every student's own file, one per id of this "
                   "roster (one id per line, or a .csv file), into the folder -o names.")
@click.option("--id-column", metavar="NAME", default=None,
              help="The column of a .csv roster holding the ids (default: its first column).")
@click.option("--seed-secret", metavar="SECRET", envvar="GRADE_SEED_SECRET",
              help="The course secret variants are drawn with (default: env GRADE_SEED_SECRET, "
                   "the file $GRADE_SEED_SECRET_FILE, else a practice value everyone shares).")
@student_id_option
@exercises_dir_option
def stub(exercise: str, output: Optional[Path], force: bool, notebook: bool,
         student: Optional[str], roster: Optional[Path], id_column: Optional[str],
         seed_secret: Optional[str], student_id: Optional[str]) -> None:
    from grader.spec.registry import family_of
    from grader.spec.stubs import StubExists, render_stub, write_stub

    spec = load(exercise)
    family = family_of(spec)
    if notebook:
        _notebook_stub(spec, family, output, force, student, roster)
        return
    if roster is not None or id_column is not None:
        _roster_stubs(spec, roster, id_column, output, force, student, seed_secret, student_id)
        return
    if output is not None and output.is_dir():
        raise click.BadParameter(f"{output} is a folder: give a file name", param_hint="-o")
    if family.stub is not None:
        _own_stub(spec, family, output, force, student, seed_secret)
        return
    for loc, message in family.prose_problems(spec):
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


def _notebook_stub(spec, family, output: Optional[Path], force: bool, student: Optional[str],
                   roster: Optional[Path]) -> None:
    """The stub as a notebook, written to ID.ipynb unless -o names another file."""
    from grader.spec.notebook_stub import render_notebook_stub

    if family.stub is not None or student is not None or roster is not None:
        raise click.UsageError(f"{spec.id} is handed in as {spec.student_file} only, not as a "
                               f"notebook: render its file without --notebook")
    output = output or Path(f"{spec.id}.ipynb")
    if output.is_dir():
        raise click.BadParameter(f"{output} is a folder: give a file name", param_hint="-o")
    if output.exists() and not force:
        raise InputError(f"{output} already exists; pass --force to overwrite it")
    for loc, message in family.prose_problems(spec):
        click.echo(f"warning: {spec.problem(loc, message)} (run grade check)", err=True)
    try:
        output.write_text(render_notebook_stub(spec), encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write {output}: {error.strerror or error}") from None
    click.echo(f"wrote {output} (exercise {spec.id}; open it in Jupyter)", err=True)


def _own_stub(spec, family, output: Optional[Path], force: bool, student: Optional[str],
              secret: Optional[str]) -> None:
    """The starting file of a family that renders its own (an answers sheet per student)."""
    from grader.spec.stubs import StubNeedsStudent

    try:
        text = family.stub(spec, student, secret)
    except StubNeedsStudent as error:
        raise click.UsageError(str(error)) from None
    except ValueError as error:
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
    who = f", student {student}" if student else ""
    click.echo(f"wrote {output} (exercise {spec.id}{who})", err=True)


def _roster_stubs(spec, roster: Optional[Path], id_column: Optional[str], output: Optional[Path],
                  force: bool, student: Optional[str], secret: Optional[str],
                  student_id: Optional[str] = None) -> None:
    """Every student's own starting file, from a roster (see :mod:`grader.bundles.starters`)."""
    from grader.bundles.common import BundleError, per_student
    from grader.bundles.starters import read_roster, render_starters
    from grader.grading.secrets import SeedSecretError, environment_secret
    from grader.grading.student_ids import VariantError, student_id_setting

    if roster is None:
        raise click.UsageError("--id-column names a column of the --roster file: give --roster")
    if student is not None:
        raise click.UsageError("give either --student (one file) or --roster (every student's)")
    if output is None:
        raise click.UsageError("--roster writes one file per student: give the folder with -o")
    if not per_student(spec):
        raise click.UsageError(f"{spec.id} gives every student the same stub: render it without "
                               "--roster")
    try:
        secret = secret or environment_secret()
        students = read_roster(roster, id_column, student_id_setting(student_id))
        if secret is None:
            click.echo("warning: no course secret (--seed-secret, $GRADE_SEED_SECRET or "
                       "$GRADE_SEED_SECRET_FILE): the files use the practice secret everyone "
                       "shares", err=True)
        written = render_starters(spec, students, secret, output, force=force)
    except (BundleError, SeedSecretError, VariantError) as error:
        raise InputError(str(error)) from None
    click.echo(f"wrote {len(written.students)} files into {output} ({output}/ID/"
               f"{spec.student_file}, exercise {spec.id})", err=True)


@click.command("check", help=with_exit_codes(
    "Validate each EXERCISE (an id, a spec file, or a folder of specs) and verify its expected "
    "values against the reference.\n\n"
    "Reports every problem at once as file:line: field: message, and warns when no public "
    "case tells the declared tie rule from another. Exits 3 when a spec has problems, 2 when a "
    "file is not a spec at all (unreadable, not UTF-8, not YAML, empty)."))
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
        if report.family_unusable or report.unreadable:  # not a spec with problems
            worst = max(worst, INPUT_ERROR)
        elif not report.ok:
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
    from grader.spec.registry import default_family, family_named, family_of
    from grader.spec.problems import NewSpecError

    base_spec = load(base) if base else None
    family = family_of(base_spec) if base_spec is not None else family_named(default_family())
    if family.new_spec is None:
        raise InputError(f"grade new cannot start from {base_spec.id if base_spec else base}: the "
                         f"{family.name} family writes no new specs; copy its YAML (grade show) "
                         "and edit it instead")
    try:
        text = family.new_spec(exercise_id, tie_break=tie_break, corpus_form=corpus_form,
                               base=base_spec)
    except NewSpecError as error:
        raise InputError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any other failure is the grader's own fault
        grader_fault("new", "internal error while writing the spec", error)
    if output is None:
        click.echo(text, nl=False)
        return
    if output.exists() and not force:
        raise InputError(f"{output} already exists; pass --force to overwrite it")
    try:
        output.parent.mkdir(parents=True, exist_ok=True)  # course/ID.yaml in a new course folder
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
