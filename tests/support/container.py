"""Run a command as a default Docker container would, without Docker: as root, but with only
Docker's default capabilities and under Docker's default seccomp profile; optionally on a
cgroup-v2-only view of ``/sys/fs/cgroup``.

    from support.container import container_available, run_in_container

    reason = container_available(cgroup_v2_only=True)
    if reason:
        pytest.skip(reason)
    done = run_in_container(["grade", "submit", "student.py"], cgroup_v2_only=True,
                            capture_output=True, text=True)

The work is done by ``container_launch.py`` (standard library only), which sets everything
up in the new process and then executes the command; its docstring lists the steps. What is
not simulated: Docker's private network, PID, UTS and IPC namespaces, its private root file
system, the masked and read-only ``/proc`` paths, an AppArmor or SELinux profile, and runc's
ENOSYS answer for system calls newer than the profile. The cgroup v1 hierarchies are
kernel-wide, so ``/proc/self/cgroup`` and ``/proc/cgroups`` still list them in the v2-only
variant, and a controller bound to a v1 hierarchy elsewhere on the host is not available in
the cgroup2 mount.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Sequence

LAUNCHER = Path(__file__).with_name("container_launch.py")
PROFILE = Path(__file__).parent / "docker" / "seccomp-default.json"
SETUP_FAILED = 125

__all__ = ["LAUNCHER", "PROFILE", "container_available", "container_command",
           "remove_leftover_cgroups", "run_in_container"]


def container_command(argv: Sequence[str | os.PathLike], *, cgroup_v2_only: bool = False,
                      cgroup_readonly: bool = False) -> list[str]:
    """``argv`` prefixed so that it runs as in a default Docker container.

    ``cgroup_v2_only``: in a private mount namespace whose ``/sys/fs/cgroup`` is a cgroup2 file
    system (no v1 hierarchy mounted), rooted at a fresh cgroup of the command's own through a
    cgroup namespace, as Docker does on cgroup v2 hosts. ``cgroup_readonly`` (only with
    ``cgroup_v2_only``) mounts it read-only, which is what Docker does unless ``--privileged``.
    Exit status 125 means the simulation could not be set up (the reason is on stderr)."""
    if cgroup_readonly and not cgroup_v2_only:
        raise ValueError("cgroup_readonly needs cgroup_v2_only")
    options = []
    if cgroup_v2_only:
        options.append("--cgroup-v2-only")
    if cgroup_readonly:
        options.append("--cgroup-readonly")
    argv = [os.fspath(arg) for arg in argv]
    if not argv:
        raise ValueError("argv is empty")
    return [sys.executable, "-I", str(LAUNCHER), *options, "--profile", str(PROFILE), "--",
            *argv]


def run_in_container(argv: Sequence[str | os.PathLike], *, cgroup_v2_only: bool = False,
                     cgroup_readonly: bool = False,
                     **subprocess_kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run`` of ``argv`` under :func:`container_command`."""
    command = container_command(argv, cgroup_v2_only=cgroup_v2_only,
                                cgroup_readonly=cgroup_readonly)
    return subprocess.run(command, **subprocess_kwargs)


@functools.lru_cache(maxsize=None)
def container_available(*, cgroup_v2_only: bool = False) -> str | None:
    """None when the simulation works on this host, else why not (a pytest skip reason).
    Tried once per variant: a trivial command is run under it."""
    if not sys.platform.startswith("linux"):
        return f"the container simulation needs Linux, this is {sys.platform}"
    if os.geteuid() != 0:
        return "the container simulation needs root (it drops to Docker's capabilities)"
    try:
        done = run_in_container([sys.executable, "-I", "-c", "pass"],
                                cgroup_v2_only=cgroup_v2_only, capture_output=True, text=True,
                                timeout=60)
    except (OSError, subprocess.SubprocessError) as error:
        return f"the container simulation could not start: {error}"
    finally:
        if cgroup_v2_only:
            remove_leftover_cgroups()
    if done.returncode == 0:
        return None
    lines = done.stderr.strip().splitlines() or [f"exit status {done.returncode}"]
    return lines[-1].removeprefix("container-launch: ")


def remove_leftover_cgroups() -> None:
    """Remove the empty cgroups finished cgroup-v2-only runs leave next to this process's own
    cgroup (each launch also removes earlier ones)."""
    if os.geteuid() == 0 and sys.platform.startswith("linux"):
        subprocess.run([sys.executable, "-I", str(LAUNCHER), "--sweep"], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
