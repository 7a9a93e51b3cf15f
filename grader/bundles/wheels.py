"""The offline wheel set a bundle ships: the project's wheel, every dependency's, and pip's.

A grading host has no network when it installs the grader (Gradescope runs ``setup.sh``
offline; a PrairieLearn image installs from its build context), so the wheels are built or
downloaded here, for the host's Python version and platform. ``pip download --python-version``
filters wheels by tag but evaluates dependency markers for the running interpreter, so
dependencies that only the target needs (``exceptiongroup`` on 3.10, say) are found by
evaluating the markers for the target and fetched in further rounds.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from email.parser import HeaderParser
from importlib import metadata
from pathlib import Path
from typing import Optional, Sequence

DISTRIBUTION = "bpe-autograder"
DEFAULT_PYTHON_VERSION = "3.10"
# Gradescope's Ubuntu 22.04 (glibc 2.35) and python:3.10-slim both run these wheels.
DEFAULT_PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_28_x86_64")
PIP_ERROR_LINES = 15
MARKER_ROUNDS = 5
_MACHINE = re.compile(r"(x86_64|aarch64|i686|ppc64le|s390x|armv7l)$")
# Parts of a source checkout that are not needed to build the project's wheel.
SOURCE_IGNORE = (".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                 ".pytest_cache", ".hypothesis", "tests", "bench", "examples", "node_modules")


class WheelError(Exception):
    """The wheels cannot be obtained; the message says why and what to do."""


@dataclass(frozen=True)
class WheelTarget:
    """The Python the wheels are for: a version and platforms, or this very interpreter."""

    python_version: Optional[str] = DEFAULT_PYTHON_VERSION
    platforms: tuple[str, ...] = DEFAULT_PLATFORMS

    @classmethod
    def this_interpreter(cls) -> "WheelTarget":
        return cls(python_version=None, platforms=())

    @property
    def is_local(self) -> bool:
        return self.python_version is None

    def describe(self) -> str:
        if self.is_local:
            return f"this interpreter (Python {sys.version_info.major}.{sys.version_info.minor})"
        return f"Python {self.python_version} on {', '.join(self.platforms)}"

    def pip_options(self) -> list[str]:
        """``pip download`` options selecting wheels for this target."""
        options = ["--only-binary=:all:"]
        if self.is_local:
            return options
        abi = "cp" + self.python_version.replace(".", "")
        options += ["--python-version", self.python_version, "--implementation", "cp", "--abi", abi]
        for platform in self.platforms:
            options += ["--platform", platform]
        return options


def parse_python_version(text: str) -> str:
    """``3.10`` from ``3.10`` or ``310``; raise :class:`WheelError` for anything else."""
    cleaned = text.strip()
    if cleaned.isdigit() and len(cleaned) >= 2:
        cleaned = f"{cleaned[0]}.{cleaned[1:]}"
    major, _, minor = cleaned.partition(".")
    if major != "3" or not minor.isdigit() or int(minor) < 10:
        raise WheelError(
            f"unsupported Python version {text!r}: give 3.10 or later, e.g. 3.10 (Gradescope's "
            "Ubuntu 22.04 image)"
        )
    return f"3.{int(minor)}"


@dataclass(frozen=True)
class WheelSources:
    """Where the wheels come from: the package index unless offline, plus local directories."""

    find_links: tuple[Path, ...] = ()
    offline: bool = False
    project_wheel: Optional[Path] = None

    def pip_options(self) -> list[str]:
        options = ["--no-index"] if self.offline else []
        for directory in self.find_links:
            options += ["--find-links", str(directory)]
        return options


@dataclass
class WheelSet:
    """The wheels a bundle ships, and which one is the project's."""

    directory: Path
    project_wheel: Path
    wheels: list[Path] = field(default_factory=list)

    def names(self) -> list[str]:
        return sorted(path.name for path in self.wheels)


# --------------------------------------------------------------------------- wheels


def collect_wheels(directory: Path, target: WheelTarget, sources: WheelSources) -> WheelSet:
    """Fill ``directory`` with the project's wheel, its dependencies' and pip's, for ``target``."""
    directory.mkdir(parents=True, exist_ok=True)
    project_wheel = _project_wheel(directory, sources)
    requirements = [str(project_wheel), "pip"]
    for _ in range(MARKER_ROUNDS):
        _pip("download", "--dest", str(directory), *target.pip_options(), *sources.pip_options(),
             *requirements, what=f"download the dependencies for {target.describe()}")
        requirements = missing_requirements(directory, target)
        if not requirements:
            break
    else:
        raise WheelError(f"the dependencies for {target.describe()} did not settle: {requirements}")
    wheels = sorted(directory.glob("*.whl"))
    _require_pip_wheel(wheels)
    return WheelSet(directory=directory, project_wheel=project_wheel, wheels=wheels)


# --------------------------------------------------------------------------- target markers


def marker_environment(target: WheelTarget) -> Optional[dict[str, str]]:
    """PEP 508 marker values of the target host; None for this interpreter (pip's own view)."""
    if target.is_local:
        return None
    found = _MACHINE.search(target.platforms[0]) if target.platforms else None
    machine = found.group(1) if found else "x86_64"
    full_version = f"{target.python_version}.0"
    return {
        "implementation_name": "cpython",
        "implementation_version": full_version,
        "os_name": "posix",
        "platform_machine": machine,
        "platform_python_implementation": "CPython",
        "platform_release": "",
        "platform_system": "Linux",
        "platform_version": "",
        "python_full_version": full_version,
        "python_version": target.python_version,
        "sys_platform": "linux",
        "extra": "",
    }


