"""Command: ``grade similarity`` (which submissions of a class share code).

Only parses options and calls :mod:`grader.batch.similarity`. Exit status: 0 when the class
was compared, whatever was found; 2 for unusable arguments; 1 for a fault of the grader.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import click

from grader.batch.discovery import DiscoveryError
from grader.batch.gradebook import GradebookError
from grader.commands.common import exercises_dir_option, grader_fault, say, with_exit_codes
from grader.grading.engine import GradingSetupError

SHOWN = 10  # pairs printed on the terminal; all of them are in the files


@click.command(help=with_exit_codes(
    "Rank the pairs of submissions in SUBMISSIONS by how much code they share (the "
    "exercise's stub left out), into OUT/similarity.html (each pair side by side) and "
    "OUT/similarity.csv. Renamed variables, reordered functions and comments do not hide a "
    "copy. --sources DIR adds files the class may have copied from (minbpe, a course's "
    "published code, last year's solutions); --graded OUT (the class's 'grade batch' output) "
    "adds the pairs that give the same rare wrong answers to the same inputs."),
    short_help="Rank the pairs of a class's submissions by the code they share.")
@click.argument("submissions", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), required=True,
              help="Output folder (created if needed).")
@click.option("--exercise", "exercise_id", metavar="ID|PATH", required=True,
              help="The exercise: its stub is what every student was given.")
@click.option("--sources", type=click.Path(path_type=Path), default=None,
              help="A folder of known sources to compare every submission with.")
@click.option("--graded", type=click.Path(path_type=Path), default=None,
              help="The output folder of 'grade batch' for this class: also list the pairs "
                   "that give the same rare wrong answers.")
@click.option("--threshold", type=click.FloatRange(min=0, max=1, min_open=True), default=0.5,
              show_default=True,
              help="List a pair when one shares at least this part of its code with the other.")
@exercises_dir_option
def similarity(submissions: Path, out: Path, exercise_id: str, sources: Optional[Path],
               graded: Optional[Path], threshold: float) -> None:
    from grader.batch.similarity import SimilarityError, find_similar, write_similarity
    from grader.grading.engine import resolve_exercise

    if out.exists() and not out.is_dir():
        raise click.BadParameter(f"{out} exists and is not a folder", param_hint="-o")
    try:
        exercise = resolve_exercise(Path(submissions), exercise_id)
        report = find_similar(submissions, exercise, sources=sources, threshold=threshold,
                              graded=graded)
        index = write_similarity(report, out, exercise.title)
    except (DiscoveryError, GradebookError, GradingSetupError, SimilarityError) as error:
        raise click.UsageError(str(error)) from None
    except ImportError as error:
        raise click.UsageError(f"comparing needs copydetect ({error}): pip install "
                               "'bpe-autograder[similarity]'") from None
    except Exception as error:  # noqa: BLE001 - any other failure is the grader's own fault
        grader_fault("similarity", "internal error", error)
    say(f"{report.students} submissions compared in {report.seconds:.1f} s; "
        f"{len(report.pairs)} pair{'' if len(report.pairs) == 1 else 's'} share at least "
        f"{threshold:.0%} of one's code: {index}")
    for rank, pair in enumerate(report.pairs[:SHOWN], start=1):
        other = f"source {pair.second}" if pair.source else pair.second
        say(f"  {rank}. {pair.first} and {other}: {pair.first_share:.0%} / "
            f"{pair.second_share:.0%} ({pair.tokens} shared tokens)")
    if report.graded:
        say(f"{len(report.behaviour)} pair{'' if len(report.behaviour) == 1 else 's'} give the "
            "same rare wrong answers" + ("" if not report.behaviour else ": " + ", ".join(
                f"{pair.first} and {pair.second} ({len(pair.shared)})"
                for pair in report.behaviour[:SHOWN])))
    for entry in report.unusable:
        say(f"  not compared: {entry.line()}")
