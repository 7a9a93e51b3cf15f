"""Bundle tests share the wheels they build: one real ``collect_wheels`` per target and sources
in a whole test run.

A test module that builds bundles imports the fixture (``from support.wheels import
shared_wheels``); it applies itself to the module's tests.

Building the project's wheel and downloading its dependencies costs each bundle about ten
seconds, and every bundle of one test run gets the same wheels. The first bundle of the run
builds them for real (``tests/bundles/test_bundle_wheels.py`` tests the function itself,
unwrapped), in a folder every test process of the run can see (the parent of the xdist
workers' temporary folders), under a file lock; later bundles for the same target and
sources, in any process, get a copy. A build that fails is never remembered.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from grader.bundles import classroom, gradescope, prairielearn
from grader.bundles.wheels import WheelSet, collect_wheels

BUNDLE_MODULES = (classroom, gradescope, prairielearn)


_BUILT: dict[tuple, WheelSet] = {}  # shared by every module that imports the fixture


def run_folder(tmp_path_factory) -> Path:
    """A folder of this test run only, shared by its xdist workers."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(folder: Path, key: tuple, build) -> WheelSet:
    """``build(directory)`` run once per ``key`` among the processes sharing ``folder``."""
    name = "shared-wheels-" + hashlib.sha256(repr(key).encode()).hexdigest()[:16]
    store, listing = folder / name, folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if listing.is_file():
            saved = json.loads(listing.read_text())
            return WheelSet(directory=store, project_wheel=store / saved["project_wheel"],
                            wheels=[store / wheel for wheel in saved["wheels"]])
        shutil.rmtree(store, ignore_errors=True)  # a build that failed half-way
        built = build(store)
        listing.write_text(json.dumps({"project_wheel": built.project_wheel.name,
                                       "wheels": [wheel.name for wheel in built.wheels]}))
        return built


@pytest.fixture(scope="session", autouse=True)
def shared_wheels(tmp_path_factory):
    folder = run_folder(tmp_path_factory)

    def collect_once(directory: Path, target, sources) -> WheelSet:
        key = (repr(target), repr(sources))
        if key not in _BUILT:
            _BUILT[key] = built_once(folder, key,
                                     lambda store: collect_wheels(store, target, sources))
        first = _BUILT[key]
        directory.mkdir(parents=True, exist_ok=True)
        copies = [Path(shutil.copy2(wheel, directory / wheel.name)) for wheel in first.wheels]
        return WheelSet(directory=directory, project_wheel=directory / first.project_wheel.name,
                        wheels=copies)

    patch = pytest.MonkeyPatch()
    for module in BUNDLE_MODULES:
        patch.setattr(module, "collect_wheels", collect_once)
    yield
    patch.undo()
