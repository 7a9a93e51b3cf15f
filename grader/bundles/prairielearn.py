"""A PrairieLearn externally graded question, and the grader image it runs in.

``write_prairielearn_question`` lays out a question directory for a course's ``questions/``:
``info.json`` (external grading through ``/grade/tests/run_grader``), ``question.html`` (a
file editor pre-filled with the exercise's stub), the stub itself, and ``tests/`` with the
spec, ``bundle.json`` and the stdlib-only ``entrypoint.py``, which runs ``grade submit
--format prairielearn`` and always writes ``/grade/results/results.json``.

An exercise whose students each start from a file of their own (an answers file on their own
corpus) gets a question with many variants instead: ``variants.json`` holds that many
starting files, drawn at build time with the bundle's secret for the ids ``pl-0001``, ...,
and the stdlib-only ``server.py`` gives each new variant one of them (``params``), which the
editor starts from and the entry point grades (the variant's id is passed as ``--student``).

``write_grader_image`` lays out the Docker build context of the image those questions name:
a ``Dockerfile`` on ``python:3.x-slim`` that installs the grader from ``wheels/`` with pip
``--no-index``. One image serves every question of a course.
"""

from __future__ import annotations

import json
import re
import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from markupsafe import Markup

from grader.bundles.common import (
    BundleError,
    add_settings,
    grading_timeout,
    install_script,
    notebook_name,
    per_student,
    render_template,
    student_starting_file,
    write_executable,
    write_grading_files,
)
from grader.bundles.instructions import markdown_to_html
from grader.bundles.wheels import (
    WheelSet,
    WheelSources,
    WheelTarget,
    collect_wheels,
    grader_version,
    wheel_version,
)
from grader.package_data import templates_path
from grader.spec import Exercise
from grader.spec.stubs import starting_file

PRAIRIELEARN_MAX_TIMEOUT = 600
# Seconds PrairieLearn's job timeout exceeds the entry point's own deadline: enough to start
# Python, stop an overrunning grading (entrypoint.KILL_GRACE_SECONDS) and write its result.
RESULT_MARGIN_SECONDS = 30
ENTRYPOINT = "/grade/tests/run_grader"
STUB_FILE = "initial_code.py"
SERVER_FILE = "server.py"
VARIANTS_FILE = "variants.json"
# The params server.py sets: whose variant it is (read back by entrypoint.VARIANT_PARAM) and
# the starting file the editor shows.
VARIANT_PARAM = "bpe_student"
SHEET_PARAM = "bpe_sheet"
DEFAULT_VARIANTS = 100
MAX_VARIANTS = 10_000
ACE_MODES = {".py": "ace/mode/python", ".yaml": "ace/mode/yaml", ".yml": "ace/mode/yaml",
             ".json": "ace/mode/json"}
DEFAULT_IMAGE_REPOSITORY = "bpe-autograder/grader"
IMAGE_VENV = "/opt/bpe-autograder/venv"
# Docker image references: [registry/]name[:tag], lowercase names.
_IMAGE_NAME = re.compile(r"^[a-z0-9]+([._\-/:][a-z0-9]+)*(:[A-Za-z0-9_.\-]+)?$")


def default_image() -> str:
    return f"{DEFAULT_IMAGE_REPOSITORY}:{grader_version()}"


@dataclass
class PrairieLearnQuestion:
    directory: Path
    files: list[str]


