"""cgroups for one sandbox worker: cap its processes and memory, measure its CPU time from
the trusted side, and kill everything in it at the end.

On cgroup v1 each controller gets a child group under the grader's own group (``pids``,
``memory``, ``cpuacct``). Where no v1 controller is mounted and the grader's own cgroup v2
group is delegated to it (the root of its cgroup namespace, as in a container started with one
of its own and a writable ``/sys/fs/cgroup``, or marked as systemd marks a ``Delegate=yes``
unit), writable, and offers ``pids`` or ``memory``, one v2 child group serves all three:
``pids.max``, ``memory.max`` (no swap), ``cpu.stat``. A group with processes of its own
cannot hand controllers to children, so the grader's processes move first to a leaf group
beside the sandboxes (as docker-in-docker entry points do). A controller that is missing or
not writable is simply left out, and the caller reports the layer as unavailable.
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
V2_CONTROLLERS = ("pids", "memory")
LEAF = "bpe-grader"
"""The v2 group the grader's own processes move to, so that their group may delegate."""


@dataclass
class CgroupSet:
    """The worker's groups; each is a directory path or None when unavailable."""

    pids: str | None = None
    memory: str | None = None
    cpuacct: str | None = None
    unified: bool = False  # one cgroup v2 group stands for every controller

    @classmethod
    def create(cls, pids_max: int, memory_bytes: int) -> CgroupSet:
        name = f"{PREFIX}{os.getpid()}-{next(_serial)}"
        if not any(_v1_mount(controller) for controller in CONTROLLERS):
            return _create_v2(name, pids_max, memory_bytes)
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
        return list(dict.fromkeys(path for path in (self.pids, self.memory, self.cpuacct) if path))

    def procs_files(self) -> tuple[str, ...]:
        return tuple(os.path.join(path, "cgroup.procs") for path in self.directories)

    def cpu_seconds(self) -> float | None:
        """CPU time used so far by every process that was in the group."""
        if not self.cpuacct:
            return None
        if self.unified:
            usage = _keyed(os.path.join(self.cpuacct, "cpu.stat")).get("usage_usec")
            return None if usage is None else usage / 1e6
        try:
            with open(os.path.join(self.cpuacct, "cpuacct.usage")) as handle:
                return int(handle.read()) / 1e9
        except (OSError, ValueError):
            return None

    def oom_kills(self) -> int:
        """How many processes the memory controller killed so far."""
        if not self.memory:
            return 0
        events = "memory.events" if self.unified else "memory.oom_control"
        return _keyed(os.path.join(self.memory, events)).get("oom_kill", 0)

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
    parents = [_own_group_dir(controller) for controller in CONTROLLERS]
    for parent in dict.fromkeys(parents + [_own_v2_parent()]):
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


# --------------------------------------------------------------------------- cgroup v2


def _create_v2(name: str, pids_max: int, memory_bytes: int) -> CgroupSet:
    parent, offered = _delegating_v2_parent()
    if parent is None:
        return CgroupSet()
    settings = {}
    if "pids" in offered:
        settings["pids.max"] = str(pids_max)
    if "memory" in offered:
        settings["memory.max"] = str(memory_bytes)
    path = _make_v2_group(parent, name, settings, optional={"memory.swap.max": "0"}
                          if "memory" in offered else {})
    if path is None:
        return CgroupSet()
    return CgroupSet(pids=path if "pids" in offered else None,
                     memory=path if "memory" in offered else None, cpuacct=path, unified=True)


def _delegating_v2_parent() -> tuple[str | None, list[str]]:
    """The grader's own v2 group once it hands ``pids`` and ``memory`` (those it has) to its
    children, and those controllers; None and none where it cannot."""
    parent = _own_v2_parent()
    if parent is None or not os.access(parent, os.W_OK) or not _delegated(parent):
        return None, []
    wanted = [c for c in V2_CONTROLLERS if c in _words(os.path.join(parent, "cgroup.controllers"))]
    control = os.path.join(parent, "cgroup.subtree_control")
    missing = [c for c in wanted if c not in _words(control)]
    if not wanted:
        return None, []
    if missing and not _enable(control, missing):
        # Processes in the group itself keep it from delegating: move them to a leaf first.
        leaf = os.path.join(parent, LEAF)
        try:
            os.makedirs(leaf, exist_ok=True)
            for pid in sorted(_read_pids(os.path.join(parent, "cgroup.procs"))):
                try:
                    join(os.path.join(leaf, "cgroup.procs"), pid)
                except OSError:
                    pass  # gone, or a kernel thread
        except OSError:
            return None, []
        if not _enable(control, missing):
            return None, []
    return parent, wanted


def _delegated(directory: str) -> bool:
    """Whether the group is the grader's to divide: the root of its cgroup namespace (a
    container's own), or marked delegated as systemd marks a ``Delegate=yes`` unit. A group
    some manager keeps for itself (a login session's scope) is left alone."""
    for name in ("trusted.delegate", "user.delegate"):
        try:
            if os.getxattr(directory, name) == b"1":
                return True
        except (OSError, AttributeError):
            pass
    return _own_v2_path() in ("/", f"/{LEAF}")


def _enable(control: str, controllers: list[str]) -> bool:
    try:
        with open(control, "w") as handle:
            handle.write(" ".join(f"+{c}" for c in controllers))
        return True
    except OSError:
        return False


def _make_v2_group(parent: str, name: str, settings: dict[str, str],
                   optional: dict[str, str]) -> str | None:
    path = os.path.join(parent, name)
    try:
        os.mkdir(path)
        for key, value in settings.items():
            with open(os.path.join(path, key), "w") as handle:
                handle.write(value)
    except OSError:
        _rmdir_quietly(path)
        return None
    for key, value in optional.items():
        try:
            with open(os.path.join(path, key), "w") as handle:
                handle.write(value)
        except OSError:
            pass
    return path


def _own_v2_parent() -> str | None:
    """The directory of this process's cgroup v2 group (its leaf's parent once it has moved
    to :data:`LEAF`), where a cgroup2 file system is mounted."""
    own = _own_v2_path()
    try:
        with open("/proc/self/mountinfo") as handle:
            mounts = handle.read().splitlines()
    except OSError:
        return None
    if own is None:
        return None
    for line in mounts:
        before, _, after = line.partition(" - ")
        fields, extra = before.split(), after.split()
        if extra and extra[0] == "cgroup2" and own.startswith(fields[3]):
            directory = os.path.normpath(
                os.path.join(fields[4], os.path.relpath(own, fields[3])))
            if os.path.basename(directory) == LEAF:
                directory = os.path.dirname(directory)
            return directory if os.path.isdir(directory) else None
    return None


def _own_v2_path() -> str | None:
    """This process's cgroup v2 path, as its cgroup namespace shows it."""
    try:
        with open("/proc/self/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    return next((line[3:] for line in lines if line.startswith("0::")), None)


def _words(path: str) -> list[str]:
    try:
        with open(path) as handle:
            return handle.read().split()
    except OSError:
        return []


def _keyed(path: str) -> dict[str, int]:
    """A flat keyed file (``key value`` lines) as integers."""
    found: dict[str, int] = {}
    try:
        with open(path) as handle:
            for line in handle:
                key, _, value = line.partition(" ")
                try:
                    found[key] = int(value)
                except ValueError:
                    pass
    except OSError:
        pass
    return found


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
