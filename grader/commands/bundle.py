"""Commands: ``grade bundle gradescope|prairielearn|image|classroom`` (LMS autograder packages).

Each subcommand parses options and calls the library: :mod:`grader.bundles.gradescope`,
:mod:`grader.bundles.prairielearn` and :mod:`grader.bundles.classroom`. Problems the user can fix are reported in one message
(exit 2, as for every input error; see :mod:`grader.commands.common`), never as a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import click

from grader.bundles.common import SANDBOX_MODES, BundleError
from grader.bundles.wheels import (
    DEFAULT_PLATFORMS,
    DEFAULT_PYTHON_VERSION,
    WheelError,
    WheelSources,
    WheelTarget,
    parse_python_version,
)
from grader.commands.common import (
    INPUT_ERROR,
    exercises_dir_option,
    fail,
    load,
    student_id_option,
    with_exit_codes,
)
from grader.spec import Exercise


def _exercise(exercise_id: str) -> Exercise:
    return load(exercise_id)


def _target(python_version: str, platforms: tuple, for_this_python: bool) -> WheelTarget:
    if for_this_python:
        return WheelTarget.this_interpreter()
    try:
        version = parse_python_version(python_version)
    except WheelError as error:
        raise click.BadParameter(str(error), param_hint="--python-version") from None
    return WheelTarget(python_version=version, platforms=tuple(platforms) or DEFAULT_PLATFORMS)


def _sources(wheels_from: tuple, offline: bool, project_wheel: Optional[Path]) -> WheelSources:
    if offline and not wheels_from:
        raise click.UsageError("--offline needs at least one --wheels-from DIR to take the wheels from")
    return WheelSources(find_links=tuple(wheels_from), offline=offline, project_wheel=project_wheel)


def _fail(error: Exception) -> None:
    fail("bundle", str(error), code=INPUT_ERROR)


def wheel_options(function):
    """The options choosing which wheels a bundle ships."""
    options = [
        click.option("--python-version", default=DEFAULT_PYTHON_VERSION, show_default=True,
                     help="Python version of the grading host (Gradescope's Ubuntu 22.04: 3.10)."),
        click.option("--platform", "platforms", multiple=True, metavar="TAG",
                     help="Wheel platform tag of the host (repeatable); default: "
                     + ", ".join(DEFAULT_PLATFORMS) + "."),
        click.option("--for-this-python", is_flag=True,
                     help="Ship wheels for the Python running this command (to try a bundle locally)."),
        click.option("--wheels-from", multiple=True, metavar="DIR",
                     type=click.Path(exists=True, file_okay=False, path_type=Path),
                     help="Also take wheels from this directory (repeatable)."),
        click.option("--offline", is_flag=True,
                     help="Use only --wheels-from directories, not the package index."),
        click.option("--project-wheel", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     help="Ship this bpe_autograder wheel instead of building one from the checkout."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


SANDBOX_OPTION = click.option(
    "--sandbox", type=click.Choice(SANDBOX_MODES), default="strict", show_default=True,
    help="strict: refuse to grade (an 'Autograder error' result) when the host lacks an "
    "isolation layer it should have; best-effort: grade with the layers available.",
)


SECRET_OPTION = click.option(
    "--seed-secret", metavar="TEXT", default=None,
    help="The course secret the bundle grades with (generated inputs, each student's variant); "
    "default: $GRADE_SEED_SECRET, the file $GRADE_SEED_SECRET_FILE, else a new random one. "
    "Render per-student starting files with the same secret.")


@click.group("bundle", help=with_exit_codes(
    "Package EXERCISE's autograder for Gradescope, PrairieLearn or GitHub Classroom."))
def bundle() -> None:
    pass


@bundle.command("gradescope")
@click.argument("exercise_id", metavar="EXERCISE")
@exercises_dir_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              default=Path("autograder.zip"), show_default=True, help="The zip to write.")
@SANDBOX_OPTION
@SECRET_OPTION
@student_id_option
@wheel_options
def gradescope(exercise_id: str, output: Path, sandbox: str, seed_secret: Optional[str],
               student_id: Optional[str],
               python_version: str, platforms: tuple, for_this_python: bool, wheels_from: tuple,
               offline: bool, project_wheel: Optional[Path]) -> None:
    """Write Gradescope's autograder zip (setup.sh installs offline from wheels inside it)."""
    from grader.bundles.gradescope import build_gradescope_bundle

    exercise = _exercise(exercise_id)
    target = _target(python_version, platforms, for_this_python)
    sources = _sources(wheels_from, offline, project_wheel)
    click.echo(f"collecting wheels for {target.describe()} ...", err=True)
    try:
        built = build_gradescope_bundle(exercise, output, target=target, sources=sources,
                                        sandbox=sandbox, seed_secret=seed_secret,
                                        student_id=student_id)
    except (BundleError, WheelError) as error:
        _fail(error)
    click.echo(f"wrote {built.path} ({built.size_bytes / 1e6:.1f} MB, {len(built.wheels.wheels)} wheels); "
               f"{_gradescope_next_step(target)}", err=True)
    _starters_note(exercise, "SID" if student_id == "sid" else "Email",
                   f" --student-id {student_id}" if student_id else "")


