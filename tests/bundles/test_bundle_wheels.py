"""The wheel set's target logic: pip options, target markers, and requirements left to fetch.

Made-up wheels stand in for downloaded ones: only their names and METADATA matter here.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from grader.bundles.wheels import (
    DEFAULT_PLATFORMS,
    WheelError,
    WheelTarget,
    marker_environment,
    missing_requirements,
    parse_python_version,
)


def make_wheel(directory: Path, name: str, version: str, requires: list[str]) -> Path:
    path = directory / f"{name}-{version}-py3-none-any.whl"
    metadata = "Metadata-Version: 2.1\nName: {}\nVersion: {}\n".format(name, version)
    metadata += "".join(f"Requires-Dist: {line}\n" for line in requires)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{name}-{version}.dist-info/METADATA", metadata)
    return path


@pytest.fixture
def wheel_dir(tmp_path) -> Path:
    make_wheel(tmp_path, "bpe_autograder", "0.1.0", ["hypothesis>=6.90", "click>=8.1"])
    make_wheel(tmp_path, "hypothesis", "6.100.0", [
        "exceptiongroup>=1.0.0; python_full_version < '3.11'",
        "sortedcontainers<3,>=2.1.0",
        "numpy>=1.19; extra == 'numpy'",
        "pywin32; sys_platform == 'win32'",
    ])
    make_wheel(tmp_path, "Click", "8.1.7", [])
    make_wheel(tmp_path, "sortedcontainers", "2.4.0", [])
    return tmp_path


def test_a_requirement_only_the_older_target_needs_is_reported(wheel_dir):
    missing = missing_requirements(wheel_dir, WheelTarget(python_version="3.10"))
    assert missing == ["exceptiongroup>=1.0.0"]


def test_nothing_is_missing_for_a_target_whose_markers_exclude_it(wheel_dir):
    assert missing_requirements(wheel_dir, WheelTarget(python_version="3.12")) == []


def test_names_are_compared_normalized(wheel_dir):
    make_wheel(wheel_dir, "exceptiongroup", "1.2.0", [])
    assert missing_requirements(wheel_dir, WheelTarget(python_version="3.10")) == []


def test_this_interpreter_is_left_to_pip(wheel_dir):
    assert missing_requirements(wheel_dir, WheelTarget.this_interpreter()) == []


def test_marker_environment_describes_a_linux_cpython_host():
    environment = marker_environment(WheelTarget(python_version="3.10", platforms=("manylinux_2_28_aarch64",)))
    assert environment["python_version"] == "3.10" and environment["sys_platform"] == "linux"
    assert environment["platform_machine"] == "aarch64"
    assert marker_environment(WheelTarget())["platform_machine"] == "x86_64"


def test_pip_options_select_binary_wheels_for_the_target():
    options = WheelTarget(python_version="3.10").pip_options()
    assert "--only-binary=:all:" in options
    assert options[options.index("--python-version") + 1] == "3.10"
    assert options[options.index("--abi") + 1] == "cp310"
    platforms = [options[i + 1] for i, option in enumerate(options) if option == "--platform"]
    assert tuple(platforms) == DEFAULT_PLATFORMS
    assert WheelTarget.this_interpreter().pip_options() == ["--only-binary=:all:"]


@pytest.mark.parametrize("text, expected", [("3.10", "3.10"), ("310", "3.10"), (" 3.12 ", "3.12")])
def test_python_versions_are_normalized(text, expected):
    assert parse_python_version(text) == expected


@pytest.mark.parametrize("text", ["2.7", "3.9", "three", "3", "4.0"])
def test_unsupported_python_versions_are_refused(text):
    with pytest.raises(WheelError, match="3.10 or later"):
        parse_python_version(text)


def test_a_wheel_without_metadata_is_reported(tmp_path):
    with zipfile.ZipFile(tmp_path / "broken-1.0-py3-none-any.whl", "w") as archive:
        archive.writestr("broken/__init__.py", "")
    with pytest.raises(WheelError, match="METADATA"):
        missing_requirements(tmp_path, WheelTarget(python_version="3.10"))
