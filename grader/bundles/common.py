"""What every LMS bundle shares: rendered templates, the grading files and their settings.

The platform modules (:mod:`grader.bundles.gradescope`, :mod:`grader.bundles.prairielearn`)
combine these with the offline wheel set of :mod:`grader.bundles.wheels`. On the grading host,
the stdlib-only ``templates/lms/entrypoint.py`` reads ``bundle.json`` (written here), runs
``grade submit`` on the submission and always leaves a valid ``results.json``.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any, Optional

from markupsafe import Markup, escape

from grader.bundles.wheels import WheelTarget, grader_version
from grader.grading.secrets import SeedSecretError, environment_secret, write_secret_file
from grader.grading.student_ids import VariantError, student_id_setting
from grader.grading.submissions import submission_kind
from grader.grading.wall_clock import margin_seconds
from grader.package_data import jinja_environment, templates_path
from grader.spec import Exercise
from grader.spec.registry import COURSE_FOLDER, course_folder, family_of
from grader.spec.stubs import StubNeedsStudent

ENTRYPOINT_TEMPLATE = "lms/entrypoint.py"
INSTALL_TEMPLATE = "lms/install.sh.j2"
CONFIG_NAME = "bundle.json"
# The course's seed secret (``--seed-secret``, else the environment's, else a random one made
# at build time); the host grades with GRADE_SEED_SECRET_FILE pointing at it (see
# grader.grading.secrets), so students cannot predict generated inputs, and a course renders
# each student's own starting file with it (grader.bundles.starters).
SEED_SECRET_NAME = "seed-secret"
SANDBOX_MODES = ("strict", "best-effort")
GRADING_MARGIN_SECONDS = 90


class BundleError(Exception):
    """A bundle cannot be built; the message says why and what to do."""


# --------------------------------------------------------------------------- templates and config


def render_template(name: str, **values: Any) -> str:
    """Render ``templates/NAME``; HTML templates are autoescaped, scripts are not."""
    environment = jinja_environment()
    environment.filters["pl_text"] = prairielearn_text
    return environment.get_template(name).render(**values)


def prairielearn_text(value: Any) -> Markup:
    """HTML-escaped text whose braces PrairieLearn's Mustache pass cannot take for tags."""
    escaped = str(escape(str(value)))
    return Markup(escaped.replace("{", "&#123;").replace("}", "&#125;"))


def entrypoint_source() -> str:
    return (templates_path() / ENTRYPOINT_TEMPLATE).read_text(encoding="utf-8")


def exercise_spec_text(exercise: Exercise) -> str:
    """The exercise's YAML, shipped so that the host grades exactly this spec."""
    if exercise.source is None or not exercise.source.is_file():
        raise BundleError(f"exercise {exercise.id!r} has no spec file to ship in the bundle")
    return exercise.source.read_text(encoding="utf-8")


def grading_timeout(exercise: Exercise) -> int:
    """Seconds the host allows one grading: the exercise's sandbox budget plus start-up, and
    never less than the grading's own wall-clock limit plus 30 s to write its report."""
    total = exercise.limits.total_seconds
    return int(math.ceil(total + max(GRADING_MARGIN_SECONDS, margin_seconds(total) + 30)))


def bundle_config(exercise: Exercise, *, sandbox: str, exercise_file: str,
                  timeout_seconds: int | None = None,
                  student_id: Optional[str] = None) -> dict[str, Any]:
    """The settings ``entrypoint.py`` reads from ``bundle.json``.

    ``timeout_seconds`` is the entry point's own deadline for one grading (default
    :func:`grading_timeout`); a platform that kills the job at a fixed time must leave the
    entry point time after it to write its "Autograder error" result. ``student_id`` is the
    course's setting of which id names a student (:func:`student_id_setting`).
    """
    if sandbox not in SANDBOX_MODES:
        raise BundleError(f"unknown sandbox mode {sandbox!r}; choose {' or '.join(SANDBOX_MODES)}")
    return {
        "exercise_id": exercise.id,
        "exercise_file": exercise_file,
        "student_file": exercise.student_file,
        "submission_suffixes": list(submission_kind(exercise).suffixes),
        "max_score": exercise.total_points,
        "strict_sandbox": sandbox == "strict",
        "timeout_seconds": grading_timeout(exercise) if timeout_seconds is None else timeout_seconds,
        "grader_version": grader_version(),
        "seed_secret_file": SEED_SECRET_NAME,
        "student_id": chosen_student_id(student_id),
    }


