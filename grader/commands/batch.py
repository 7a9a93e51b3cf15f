"""Commands: ``grade batch`` (grade a class into a gradebook) and ``grade batch merge``.

Only parses options and calls :mod:`grader.batch`. Exit status: 0 when the batch ran, whatever
the students' scores and however many entries were unusable (each is a line of the summary);
2 for unusable arguments; 130 when interrupted (everything graded so far is kept); 1 for a
fault of the grader itself.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

import click

from grader.batch.batch import BatchOptions, run_batch
from grader.batch.discovery import DiscoveryError
from grader.batch.gradebook import GradebookError
from grader.batch.merge import merge as merge_gradebooks
from grader.batch.outputs import CSV_FORMATS, OutputSettings
from grader.batch.policy import POLICIES, PolicyError
from grader.batch.sharding import Shard, ShardError
from grader.commands.common import (
    exercises_dir_option,
    grader_fault,
    say,
    student_id_option,
    with_exit_codes,
)
from grader.grading.engine import GradingSetupError

DEFAULT_COMMAND = "grade-folder"


class _BatchGroup(click.Group):
    """``grade batch SUBMISSIONS ...`` grades; ``grade batch merge ...`` merges."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.commands:
            args = [DEFAULT_COMMAND, *args]  # --help too: the grading command's help
        return super().parse_args(ctx, args)


class _TypedAsItsGroup(click.Context):
    """The context of the grading command, named as it is typed: ``grade batch``, so that a
    usage error ends "Try 'grade batch --help'", not with the command's internal name."""

    @property
    def command_path(self) -> str:
        return self.parent.command_path if self.parent is not None else "grade batch"


class _GradeFolder(click.Command):
    """Shows its usage as ``grade batch SUBMISSIONS``, the way it is typed."""

    context_class = _TypedAsItsGroup

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        parent = ctx.parent.command_path if ctx.parent else "grade batch"
        formatter.write_usage(parent, "SUBMISSIONS -o OUT [OPTIONS]")
        formatter.write_usage(parent, "merge SOURCES... -o OUT [OPTIONS]", prefix="       ")


def _similarity(submissions: Path, exercise_id: Optional[str], title: Optional[str]):
    """The comparison ``--similarity`` runs once the class is graded (checked now, so that a
    class is never graded to fail at the end)."""
    from grader.batch.similarity import (
        SimilarityError,
        class_report_leads,
        code_files,
        find_similar,
        write_similarity,
    )
    from grader.grading.engine import resolve_exercise

    if not exercise_id:
        raise click.BadParameter("needs --exercise: the stub it names is left out of the "
                                 "comparison", param_hint="--similarity")
    try:
        exercise = resolve_exercise(Path(submissions), exercise_id)
        code_files(exercise)
        import copydetect  # noqa: F401 - the comparison's library, checked before grading
    except (GradingSetupError, SimilarityError) as error:
        raise click.BadParameter(str(error), param_hint="--similarity") from None
    except ImportError:
        raise click.BadParameter("comparing needs copydetect: pip install "
                                 "'bpe-autograder[similarity]'", param_hint="--similarity") from None

    def compare(folder: Path, out: Path):
        report = find_similar(folder, exercise, graded=out)
        write_similarity(report, out, title or exercise.title)
        return class_report_leads(report)

    return compare


def _default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _output_settings(csv_formats: tuple[str, ...], canvas_assignment: Optional[str],
                     title: Optional[str]) -> OutputSettings:
    return OutputSettings(csv_formats=("plain", *csv_formats), canvas_assignment=canvas_assignment,
                          title=title or "Class report")


@click.group("batch", cls=_BatchGroup, help=with_exit_codes(
    "Grade a whole class into a gradebook, grades.csv and a class report."))
def batch() -> None:
    pass


@batch.command(DEFAULT_COMMAND, cls=_GradeFolder, hidden=True, help=with_exit_codes(
    "Grade a whole class: every submission in SUBMISSIONS, into the folder OUT.\n\n"
    "SUBMISSIONS holds one submission per student: STUDENT.py or STUDENT.ipynb files, one "
    "folder per student, or a Gradescope 'Export Submissions' folder. OUT receives "
    "gradebook.sqlite, grades.csv, reports/STUDENT.html and class-report.html; running again "
    "grades only what changed (the submission, the spec, the grader or the seed secret); "
    "when that changes stored grades, OUT/regrade.csv and the class report's 'What changed' "
    "say who went up or down, by how much, on which milestone and why."),
               epilog="'grade batch merge --help' tells how to combine the outputs of shards.")
@click.argument("submissions", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out", required=True, type=click.Path(path_type=Path),
              help="Output folder (created if needed; an earlier run's gradebook is reused).")