def missing_requirements(directory: Path, target: WheelTarget) -> list[str]:
    """Requirements of the wheels in ``directory`` that apply on the target but have no wheel."""
    environment = marker_environment(target)
    if environment is None:
        return []
    Requirement = _requirement_class()
    present = {normalized_name(path.name.split("-")[0]) for path in directory.glob("*.whl")}
    missing: dict[str, str] = {}
    for wheel in sorted(directory.glob("*.whl")):
        for line in requires_dist(wheel):
            requirement = Requirement(line)
            name = normalized_name(requirement.name)
            if name in present or (requirement.marker and not requirement.marker.evaluate(environment)):
                continue
            missing[name] = f"{requirement.name}{requirement.specifier}"
    return sorted(missing.values())


def requires_dist(wheel: Path) -> list[str]:
    """The ``Requires-Dist`` lines of a wheel's metadata."""
    with zipfile.ZipFile(wheel) as archive:
        names = [name for name in archive.namelist() if name.endswith(".dist-info/METADATA")]
        if not names:
            raise WheelError(f"{wheel.name} has no METADATA; it is not a valid wheel")
        text = archive.read(names[0]).decode("utf-8", errors="replace")
    return HeaderParser().parsestr(text).get_all("Requires-Dist") or []


def normalized_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_class():
    try:
        from packaging.requirements import Requirement
    except ImportError:  # pip vendors packaging; pip is needed for bundles anyway
        try:
            from pip._vendor.packaging.requirements import Requirement
        except ImportError:
            raise WheelError(
                "reading dependency markers needs the 'packaging' library: pip install packaging"
            ) from None
    return Requirement


# --------------------------------------------------------------------------- building and fetching


def _project_wheel(directory: Path, sources: WheelSources) -> Path:
    if sources.project_wheel is not None:
        wheel = sources.project_wheel
        if not wheel.is_file() or not wheel.name.startswith("bpe_autograder-") or wheel.suffix != ".whl":
            raise WheelError(f"--project-wheel {wheel}: not a bpe_autograder-*.whl file")
        return Path(shutil.copy2(wheel, directory / wheel.name))
    root = project_source_root()
    if root is None:
        raise WheelError(
            "cannot build the bpe-autograder wheel: this installation has no source checkout "
            "beside it; build one with `pip wheel --no-deps PATH_TO_CHECKOUT` and pass it "
            "with --project-wheel"
        )
    with tempfile.TemporaryDirectory(prefix="bpe-bundle-source-") as scratch:
        # A copy keeps build/ and *.egg-info out of the checkout.
        source = Path(scratch) / "source"
        shutil.copytree(root, source, ignore=shutil.ignore_patterns(*SOURCE_IGNORE), symlinks=True)
        _pip("wheel", "--no-deps", "--wheel-dir", str(directory), *sources.pip_options(), str(source),
             what="build the bpe-autograder wheel", advice=(
                 "Without the package index, give the grader's own wheel with --project-wheel "
                 "FILE (build it once where the index is reachable: pip wheel --no-deps "
                 "PATH_TO_CHECKOUT -w DIR) and its dependencies' wheels with --wheels-from DIR."
                 if sources.offline else None))
    built = sorted(directory.glob("bpe_autograder-*.whl"))
    if not built:
        raise WheelError("pip reported success but wrote no bpe_autograder wheel")
    return built[-1]


def project_source_root() -> Optional[Path]:
    """The checkout this grader runs from, when it is one (editable install or source tree)."""
    root = Path(__file__).resolve().parents[2]
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and f'name = "{DISTRIBUTION}"' in pyproject.read_text(encoding="utf-8"):
        return root
    return None


def _require_pip_wheel(wheels: Sequence[Path]) -> None:
    if not any(path.name.startswith("pip-") for path in wheels):
        raise WheelError("no pip wheel was obtained; the bundle could not install itself offline")


def _pip(*arguments: str, what: str, advice: Optional[str] = None) -> None:
    command = [sys.executable, "-m", "pip", *arguments]
    environment = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    try:
        finished = subprocess.run(command, capture_output=True, text=True, env=environment,
                                  stdin=subprocess.DEVNULL)
    except OSError as error:
        raise WheelError(f"cannot run pip to {what}: {error}") from None
    if finished.returncode != 0:
        detail = "\n".join((finished.stderr or finished.stdout).strip().splitlines()[-PIP_ERROR_LINES:])
        if "No module named pip" in detail:
            detail = f"pip is not installed for {sys.executable}"
        raise WheelError(
            f"pip could not {what}:\n{detail}\n" + (advice or
            "Building a bundle needs the package index, or wheels given with --wheels-from DIR "
            "(with --offline to use nothing else).")
        )


def grader_version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def wheel_version(project_wheel: Path) -> str:
    """The version in a wheel's file name (``bpe_autograder-0.1.0-py3-none-any.whl``)."""
    return project_wheel.name.split("-")[1]


