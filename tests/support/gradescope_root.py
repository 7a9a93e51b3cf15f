"""An ``/autograder``-like root in the simulated default Docker container, shared by the tests
of one test process that grade through Gradescope bundles.

    def test_grades(gradescope_root):                 # the fixture (tests/conftest.py)
        results = run_autograder(gradescope_root, {"student.py": path})
        hand = add_bundle(gradescope_root, "hand-bpe", "source-hand", seed_secret="s")
        results = run_autograder(gradescope_root, {"answers.yaml": path}, source=hand)

The root holds the bpe-train-encode bundle in ``source/``, set up by its own ``setup.sh`` in
the container as Gradescope sets up an image (an offline install into ``bpe-venv``, then the
source made root-only), and a best-effort copy of that source in ``source-best-effort/``.
Every further bundle is unzipped beside them and set up by its own ``setup.sh`` too, which
finds the grader already installed in ``bpe-venv`` from the same wheels (pip has nothing left
to install) and protects that bundle's source. ``run_autograder`` runs the bundle's
``run_autograder`` script in the container, as Gradescope runs it for each submission, with
``BPE_AUTOGRADER_SOURCE`` naming the bundle. A module using the root imports ``shared_wheels``
(``support/wheels.py``), as every module building bundles does, and runs its tests using the
root in the xdist group of ``tests/bundles/test_bundle_hosts.py``, so that the process setting
the root up once grades through it for all of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Iterator

import pytest

from . import container  # looked up at each call: the suite's census wraps its functions
from .host import host_environment

EXERCISE = "bpe-train-encode"
STRICT, BEST_EFFORT = "source", "source-best-effort"
NOBODY = 65534
SCHEMAS = Path(__file__).parents[1] / "schemas"
# A proxy nobody listens on: any attempt by pip to reach the network fails at once.
NO_NETWORK = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9",
              "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9",
              "PIP_NO_INDEX": "1"}
METADATA = "submission_metadata.json"


def need_container() -> None:
    reason = container.container_available()
    if reason:
        pytest.skip(reason)


def open_directory(prefix: str) -> Path:
    """A directory every user can traverse, so that only the bundle's own modes protect it."""
    directory = Path(tempfile.mkdtemp(prefix=prefix))
    directory.chmod(0o755)
    return directory


def readable_by_nobody(path: Path) -> bool:
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("reading as uid 65534 needs root and setpriv")
    done = subprocess.run([setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                           "--", sys.executable, "-I", "-c", f"open({str(path)!r}).read()"],
                          capture_output=True, text=True, timeout=60)
    return done.returncode == 0


@pytest.fixture(scope="session")
def gradescope_root() -> Iterator[Path]:
    """The root with the bpe-train-encode bundle set up (see the module's docstring)."""
    need_container()
    root = open_directory("bpe-gs-")
    try:
        unzip_bundle(root, EXERCISE, STRICT)
        best_effort = root / BEST_EFFORT
        shutil.copytree(root / STRICT, best_effort)
        config = json.loads((best_effort / "bundle.json").read_text())
        (best_effort / "bundle.json").write_text(json.dumps(dict(config, strict_sandbox=False)))
        spec = root / STRICT / config["exercise_file"]
        assert readable_by_nobody(spec), \
            "before set-up the spec is readable: the check below is real"
        set_up(root, STRICT)
        shutil.copy(root / STRICT / "run_autograder", root / "run_autograder")
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def add_bundle(root: Path, exercise_id: str, name: str, **options) -> str:
    """The bundle of ``exercise_id`` (built with ``options``) unzipped into ``root/name`` and
    set up by its own ``setup.sh``; returns ``name``, for ``run_autograder``'s ``source``."""
    shutil.rmtree(root / name, ignore_errors=True)
    unzip_bundle(root, exercise_id, name, **options)
    config = json.loads((root / name / "bundle.json").read_text())
    spec = root / name / config["exercise_file"]
    assert readable_by_nobody(spec), "before set-up the spec is readable: the check below is real"
    set_up(root, name)
    assert not readable_by_nobody(spec), "setup.sh makes the bundle's source root-only"
    return name


def unzip_bundle(root: Path, exercise_id: str, name: str, **options) -> None:
    """Build the bundle for this interpreter and unzip it into ``root/name`` as ``unzip``
    does, keeping the scripts' modes."""
    from grader.bundles.common import BundleError
    from grader.bundles.gradescope import build_gradescope_bundle
    from grader.bundles.wheels import WheelError, WheelTarget
    from grader.spec import load_exercise

    zip_path = root / f"{name}.zip"
    try:
        build_gradescope_bundle(load_exercise(exercise_id), zip_path,
                                target=WheelTarget.this_interpreter(), **options)
    except (BundleError, WheelError) as error:
        pytest.skip(f"cannot obtain the bundle's wheels: {error}")
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            archive.extract(info, root / name)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                (root / name / info.filename).chmod(mode)
    zip_path.unlink()


def set_up(root: Path, name: str) -> None:
    """Run ``root/name/setup.sh`` in the container, offline, as Gradescope runs it."""
    environment = dict(host_environment(), AUTOGRADER_ROOT=str(root),
                       BPE_AUTOGRADER_PYTHON=sys.executable, **NO_NETWORK)
    environment.pop("BPE_AUTOGRADER_VENV", None)
    done = subprocess.run(container.container_command(["bash", str(root / name / "setup.sh")]),
                          env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def run_autograder(root: Path, files: dict, *, source: str = STRICT, venv: str | None = None,
                   metadata: dict | None = None) -> dict:
    """Grade ``files`` (name in the submission -> path) with the bundle in ``root/source``:
    its ``run_autograder`` in the container; the results, checked against Gradescope's
    schema. ``metadata``: the ``submission_metadata.json`` Gradescope writes (none without)."""
    import jsonschema

    submission = root / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir()
    for name, path in files.items():
        shutil.copy(path, submission / name)
    (root / METADATA).unlink(missing_ok=True)
    if metadata is not None:
        (root / METADATA).write_text(json.dumps(metadata))
    results_file = root / "results" / "results.json"
    results_file.unlink(missing_ok=True)
    environment = dict(host_environment(), AUTOGRADER_ROOT=str(root),
                       BPE_AUTOGRADER_SOURCE=str(root / source), **NO_NETWORK)
    environment.pop("BPE_AUTOGRADER_VENV", None)
    if venv:
        environment["BPE_AUTOGRADER_VENV"] = venv
    # Gradescope runs the copy of the bundle's script at the root; for the other bundles here,
    # their own (the same text, but for a comment naming the exercise's file).
    script = root / ("run_autograder" if source in (STRICT, BEST_EFFORT)
                     else f"{source}/run_autograder")
    done = subprocess.run(container.container_command(["bash", str(script)]),
                          env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(results_file.read_text())
    schema = json.loads((SCHEMAS / "gradescope_results.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(results)
    return results
