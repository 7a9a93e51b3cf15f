"""cgroup v1 groups for one sandbox worker: cap its processes and memory, measure its CPU
time from the trusted side, and kill everything in it at the end.

Each controller gets a child group under the grader's own group (``pids``, ``memory``,
``cpuacct``); a controller that is missing or not writable is simply left out, and the
caller reports the layer as unavailable.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass

_serial = itertools.count()
PREFIX = "bpe-sandbox-"  # then the creating grader's pid and a serial number
CONTROLLERS = ("pids", "memory", "cpuacct")


@dataclass
class CgroupSet:
    """The worker's groups; each is a directory path or None when unavailable."""

    pids: str | None = None
    memory: str | None = None
    cpuacct: str | None = None

    @classmethod
    def create(cls, pids_max: int, memory_bytes: int) -> CgroupSet:
        name = f"{PREFIX}{os.getpid()}-{next(_serial)}"
        groups = cls(
            pids=_make_group("pids", name, {"pids.max": str(pids_max)}),
            memory=_make_group(
                "memory",
                name,
                {"memory.limit_in_bytes": str(memory_bytes)},
                optional={"memory.memsw.limit_in_bytes": str(memory_bytes)},
            ),
            cpuacct=_make_group("cpuacct", name, {}),
        )
        return groups

    @property
    def directories(self) -> list[str]:
        return [path for path in (self.pids, self.memory, self.cpuacct) if path]

    def procs_files(self) -> tuple[str, ...]:
        return tuple(os.path.join(path, "cgroup.procs") for path in self.directories)

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by every process that was in the group."""
        if not self.cpuacct:
            return None
        try:
            with open(os.path.join(self.cpuacct, "cpuacct.usage")) as handle:
                return int(handle.read()) / 1e9
        except (OSError, ValueError):
            return None

    def oom_kills(self) -> int:
        """How many processes the memory controller killed so far."""
        if not self.memory:
            return 0
        try:
            with open(os.path.join(self.memory, "memory.oom_control")) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except (OSError, ValueError):
            pass
        return 0

    def members(self) -> set[int]:
        found: set[int] = set()
        for path in self.directories:
            found |= _read_pids(os.path.join(path, "cgroup.procs"))
        return found

    def kill_all(self, seconds: float = 2.0) -> bool:
        """SIGKILL every member until the groups are empty; True when they are."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            members = self.members()
            if not members:
                return True
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.002)
        return not self.members()

    def remove(self) -> None:
        for path in self.directories:
            for _ in range(200):
                try:
                    os.rmdir(path)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.005)


def remove_stale() -> None:
    """Remove empty groups left behind by graders that died without closing their sandbox."""
    for path in stale_groups():
        _rmdir_quietly(path)


def stale_groups() -> list[str]:
    """Groups named after a grader process that no longer exists."""
    found = []
    for controller in CONTROLLERS:
        parent = _own_group_dir(controller)
        try:
            names = os.listdir(parent) if parent else []
        except OSError:
            continue
        for name in names:
            creator = _creator_pid(name)
            if creator is not None and not process_exists(creator):
                found.append(os.path.join(parent, name))
    return found


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _creator_pid(name: str) -> int | None:
    parts = name.split("-")
    if len(parts) == 4 and name.startswith(PREFIX) and parts[2].isdigit():
        return int(parts[2])
    return None


def join(procs_file: str, pid: int) -> None:
    with open(procs_file, "w") as handle:
        handle.write(str(pid))


def _make_group(controller: str, name: str, settings: dict[str, str],
                optional: dict[str, str] | None = None) -> str | None:
    parent = _own_group_dir(controller)
    if parent is None:
        return None
    path = os.path.join(parent, name)
    try:
        os.mkdir(path)
    except OSError:
        return None
    try:
        for key, value in settings.items():
            with open(os.path.join(path, key), "w") as handle:
                handle.write(value)
    except OSError:
        _rmdir_quietly(path)
        return None
    for key, value in (optional or {}).items():
        try:
            with open(os.path.join(path, key), "w") as handle:
                handle.write(value)
        except OSError:
            pass
    return path


def _own_group_dir(controller: str) -> str | None:
    """The directory of this process's group for a v1 controller, if it is mounted."""
    mount = _v1_mount(controller)
    if mount is None:
        return None
    mount_point, mount_root = mount
    try:
        with open("/proc/self/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            relative = os.path.relpath(path, mount_root) if path.startswith(mount_root) else "."
            directory = os.path.normpath(os.path.join(mount_point, relative))
            return directory if os.path.isdir(directory) else None
    return None


def _v1_mount(controller: str) -> tuple[str, str] | None:
    try:
        with open("/proc/self/mountinfo") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    for line in lines:
        before, _, after = line.partition(" - ")
        fields = before.split()
        extra = after.split()
        if len(extra) >= 3 and extra[0] == "cgroup" and controller in extra[2].split(","):
            return fields[4], fields[3]
    return None


def _read_pids(procs_file: str) -> set[int]:
    try:
        with open(procs_file) as handle:
            return {int(line) for line in handle if line.strip()}
    except (OSError, ValueError):
        return set()


def _rmdir_quietly(path: str) -> None:
    try:
        os.rmdir(path)
    except OSError:
        pass
