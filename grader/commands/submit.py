"""Commands: ``grade submit`` (grade one submission) and ``grade audit``.

``submit`` only parses options, asks :mod:`grader.grading.engine` for the grading and
:mod:`grader.report` for the document, and writes it. Exit status (DESIGN.md §5): 0 when
the submission was graded, whatever its score; 2 for usage errors; 1 only for a fault of
the grader itself, reported in one short message rather than a traceback.
"""

import sys
from pathlib import Path
from typing import NoReturn, Optional

import click

from grader.grading.engine import GradingSetupError, grade_submission, resolve_exercise
from grader.report import FORMATS, HUMAN_FORMATS, render
from grader.sandbox import SandboxUnavailable, layers_notice

GRADER_FAULT_ADVICE = (
    "This is a fault of the grader, not of the submission. Please report it to your course "
    "staff (or the bpe-autograder issue tracker) with the command you ran and this message."
)


@click.command("submit")
@click.argument("submission", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--exercise", "exercise_id", metavar="ID",
              help="Exercise id or spec file; default: the submission's '# exercise: ID' line.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this file instead of standard output.")
@click.option("--strict-sandbox", is_flag=True,
              help="Refuse to grade when an isolation layer this host should have is missing.")
@click.option("--verbose", is_flag=True,
              help="Text format: list every check, passed ones included.")
@click.option("--failures-only", is_flag=True,
              help="Text format: leave passed checks out entirely.")
def submit(
    submission: Path, exercise_id: Optional[str], fmt: str, output: Optional[Path],
    strict_sandbox: bool, verbose: bool = False, failures_only: bool = False,
) -> None:
    """Grade SUBMISSION (a student's .py file) and print per-milestone feedback."""
    if output is not None and not output.parent.is_dir():
        raise click.BadParameter(f"the directory {output.parent} does not exist", param_hint="-o")
    try:
        exercise = resolve_exercise(submission, exercise_id)
    except GradingSetupError as error:
        raise click.UsageError(str(error)) from None
    try:
        report = grade_submission(submission, exercise, strict_sandbox=strict_sandbox)
        color = fmt == "text" and output is None and sys.stdout.isatty()
        options = {"hidden_visibility": exercise.feedback.hidden_visibility}
        document = render(report, fmt, color=color, exercise_options=options, verbose=verbose,
                          failures_only=failures_only)
    except SandboxUnavailable as error:
        _fail(str(error))
    except GradingSetupError as error:
        raise click.UsageError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any other failure is the grader's own fault
        _fail(f"internal error while grading {submission.name}: {type(error).__name__}: {error}",
              GRADER_FAULT_ADVICE)
    notice = layers_notice(report.sandbox_layers)
    if notice and (fmt not in HUMAN_FORMATS or output is not None):
        click.echo(notice, err=True)
    if output is None:
        click.echo(document, nl=False)
        return
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as error:
        raise click.BadParameter(f"cannot write {output}: {error.strerror}", param_hint="-o")
    click.echo(f"report written to {output}", err=True)


def _fail(*lines: str) -> NoReturn:
    for line in lines:
        click.echo(f"grade submit: {line}", err=True)
    sys.exit(1)


@click.command("audit")
@click.argument("exercise_id", metavar="EXERCISE")
@click.option("--mistake", "mistake_ids", multiple=True, metavar="ID",
              help="Audit only this known mistake (repeatable); default: every one.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True, help="Report format.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Gradings run at once; default: one per core.")
def audit(exercise_id: str, mistake_ids: tuple, fmt: str, jobs: Optional[int]) -> None:
    """Do EXERCISE's checks catch every known mistake? Exit 1 when one slips through."""
    import json

    from grader.grading.audit import UnknownMistake, render_text, run_audit
    from grader.spec import SpecError, load_exercise

    try:
        exercise = load_exercise(exercise_id)
    except SpecError as error:
        raise click.UsageError(str(error)) from None
    try:
        report = run_audit(exercise, mistake_ids=list(mistake_ids) or None, jobs=jobs)
    except UnknownMistake as error:
        raise click.UsageError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any other failure is the grader's own fault
        click.echo(f"grade audit: internal error: {type(error).__name__}: {error}", err=True)
        click.echo(f"grade audit: {GRADER_FAULT_ADVICE}", err=True)
        sys.exit(1)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(render_text(report, exercise), nl=False)
    sys.exit(0 if report.ok else 1)


