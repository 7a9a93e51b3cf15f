"""A pytest fixture to run a command (typically ``grade submit``) in each environment a grader
meets: as root on the host, as an ordinary user on the host, in a default Docker container,
and in one on a cgroup-v2-only host.

    from support.fixtures import platform_env  # noqa: F401  (makes the fixture available)

    def test_grades_everywhere(platform_env, tmp_path):
        done = subprocess.run(platform_env([GRADE, "submit", str(student)]), ...)
        assert done.returncode == 0, platform_env.name

An environment this host cannot provide is skipped with the reason.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import pytest

from .container import container_available, container_command, remove_leftover_cgroups

NOBODY = 65534
PLATFORM_ENVS = ("host-root", "host-nobody", "container", "container-cgroup-v2")


@dataclass(frozen=True)
class PlatformEnv:
    """Call it with an argv to get the argv that runs in this environment."""

    name: str
    prefix: Callable[[Sequence[str]], list[str]]

    def __call__(self, argv: Sequence[str | os.PathLike]) -> list[str]:
        return self.prefix([os.fspath(arg) for arg in argv])


def _as_nobody(argv: Sequence[str]) -> list[str]:
    return [shutil.which("setpriv") or "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
            "--clear-groups", "--", *argv]


ENVIRONMENTS = {
    "host-root": lambda argv: list(argv),
    "host-nobody": _as_nobody,
    "container": lambda argv: container_command(argv),
    "container-cgroup-v2": lambda argv: container_command(argv, cgroup_v2_only=True),
}


@functools.lru_cache(maxsize=None)
def environment_unavailable(name: str) -> str | None:
    """None when environment ``name`` works here, else the reason to skip."""
    if name == "container":
        return container_available()
    if name == "container-cgroup-v2":
        return container_available(cgroup_v2_only=True)
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return f"{name} needs a Linux host and a root test run"
    if name == "host-nobody":
        if not shutil.which("setpriv"):
            return "host-nobody needs setpriv (util-linux)"
        # The grader itself must be readable by that user: a checkout in a directory only
        # root can enter (root's home, a mktemp -d folder) is not, and neither is its venv.
        grade = os.path.join(os.path.dirname(sys.executable), "grade")
        done = subprocess.run(_as_nobody([grade, "--version"]),
                              capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            return (f"host-nobody: uid {NOBODY} cannot run the grader installed at {grade} "
                    f"({done.stderr.strip().splitlines()[-1:] or done.returncode}); install "
                    "it where an ordinary user can read it to test that environment")
    return None


def entered(name: str) -> Iterator[PlatformEnv]:
    """The body of a fixture giving environment ``name`` to a test (``yield from``): skipped
    with the reason when the host cannot provide it; the cgroups a cgroup-v2 container left
    removed after the test."""
    reason = environment_unavailable(name)
    if reason:
        pytest.skip(reason)
    yield PlatformEnv(name, ENVIRONMENTS[name])
    if name == "container-cgroup-v2":
        remove_leftover_cgroups()


@pytest.fixture(params=PLATFORM_ENVS)
def platform_env(request) -> PlatformEnv:
    """A :class:`PlatformEnv` per environment in :data:`PLATFORM_ENVS`."""
    yield from entered(request.param)