def _gradescope_next_step(target: WheelTarget) -> str:
    """What to do with the zip: upload it, unless its wheels are for a Python Gradescope's
    image does not run (``--for-this-python`` on another version or machine)."""
    import platform

    if target.is_local and (f"{sys.version_info.major}.{sys.version_info.minor}"
                            != DEFAULT_PYTHON_VERSION or sys.platform != "linux"
                            or platform.machine() != "x86_64"):
        return (f"its wheels are for this Python ({target.describe()}), which Gradescope's "
                f"image (Python {DEFAULT_PYTHON_VERSION}, x86-64 Linux) cannot install: try it "
                "locally (README, Gradescope step 2), then build the zip to upload without "
                "--for-this-python")
    return "upload it under Configure Autograder > Zip file upload"


def _starters_note(exercise: Exercise, column: str, setting: str = "") -> None:
    """How to give each student of a per-student exercise their own starting file."""
    from grader.bundles.common import per_student

    if per_student(exercise):
        click.echo(f"each student needs their own {exercise.student_file}: render them from your "
                   f"roster with the bundle's secret, grade stub {exercise.id} --roster roster.csv "
                   f"--id-column {column}{setting} --seed-secret SECRET -o starters/ (the bundle's "
                   "README.md says more)", err=True)


@bundle.command("prairielearn")
@click.argument("exercise_id", metavar="EXERCISE")
@exercises_dir_option
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The question directory to write (e.g. COURSE/questions/bpe).")
@click.option("--image", metavar="NAME", help="Grader image the question runs in "
              "(as pushed from `grade bundle image`); default: bpe-autograder/grader:VERSION.")
@click.option("--force", is_flag=True, help="Overwrite a non-empty directory (its uuid is kept).")
@click.option("--variants", type=int, default=100, show_default=True,
              help="Exercises with a variant per student: how many starting files the question "
              "draws its variants from.")
@click.option("--notebook-upload", is_flag=True,
              help="Offer an upload of student.ipynb beside the editor; an uploaded notebook "
                   "is graded instead of the editor's file.")
@SANDBOX_OPTION
@SECRET_OPTION
def prairielearn(exercise_id: str, output: Path, image: Optional[str], force: bool, variants: int,
                 notebook_upload: bool, sandbox: str, seed_secret: Optional[str]) -> None:
    """Write a PrairieLearn question directory graded externally by bpe-autograder."""
    from grader.bundles.prairielearn import write_prairielearn_question

    exercise = _exercise(exercise_id)
    try:
        question = write_prairielearn_question(exercise, output, image=image, sandbox=sandbox,
                                               force=force, seed_secret=seed_secret,
                                               variants=variants,
                                               notebook_upload=notebook_upload)
    except BundleError as error:
        _fail(error)
    click.echo(f"wrote {question.directory}: {', '.join(question.files)}", err=True)