@click.option("--exercise", "exercise_id", metavar="ID|PATH",
              help="Exercise id or spec file; default: each file's '# exercise: ID' line.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="Gradings run at once; default: one per core.")
@click.option("--regrade", is_flag=True, help="Grade every submission again, changed or not.")
@click.option("--shard", metavar="K/N|slurm",
              help="Grade only shard K of N (see 'grade batch merge'); 'slurm': the shard of "
                   "this Slurm job array task.")
@click.option("--csv", "csv_formats", multiple=True, type=click.Choice(["canvas"]),
              help="Also write grades-canvas.csv in Canvas's gradebook import format.")
@click.option("--canvas-assignment", metavar="'NAME (ID)'",
              help="The Canvas assignment column; default: the exercise's title.")
@click.option("--title", help="Title of the class report.")
@click.option("--strict-sandbox", is_flag=True,
              help="Refuse to grade when an isolation layer this host should have is missing.")
@click.option("--progress/--no-progress", default=None,
              help="Show a progress bar; default: only when standard error is a terminal.")
@click.option("--seed-secret", metavar="TEXT", default=None,
              help="Secret that picks the generated inputs (as for grade submit); default: "
                   "$GRADE_SEED_SECRET, the file $GRADE_SEED_SECRET_FILE, else a per-user secret.")
@click.option("--similarity", is_flag=True,
              help="Also rank the pairs of submissions by shared code and rare shared wrong "
                   "answers (as 'grade similarity --graded'), into OUT/similarity.html and a "
                   "section of the class report; needs --exercise.")
@click.option("--policy", type=click.Choice(POLICIES), default=None,
              help="Which grading the exports (grades.csv, Canvas) take: 'latest', "
                   "'keep-best' (the best of the student's files) or 'no-decrease' (an "
                   "exported grade never goes down). Recorded in the gradebook; default: the "
                   "recorded one, else latest.")
@click.option("--dry-run", is_flag=True,
              help="Grade what changed and show the impact (OUT/regrade-dry-run.csv, a "
                   "summary of who goes up or down) without changing the gradebook or the "
                   "exports; the next run without it takes these gradings.")
@student_id_option
@exercises_dir_option
def grade_folder(submissions: Path, out: Path, exercise_id: Optional[str], jobs: Optional[int],
                 regrade: bool, shard: Optional[str], csv_formats: tuple[str, ...],
                 canvas_assignment: Optional[str], title: Optional[str], strict_sandbox: bool,
                 progress: Optional[bool], seed_secret: Optional[str], similarity: bool,
                 policy: Optional[str], dry_run: bool, student_id: Optional[str]) -> None:
    from grader.grading.secrets import SeedSecretError, resolve_secret

    try:
        chosen_shard = Shard.parse(shard) if shard else None
    except ShardError as error:
        raise click.BadParameter(str(error), param_hint="--shard") from None
    if out.exists() and not out.is_dir():
        raise click.BadParameter(f"{out} exists and is not a folder", param_hint="-o")
    try:
        secret = resolve_secret(seed_secret)
    except SeedSecretError as error:
        raise click.BadParameter(str(error), param_hint="--seed-secret") from None
    compare = _similarity(submissions, exercise_id, title) if similarity and not dry_run else None
    options = BatchOptions(
        exercise=exercise_id, jobs=jobs or _default_jobs(), regrade=regrade, shard=chosen_shard,
        grading_options={"strict_sandbox": strict_sandbox, "seed_secret": secret},
        output=_output_settings(csv_formats, canvas_assignment, title), progress=progress,
        similarity=compare, policy=policy, dry_run=dry_run, student_id=student_id or "email",
    )
    try:
        summary = run_batch(submissions, out, options)
    except (DiscoveryError, GradebookError, GradingSetupError, PolicyError) as error:
        raise click.UsageError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - any other failure is the grader's own fault
        grader_fault("batch", "internal error", error)
    for line in summary.lines():
        say(line)
    if compare is not None and not summary.interrupted:
        say(f"wrote {out / 'similarity.html'}")
    if summary.interrupted:
        sys.exit(130)


@batch.command("merge", help=with_exit_codes(
    "Combine the output folders (or gradebooks) SOURCES of 'grade batch --shard' into OUT."))
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("-o", "--output", "out", required=True, type=click.Path(path_type=Path),
              help="Folder for the merged gradebook and outputs (not one of the sources).")
@click.option("--csv", "csv_formats", multiple=True, type=click.Choice(["canvas"]),
              help="Also write grades-canvas.csv in Canvas's gradebook import format.")
@click.option("--canvas-assignment", metavar="'NAME (ID)'",
              help="The Canvas assignment column; default: the exercise's title.")
@click.option("--title", help="Title of the class report.")
def merge(sources: tuple[Path, ...], out: Path, csv_formats: tuple[str, ...],
          canvas_assignment: Optional[str], title: Optional[str]) -> None:
    try:
        summary = merge_gradebooks(list(sources), out,
                                   _output_settings(csv_formats, canvas_assignment, title))
    except GradebookError as error:
        raise click.UsageError(str(error)) from None
    for line in summary.lines():
        say(line)


__all__ = ["batch", "CSV_FORMATS"]