def write_prairielearn_question(
    exercise: Exercise,
    directory: Path,
    *,
    image: Optional[str] = None,
    sandbox: str = "strict",
    question_uuid: Optional[str] = None,
    force: bool = False,
    seed_secret: Optional[str] = None,
    variants: int = DEFAULT_VARIANTS,
    notebook_upload: bool = False,
) -> PrairieLearnQuestion:
    """Write the question directory for ``exercise``; refuse a non-empty one unless ``force``.

    ``variants``: how many starting files a per-student exercise's question draws from.
    ``notebook_upload``: the question also offers an upload of ``student.ipynb``, graded
    instead of the editor's file when one is uploaded.
    """
    notebook = notebook_name(exercise) if notebook_upload else None
    if notebook_upload and notebook is None:
        raise BundleError(f"--notebook-upload: {exercise.id} is handed in as "
                          f"{exercise.student_file} only, so it takes no notebook")
    image = default_image() if image is None else image
    check_image_name(image)
    if not 1 <= variants <= MAX_VARIANTS:
        raise BundleError(f"--variants {variants}: give a number from 1 to {MAX_VARIANTS}")
    _prepare_directory(directory, force)
    tests = directory / "tests"
    _remove_stale(tests)
    secret = write_grading_files(tests, exercise, sandbox=sandbox, seed_secret=seed_secret,
                                 timeout_seconds=entrypoint_deadline(exercise))
    write_executable(tests / "run_grader",
                     render_template("prairielearn/run_grader.j2", exercise_id=exercise.id))
    several = per_student(exercise)
    for stale in (STUB_FILE, SERVER_FILE, VARIANTS_FILE):
        (directory / stale).unlink(missing_ok=True)
    if several:
        write_variants(directory, exercise, secret, variants)
    else:
        (directory / STUB_FILE).write_text(starting_file(exercise), encoding="utf-8")
    if notebook is not None:
        add_settings(tests, notebook_file=notebook)
    (directory / "question.html").write_text(question_html(exercise, notebook), encoding="utf-8")
    info = question_info(exercise, image=image, question_uuid=question_uuid or _existing_uuid(directory))
    (directory / "info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    files = sorted(path.relative_to(directory).as_posix() for path in directory.rglob("*") if path.is_file())
    return PrairieLearnQuestion(directory=directory, files=files)


def question_info(exercise: Exercise, *, image: str, question_uuid: Optional[str] = None) -> dict[str, Any]:
    """The question's ``info.json``: a v3 question graded externally in ``image``."""
    return {
        "uuid": question_uuid or str(uuid.uuid4()),
        "title": exercise.title,
        "topic": "Tokenization",
        "tags": ["bpe-autograder", exercise.id],
        "type": "v3",
        # Each variant of a per-student exercise has its own starting file (server.py).
        "singleVariant": not per_student(exercise),
        "gradingMethod": "External",
        "externalGradingOptions": {
            "enabled": True,
            "image": image,
            "entrypoint": ENTRYPOINT,
            "timeout": entrypoint_deadline(exercise) + RESULT_MARGIN_SECONDS,
        },
    }


def entrypoint_deadline(exercise: Exercise) -> int:
    """The entry point's deadline for one grading, leaving PrairieLearn's job time to spare.

    PrairieLearn kills a job at ``externalGradingOptions.timeout`` (at most 600 s) and then
    shows only its own error; the entry point stops grading earlier so that the student sees
    its "Autograder error" result with the reason instead.
    """
    return min(grading_timeout(exercise), PRAIRIELEARN_MAX_TIMEOUT - RESULT_MARGIN_SECONDS)


def question_html(exercise: Exercise, notebook: Optional[str] = None) -> str:
    """The question's page: the instructions and the editor (and, given ``notebook``, an
    upload of that notebook beside it)."""
    suffix = Path(exercise.student_file).suffix.lower()
    return render_template(
        "prairielearn/question.html.j2",
        title=exercise.title,
        lesson=exercise.lesson,
        instructions_html=Markup(markdown_to_html(exercise.instructions.strip())),
        student_file=exercise.student_file,
        stub_file=STUB_FILE,
        ace_mode=ACE_MODES.get(suffix, "ace/mode/text"),
        per_student=per_student(exercise),
        sheet_param=SHEET_PARAM,
        notebook=notebook,
    )


def variant_id(number: int) -> str:
    return f"pl-{number:04d}"


def write_variants(directory: Path, exercise: Exercise, secret: str, count: int) -> None:
    """``variants.json`` (``count`` starting files, one per variant id, drawn with ``secret``)
    and the ``server.py`` that hands one to each new variant."""
    sheets = []
    for number in range(1, count + 1):
        student = variant_id(number)
        try:
            sheet = student_starting_file(exercise, student, secret)
        except ValueError as error:
            raise BundleError(f"cannot draw the variant {student}: {error}") from None
        sheets.append({"student": student, "sheet": sheet})
    document = {"exercise": exercise.id, "student_param": VARIANT_PARAM,
                "sheet_param": SHEET_PARAM, "variants": sheets}
    (directory / VARIANTS_FILE).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    source = (templates_path() / "prairielearn" / SERVER_FILE).read_text(encoding="utf-8")
    (directory / SERVER_FILE).write_text(source, encoding="utf-8")


def check_image_name(image: str) -> None:
    if not _IMAGE_NAME.match(image):
        raise BundleError(
            f"--image {image!r} is not a Docker image name; use lowercase letters, digits and "
            "'.', '_', '-', '/', e.g. yourorg/bpe-autograder:0.1.0"
        )


def _existing_uuid(directory: Path) -> Optional[str]:
    """Keep the uuid of a question being regenerated: PrairieLearn tracks questions by it."""
    try:
        found = json.loads((directory / "info.json").read_text(encoding="utf-8")).get("uuid")
    except (OSError, ValueError, AttributeError):
        return None
    return found if isinstance(found, str) else None


def _prepare_directory(directory: Path, force: bool) -> None:
    if directory.exists() and not directory.is_dir():
        raise BundleError(f"{directory} exists and is not a directory")
    if directory.is_dir() and any(directory.iterdir()) and not force:
        raise BundleError(f"{directory} is not empty; choose a new directory or pass --force to overwrite")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BundleError(f"cannot create the directory {directory}: {error.strerror}") from None


def _remove_stale(directory: Path) -> None:
    """Drop a directory this command fills whole, so no file of an older build survives."""
    if directory.is_dir():
        shutil.rmtree(directory)


# --------------------------------------------------------------------------- the grader image


@dataclass
class GraderImage:
    directory: Path
    image: str
    wheels: WheelSet


def write_grader_image(
    directory: Path,
    *,
    image: Optional[str] = None,
    target: WheelTarget = WheelTarget(),
    sources: WheelSources = WheelSources(),
    force: bool = False,
) -> GraderImage:
    """Write the Docker build context (``Dockerfile``, ``install.sh``, ``wheels/``)."""
    if target.is_local:
        raise BundleError("the grader image needs a Python version for its base image (e.g. 3.10)")
    image = default_image() if image is None else image
    check_image_name(image)
    _prepare_directory(directory, force)
    _remove_stale(directory / "wheels")
    wheels = collect_wheels(directory / "wheels", target, sources)
    version = wheel_version(wheels.project_wheel)
    write_executable(directory / "install.sh", install_script(version, target, default_venv=IMAGE_VENV))
    dockerfile = render_template("prairielearn/Dockerfile.j2", image=image,
                                 python_version=target.python_version)
    (directory / "Dockerfile").write_text(dockerfile, encoding="utf-8")
    return GraderImage(directory=directory, image=image, wheels=wheels)