@bundle.command("image")
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="The Docker build context to write (Dockerfile, install.sh, wheels/).")
@click.option("--image", metavar="NAME", help="The image name the Dockerfile's comments use.")
@click.option("--force", is_flag=True, help="Overwrite a non-empty directory.")
@wheel_options
def image(output: Path, image: Optional[str], force: bool, python_version: str, platforms: tuple,
          for_this_python: bool, wheels_from: tuple, offline: bool,
          project_wheel: Optional[Path]) -> None:
    """Write the build context of the grader image PrairieLearn questions run in."""
    from grader.bundles.prairielearn import write_grader_image

    if for_this_python:
        raise click.UsageError("the image's Python comes from its base image: give --python-version")
    target = _target(python_version, platforms, False)
    sources = _sources(wheels_from, offline, project_wheel)
    click.echo(f"collecting wheels for {target.describe()} ...", err=True)
    try:
        built = write_grader_image(output, image=image, target=target, sources=sources, force=force)
    except (BundleError, WheelError) as error:
        _fail(error)
    click.echo(f"wrote {built.directory}; build it with: docker build -t {built.image} {built.directory}",
               err=True)


@bundle.command("classroom")
@click.argument("exercise_id", metavar="EXERCISE")
@exercises_dir_option
@click.option("-o", "--output", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The template repository's directory; the workflow goes to "
              ".github/workflows/classroom.yml, the grader's files to .github/bpe-autograder/.")
@click.option("--python-version", default="3.12", show_default=True,
              help="Python the workflow sets up (the shipped wheels are for it).")
@click.option("--platform", "platforms", multiple=True, metavar="TAG",
              help="Wheel platform tag of the runner (repeatable); default: "
              + ", ".join(DEFAULT_PLATFORMS) + " (ubuntu-latest).")
@click.option("--for-this-python", is_flag=True,
              help="Ship wheels for the Python running this command (to try the workflow locally).")
@click.option("--wheels-from", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="Also take wheels from this directory (repeatable).")
@click.option("--offline", is_flag=True, help="Use only --wheels-from directories, not the package index.")
@click.option("--project-wheel", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Ship this bpe_autograder wheel instead of building one from the checkout.")
@click.option("--install", metavar="REQUIREMENT",
              help="Ship no wheels: the workflow pip-installs this requirement instead "
              "(a published version or a git URL).")
@click.option("--sandbox", type=click.Choice(SANDBOX_MODES), default="best-effort", show_default=True,
              help="best-effort suits GitHub's runners, which do not run the job as root.")
@click.option("--force", is_flag=True, help="Replace grading files written before.")
@SECRET_OPTION
def classroom(exercise_id: str, output: Path, python_version: str, platforms: tuple,
              for_this_python: bool, wheels_from: tuple, offline: bool, project_wheel: Optional[Path],
              install: Optional[str], sandbox: str, force: bool, seed_secret: Optional[str]) -> None:
    """Write the GitHub Classroom workflow and grading files into a template repository."""
    from grader.bundles.classroom import WorkflowOptionError, write_classroom_bundle

    exercise = _exercise(exercise_id)
    target = _target(python_version, platforms, for_this_python)
    sources = _sources(wheels_from, offline, project_wheel)
    if install is None:
        click.echo(f"collecting wheels for {target.describe()} ...", err=True)
    try:
        built = write_classroom_bundle(exercise, output, target=target, sources=sources,
                                       install=install, sandbox=sandbox, force=force,
                                       seed_secret=seed_secret)
    except WorkflowOptionError as error:
        raise click.UsageError(str(error)) from None
    except (BundleError, WheelError) as error:
        _fail(error)
    stub = f"; wrote the stub as {exercise.student_file}" if built.wrote_stub else ""
    click.echo(f"wrote {len(built.files)} files into {built.directory}{stub}; commit them all "
               "to the template repository", err=True)
    _starters_note(exercise, "github_username")
