"""Command: ``grade submit``, the grading of one submission.

``submit`` only parses options, asks :mod:`grader.grading.engine` for the grading and
:mod:`grader.report` for the document, and writes it. Exit codes are those of
:mod:`grader.commands.common`: a submission that was graded exits 0 whatever its score, also
when it does not load (it scores 0 with the reason), unless ``--fail-under`` is given.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from grader.commands.common import (
    GRADER_FAULT_ADVICE,
    VERDICT_NO,
    color_option,
    exercises_dir_option,
    fail,
    grader_fault,
    paused_collector,
    refuse_special_file,
    say,
    use_color,
    with_exit_codes,
)
from grader.commands.progress import Progress

FORMATS = ("text", "json", "gradescope", "prairielearn", "classroom", "junit", "markdown", "html")
"""``grader.report.FORMATS``, repeated so ``--help`` needs no report import (a test checks)."""


def _submitter(student: Optional[str], no_student: Optional[str]) -> object:
    """Who handed the file in, for the engine: the id given, the reason a platform names no
    one, or None (no platform: the file's own student: line is taken)."""
    if no_student is None:
        return student
    from grader.spec.hooks import NoSubmitter

    return NoSubmitter(no_student.strip()[:300] or "the platform names no one who handed it in")


def _threshold(value: Optional[str], maximum: float) -> Optional[float]:
    """``--fail-under`` in points: ``80`` is 80 points, ``80%`` is 80 % of the total."""
    if value is None:
        return None
    text = value.strip()
    try:
        number = float(text.rstrip("%"))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a number of points or a percentage such "
                                 "as 80%", param_hint="--fail-under") from None
    return number / 100 * maximum if text.endswith("%") else number


@click.command("submit", help=with_exit_codes(
    "Grade SUBMISSION (a student's .py file, or a Jupyter .ipynb notebook) and print "
    "per-milestone feedback.\n\n"
    "A submission that was graded exits 0 whatever its score, also when it does not load "
    "(it scores 0 with the reason); use --fail-under for CI."))
@click.argument("submission", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--exercise", "exercise_id", metavar="ID|PATH",
              help="Exercise id or spec file; default: the submission's '# exercise: ID' line.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Report format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the report to this file instead of standard output.")
@click.option("--strict-sandbox", is_flag=True,
              help="Refuse to grade when an isolation layer this host should have is missing.")
@click.option("--fail-under", metavar="SCORE",
              help="Exit 3 when the score is below SCORE points (or SCORE% of the total).")
@click.option("-q", "--quiet", is_flag=True, help="No progress line on standard error.")
@click.option("--seed-secret", metavar="TEXT", default=None,
              help="Secret that picks the generated inputs and the timed corpus; default: "
                   "$GRADE_SEED_SECRET, the file $GRADE_SEED_SECRET_FILE, else a per-user "
                   "secret in the config directory. Pin it to reproduce a report.")
@click.option("--student", "submitter", metavar="ID", default=None,
              help="Who handed the file in, as your platform knows them: an answers file is "
                   "graded on that student's corpus, and a student: line naming anyone else "
                   "is reported. Without it (and without --no-student) the file's own "
                   "student: line is taken, as for practice on your own machine.")
@click.option("--no-student", "no_submitter", metavar="REASON", default=None,
              help="Handed in through a platform that names no one student, for REASON "
                   "(a clause the report quotes, e.g. \"Gradescope lists 2 submitters for it\"): "
                   "an answers file then earns no credit, whatever its student: line says.")
@click.option("--verbose", is_flag=True,
              help="Text format: list every check, passed ones included.")
@click.option("--failures-only", is_flag=True,
              help="Text format: leave passed checks out entirely.")
@color_option
@exercises_dir_option
def submit(
    submission: Path, exercise_id: Optional[str], fmt: str, output: Optional[Path],
    strict_sandbox: bool, fail_under: Optional[str], quiet: bool, color: Optional[bool],
    seed_secret: Optional[str], submitter: Optional[str], no_submitter: Optional[str],
    verbose: bool, failures_only: bool,
) -> None:
    refuse_special_file(submission, "SUBMISSION", "the student's .py or .ipynb file")
    if submitter is not None and no_submitter is not None:
        raise click.UsageError("give --student or --no-student, not both")
    with paused_collector():  # the grader's modules load without the collector scanning them
        from grader.sandbox.layers import start_probe

        start_probe()  # finds this host's isolation layers on another core while the grader loads
        from grader.grading.engine import (
            GradingSetupError,
            grade_submission,
            resolve_exercise,
        )
        from grader.grading.submission_file import handed_in, header_mismatch
        from grader.grading.wall_clock import command_started

        if output is not None and not output.parent.is_dir():
            raise click.BadParameter(f"the directory {output.parent} does not exist", param_hint="-o")
        handed = handed_in(submission)  # the one read of the file: every step below uses it
        try:
            exercise = resolve_exercise(handed, exercise_id)
        except GradingSetupError as error:
            raise click.UsageError(str(error)) from None
        threshold = _threshold(fail_under, exercise.total_points)
        if exercise_id is not None:
            mismatch = header_mismatch(handed, exercise.id)
            if mismatch:
                say(f"warning: {mismatch}", err=True)
        try:
            from grader.report import HUMAN_FORMATS, RenderFault, render
            from grader.sandbox import SandboxUnavailable, layers_notice
        except Exception as error:  # noqa: BLE001 - a broken installation is the grader's fault
            grader_fault("submit", "the grader is not installed correctly", error)
    colored = fmt == "text" and output is None and use_color(color)
    started = command_started(click.get_current_context().find_root().command)
    try:
        with Progress(f"grading {submission.name}", quiet=quiet) as progress:
            report = grade_submission(handed, exercise, strict_sandbox=strict_sandbox,
                                      seed_secret=seed_secret,
                                      submitter=_submitter(submitter, no_submitter),
                                      on_check=progress.step, started=started)
        options = {"hidden_visibility": exercise.feedback.hidden_visibility}
        document = render(report, fmt, color=colored, exercise_options=options, verbose=verbose,
                          failures_only=failures_only)
    except SandboxUnavailable as error:
        fail("submit", str(error))
    except GradingSetupError as error:
        raise click.UsageError(str(error)) from None
    except RenderFault as fault:
        # The fault is the grader's, but a valid document of the asked format still says so.
        _write(fault.document, output, colored)
        fail("submit", f"could not write the {fmt} report of {submission.name}: {fault.reason}",
             GRADER_FAULT_ADVICE)
    except Exception as error:  # noqa: BLE001 - any other failure is the grader's own fault
        grader_fault("submit", f"internal error while grading {submission.name}", error)
    notice = layers_notice(report.sandbox_layers) if report.sandbox_layers else None  # none: no code ran
    if notice and (fmt not in HUMAN_FORMATS or output is not None):
        click.echo(notice, err=True)
    _write(document, output, colored)
    if output is not None:
        click.echo(f"report written to {output}", err=True)
    if threshold is not None and report.score < threshold:
        click.echo(f"grade submit: score {report.score:g}/{report.max_score:g} is below "
                   f"--fail-under {fail_under}", err=True)
        sys.exit(VERDICT_NO)


def _write(document: str, output: Optional[Path], colored: bool) -> None:
    if output is None:
        click.echo(document, nl=False, color=colored)
        return
    try:
        output.write_text(document, encoding="utf-8")
    except OSError as error:
        raise click.BadParameter(f"cannot write {output}: {error.strerror}", param_hint="-o")
