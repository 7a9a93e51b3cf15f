"""The Gradescope autograder zip: ``setup.sh``, ``run_autograder`` and everything they need.

Gradescope unzips the bundle into ``/autograder/source``, runs ``setup.sh`` once to build the
image (here: an offline install from ``wheels/``), then ``run_autograder`` per submission.
``run_autograder`` hands over to ``entrypoint.py``, which runs ``grade submit --format
gradescope`` (``--strict-sandbox`` unless the bundle was built with ``best-effort``) and
always writes ``/autograder/results/results.json``. A ``Dockerfile`` in the zip builds the
same thing for Gradescope's manual Docker option.
"""

from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from grader.bundles.common import (
    SEED_SECRET_NAME,
    BundleError,
    install_script,
    per_student,
    render_template,
    write_executable,
    chosen_student_id,
    write_grading_files,
)
from grader.bundles.starters import starters_readme
from grader.bundles.wheels import (
    WheelSet,
    WheelSources,
    WheelTarget,
    collect_wheels,
    wheel_version,
)
from grader.spec import Exercise

EXECUTABLES = ("setup.sh", "run_autograder", "entrypoint.py")
README_FILE = "README.md"  # how each student of a per-student exercise gets their own file


@dataclass
class GradescopeBundle:
    """What was built: the zip and its wheel set."""

    path: Path
    wheels: WheelSet
    size_bytes: int
    members: list[str]


def build_gradescope_bundle(
    exercise: Exercise,
    output: Path,
    *,
    target: WheelTarget = WheelTarget(),
    sources: WheelSources = WheelSources(),
    sandbox: str = "strict",
    seed_secret: Optional[str] = None,
    student_id: Optional[str] = None,
) -> GradescopeBundle:
    """Write the autograder zip for ``exercise`` to ``output``, grading with ``seed_secret``
    (see :func:`grader.bundles.common.bundle_secret`)."""
    if output.suffix != ".zip":
        raise BundleError(f"{output}: Gradescope expects a .zip file")
    if not output.parent.is_dir():
        raise BundleError(f"the directory {output.parent} does not exist")
    with tempfile.TemporaryDirectory(prefix="bpe-gradescope-") as scratch:
        staging = Path(scratch) / "bundle"
        wheels = stage_gradescope_bundle(staging, exercise, target=target, sources=sources,
                                         sandbox=sandbox, seed_secret=seed_secret,
                                         student_id=student_id)
        members = write_zip(staging, output)
    return GradescopeBundle(path=output, wheels=wheels, size_bytes=output.stat().st_size,
                            members=members)


def stage_gradescope_bundle(
    directory: Path, exercise: Exercise, *, target: WheelTarget, sources: WheelSources,
    sandbox: str, seed_secret: Optional[str] = None, student_id: Optional[str] = None,
) -> WheelSet:
    """Lay out the bundle's files in ``directory`` (the future ``/autograder/source``); a
    submitter is named by the course's ``student_id`` setting (:func:`chosen_student_id`)."""
    student_id = chosen_student_id(student_id)
    write_grading_files(directory, exercise, sandbox=sandbox, seed_secret=seed_secret,
                        student_id=student_id)
    if per_student(exercise):
        (directory / README_FILE).write_text(
            starters_readme(exercise, "gradescope", SEED_SECRET_NAME, student_id),
            encoding="utf-8")
    wheels = collect_wheels(directory / "wheels", target, sources)
    version = wheel_version(wheels.project_wheel)
    write_executable(
        directory / "setup.sh",
        install_script(version, target, default_venv="$AUTOGRADER_ROOT/bpe-venv", venv_from_root=True,
                       protect_bundle=True),
    )
    write_executable(
        directory / "run_autograder",
        render_template("gradescope/run_autograder.j2", student_file=exercise.student_file),
    )
    (directory / "Dockerfile").write_text(
        render_template("gradescope/Dockerfile.j2", exercise_id=exercise.id), encoding="utf-8"
    )
    return wheels


def write_zip(directory: Path, output: Path) -> list[str]:
    """Zip ``directory``'s contents at the archive root, keeping the scripts executable."""
    partial = output.with_name(output.name + ".partial")
    members = []
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(directory.rglob("*")):
            if not path.is_file():
                continue
            name = path.relative_to(directory).as_posix()
            info = zipfile.ZipInfo.from_file(path, name)
            info.compress_type = zipfile.ZIP_DEFLATED
            mode = 0o755 if path.name in EXECUTABLES else 0o644
            info.external_attr = (0o100000 | mode) << 16
            archive.writestr(info, path.read_bytes())
            members.append(name)
    partial.replace(output)
    return members
