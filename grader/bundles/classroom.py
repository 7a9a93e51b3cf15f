"""The GitHub Classroom template repository: the workflow and everything it needs to grade.

``write_classroom_bundle`` fills a template repository's directory with
``.github/workflows/classroom.yml`` and ``.github/bpe-autograder/`` (the exercise's spec,
``bundle.json``, the stdlib-only ``entrypoint.py``, ``run_grader``, and by default
``install.sh`` with ``wheels/`` so that the job installs the grader without the package
index), plus the stub as the student file when the repository has none yet. On every push
the workflow installs the grader, grades once, and always hands a result to GitHub
Classroom's grading reporter (0 with the reason when the file is missing or grading fails).

A student owns the repository and can read every file in it, hidden cases included; the
bundle says so rather than pretending otherwise.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from grader.bundles.common import (
    SEED_SECRET_NAME,
    BundleError,
    add_settings,
    install_script,
    notebook_name,
    per_student,
    render_template,
    target_python,
    write_executable,
    write_grading_files,
)
from grader.bundles.starters import starters_readme
from grader.bundles.wheels import WheelSet, WheelSources, WheelTarget, collect_wheels, wheel_version
from grader.spec import Exercise
from grader.spec.stubs import starting_file

BUNDLE_DIR = ".github/bpe-autograder"
WORKFLOW_FILE = ".github/workflows/classroom.yml"
WORKFLOW_TEMPLATE = "classroom/classroom.yml.j2"
DEFAULT_PYTHON_VERSION = "3.12"
# Values end up in YAML and in a shell command line, so only plain names are accepted.
_PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_PLAIN_REQUIREMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-\[\],=<>!~+@:/]*$")
_PLAIN_VERSION = re.compile(r"^3\.[0-9]+$")


class WorkflowOptionError(ValueError):
    """A value for the Classroom workflow cannot be written safely into it."""


@dataclass
class ClassroomBundle:
    directory: Path
    files: list[str]
    wheels: Optional[WheelSet]
    wrote_stub: bool


def write_classroom_bundle(
    exercise: Exercise,
    directory: Path,
    *,
    target: WheelTarget = WheelTarget(python_version=DEFAULT_PYTHON_VERSION),
    sources: WheelSources = WheelSources(),
    install: Optional[str] = None,
    sandbox: str = "best-effort",
    force: bool = False,
    seed_secret: Optional[str] = None,
) -> ClassroomBundle:
    """Write the grading files and workflow for ``exercise`` into the repository ``directory``.

    ``install``: a pip requirement the workflow installs instead of the shipped wheels.
    """
    if directory.suffix in (".yml", ".yaml"):
        raise BundleError(
            f"{directory}: give the template repository's directory (e.g. '.'), not the workflow "
            f"file; the workflow is written to {WORKFLOW_FILE} inside it"
        )
    if directory.exists() and not directory.is_dir():
        raise BundleError(f"{directory} exists and is not a directory")
    bundle = directory / BUNDLE_DIR
    workflow = directory / WORKFLOW_FILE
    existing = [path for path in (bundle, workflow) if path.exists()]
    if existing and not force:
        raise BundleError(f"{existing[0]} already exists; pass --force to replace the grading files")
    python_version = target_python(target)
    workflow_text = render_workflow(exercise, install=install, python_version=python_version)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        workflow.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BundleError(f"cannot create {workflow.parent}: {error.strerror}") from None
    if bundle.is_dir():
        shutil.rmtree(bundle)  # no file of an older build may survive
    write_grading_files(bundle, exercise, sandbox=sandbox, seed_secret=seed_secret)
    if per_student(exercise):
        (bundle / "README.md").write_text(
            starters_readme(exercise, "classroom", f"{BUNDLE_DIR}/{SEED_SECRET_NAME}"),
            encoding="utf-8")
    wheels = None
    if install is None:
        wheels = collect_wheels(bundle / "wheels", target, sources)
        write_executable(bundle / "install.sh", install_script(
            wheel_version(wheels.project_wheel), target,
            default_venv="${RUNNER_TEMP:-/tmp}/bpe-venv"))
    write_executable(bundle / "run_grader", render_template(
        "classroom/run_grader.j2", exercise_id=exercise.id, student_file=exercise.student_file,
        max_score=_number(exercise.total_points)))
    workflow.write_text(workflow_text, encoding="utf-8")
    stub = directory / exercise.student_file
    wrote_stub = not stub.exists()
    if wrote_stub:
        stub.write_text(classroom_starter(exercise), encoding="utf-8")
    notebook = notebook_name(exercise)
    if notebook is not None:
        # A notebook is graded when the code file is still the template's (or gone).
        add_settings(bundle, notebook_file=notebook,
                     starter_sha256=hashlib.sha256(stub.read_bytes()).hexdigest())
    files = sorted(path.relative_to(directory).as_posix() for path in [workflow, stub, *bundle.rglob("*")]
                   if path.is_file())
    return ClassroomBundle(directory=directory, files=files, wheels=wheels, wrote_stub=wrote_stub)


def classroom_starter(exercise: Exercise) -> str:
    """The template's student file: the stub, or, when each student has a file of their own,
    a note saying where theirs comes from (one template serves the whole class)."""
    if not per_student(exercise):
        return starting_file(exercise)
    name = exercise.student_file
    return (f"# exercise: {exercise.id}\n# {exercise.title}\n#\n"
            f"# Every student works on a variant of their own. Replace this file with the {name}\n"
            "# your course gave you (made for your GitHub username: its student: line names you),\n"
            "# fill in your answers, commit and push. Each push is graded on the variant of the\n"
            "# GitHub user who pushed it.\n")


def render_workflow(
    exercise: Exercise,
    *,
    install: Optional[str] = None,
    python_version: str = DEFAULT_PYTHON_VERSION,
) -> str:
    """``.github/workflows/classroom.yml``: install (from the shipped wheels unless ``install``),
    grade once, and report, the last two whatever happened before."""
    _require(exercise.id, _PLAIN_NAME, "exercise id", "letters, digits, '.', '_' or '-'")
    _require(exercise.student_file, _PLAIN_NAME, "submission file name",
             "letters, digits, '.', '_' or '-'")
    if install is not None:
        _require(install, _PLAIN_REQUIREMENT, "install requirement", "a pip requirement without spaces")
    _require(python_version, _PLAIN_VERSION, "Python version", "a version such as 3.12")
    return render_template(
        WORKFLOW_TEMPLATE, exercise=exercise.id, submission=exercise.student_file,
        install=install or "", wheels=install is None, python_version=python_version,
        bundle_dir=BUNDLE_DIR, exercise_file=f"{exercise.id}.yaml",
    )


def _number(value: float) -> str:
    rounded = round(float(value), 2)
    return str(int(rounded)) if rounded == int(rounded) else str(rounded)


def _require(value: str, pattern: re.Pattern[str], what: str, expected: str) -> None:
    if not isinstance(value, str) or not pattern.match(value):
        raise WorkflowOptionError(f"{what} {value!r} cannot be used in the workflow: expected {expected}")
