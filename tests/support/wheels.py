"""Bundle tests share the wheels they build: one real ``collect_wheels`` per target and sources.

A test module that builds bundles imports the fixture (``from support.wheels import
shared_wheels``); it applies itself to the module's tests.

Building the project's wheel and downloading its dependencies costs each bundle about ten
seconds, and every bundle of one test run gets the same wheels. The first bundle of a test
process builds them for real (``tests/bundles/test_bundle_wheels.py`` tests the function
itself, unwrapped); later bundles for the same target and sources get a copy. A build that
fails is never remembered.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.bundles import classroom, gradescope, prairielearn
from grader.bundles.wheels import WheelSet, collect_wheels

BUNDLE_MODULES = (classroom, gradescope, prairielearn)


_BUILT: dict[tuple, WheelSet] = {}  # shared by every module that imports the fixture


@pytest.fixture(scope="session", autouse=True)
def shared_wheels(tmp_path_factory):
    def collect_once(directory: Path, target, sources) -> WheelSet:
        key = (repr(target), repr(sources))
        if key not in _BUILT:
            store = tmp_path_factory.mktemp("shared-wheels")
            _BUILT[key] = collect_wheels(store, target, sources)
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