def chosen_student_id(given: Optional[str] = None) -> str:
    """The course's student id setting (``--student-id``, else ``$GRADE_STUDENT_ID``, else the
    e-mail); :class:`BundleError` for another value."""
    try:
        return student_id_setting(given)
    except VariantError as error:
        raise BundleError(str(error)) from None


def bundle_secret(given: Optional[str] = None) -> Optional[str]:
    """The secret a bundle grades with: ``given``, else the environment's
    (``GRADE_SEED_SECRET``, or the file ``GRADE_SEED_SECRET_FILE`` names), else None (a random
    one is made), the order ``grade submit`` follows."""
    try:
        return given or environment_secret()
    except SeedSecretError as error:
        raise BundleError(str(error)) from None


def write_grading_files(directory: Path, exercise: Exercise, *, sandbox: str,
                        timeout_seconds: int | None = None,
                        seed_secret: Optional[str] = None,
                        student_id: Optional[str] = None) -> str:
    """The spec, ``bundle.json``, ``entrypoint.py`` and the seed secret (mode 0600): what
    grading on the host reads. Returns the secret (see :func:`bundle_secret`)."""
    directory.mkdir(parents=True, exist_ok=True)
    secret = write_secret_file(directory / SEED_SECRET_NAME, bundle_secret(seed_secret))
    exercise_file = f"{exercise.id}.yaml"
    (directory / exercise_file).write_text(exercise_spec_text(exercise), encoding="utf-8")
    config = bundle_config(exercise, sandbox=sandbox, exercise_file=exercise_file,
                           timeout_seconds=timeout_seconds, student_id=student_id)
    (directory / CONFIG_NAME).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    write_executable(directory / "entrypoint.py", entrypoint_source())
    ship_course_family(directory, exercise)
    return secret


def notebook_name(exercise: Exercise) -> Optional[str]:
    """The notebook a student may hand in instead of the code file (``student.ipynb`` beside
    ``student.py``), or None when the exercise's submissions are not code."""
    if ".ipynb" not in submission_kind(exercise).suffixes or per_student(exercise):
        return None
    return Path(exercise.student_file).with_suffix(".ipynb").name


def add_settings(directory: Path, **settings: Any) -> None:
    """Add ``settings`` to the ``bundle.json`` :func:`write_grading_files` wrote there."""
    path = directory / CONFIG_NAME
    config = json.loads(path.read_text(encoding="utf-8"))
    config.update(settings)
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def per_student(exercise: Exercise) -> bool:
    """Whether each student of ``exercise`` starts from a file of their own (their variant)."""
    stub = family_of(exercise).stub
    if stub is None:
        return False
    try:
        stub(exercise, None, None)
    except StubNeedsStudent:
        return True
    return False


def student_starting_file(exercise: Exercise, student: str, secret: Optional[str]) -> str:
    """The starting file of ``student`` of a :func:`per_student` exercise, drawn with ``secret``."""
    stub = family_of(exercise).stub
    assert stub is not None
    return stub(exercise, student, secret)


def roster_starting_files(exercise: Exercise, students: list[str],
                          secret: Optional[str]) -> dict[str, str]:
    """Every student's starting file, drawn for the roster as a whole where the family can
    (so classmates get variants that differ), else each student's own."""
    roster_stubs = family_of(exercise).roster_stubs
    if roster_stubs is None:
        return {student: student_starting_file(exercise, student, secret) for student in students}
    return roster_stubs(exercise, students, secret)


def ship_course_family(directory: Path, exercise: Exercise) -> None:
    """A course's own family goes beside the spec, in ``families/NAME/``, where loading the
    spec on the grading host finds it (instructor code, readable like the spec)."""
    folder = course_folder(exercise.family)
    if folder is not None:
        shutil.copytree(folder, directory / COURSE_FOLDER / exercise.family, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def write_executable(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)


def install_script(version: str, target: WheelTarget, *, default_venv: str,
                   venv_from_root: bool = False, protect_bundle: bool = False) -> str:
    """The offline install script (Gradescope's ``setup.sh``, the image's and Classroom's
    ``install.sh``). ``protect_bundle``: end by making the script's directory root-only."""
    return render_template(
        INSTALL_TEMPLATE, version=version, default_venv=default_venv,
        default_venv_from_root=venv_from_root, python_version=target_python(target),
        protect_bundle=protect_bundle,
    )


def target_python(target: WheelTarget) -> str:
    """The ``3.x`` version the wheels are for (this interpreter's for a local target)."""
    return target.python_version or f"{sys.version_info.major}.{sys.version_info.minor}"
