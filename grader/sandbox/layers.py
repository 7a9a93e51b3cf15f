"""Host isolation layers for the sandbox worker: which ones this host supports, and setting
them up in the freshly forked worker process just before it executes the interpreter.

Layers (each independent, each used when the host supports it):

- ``process``: the submission runs in a separate interpreter (always).
- ``rlimits``: file size, open files, core dumps and CPU capped (POSIX).
- ``uid-drop``: when the grader is root, the worker runs as an unprivileged uid with no
  groups, one no other open sandbox uses (:mod:`grader.sandbox.uids`).
- ``no-new-privs``: set-uid binaries cannot raise the worker's privileges again.
- ``network-namespace``: a fresh network namespace with no interfaces up.
- ``pid-namespace``: the worker is process 1 of its own PID namespace; it cannot see or
  signal the grader, and every process in it dies with it.
- ``mount-isolation``: a private read-only root file system (a small tmpfs) that shows only
  the interpreter's files, a few devices and the submission, with a tmpfs of its own on
  ``/tmp`` as the only writable place (and one on ``/dev/shm``, for multiprocessing's
  semaphores); the grader, the reference and the exercise specs are simply not there.
- ``chroot-root``: where there is no mount namespace but the grader is root (a default
  Docker container keeps CAP_SYS_CHROOT), the same view from a tree of the interpreter's files
  built once per machine (:mod:`grader.sandbox.chroot_root`), with a sticky ``/dev/shm``
  that each sandbox's own uid keeps private; used only in place of ``mount-isolation``.
- ``pids-cgroup`` / ``memory-cgroup``: cgroup caps on the number of processes and the
  memory of everything the worker starts (v1 groups, or one group of a delegated v2
  subtree: :mod:`grader.sandbox.cgroups`).
- ``seccomp``: a system-call filter refusing calls a submission never needs, and sockets of
  any family but AF_UNIX (x86-64 only).
- ``landlock``: Landlock rules (Linux 5.13+, allowed by Docker's default profile) letting a
  call read only the standard library, system binaries and libraries and a few devices, and
  write only its scratch directory; on newer kernels no TCP, and no signals or abstract
  sockets beyond the call's own processes.
- ``process-rlimit``: RLIMIT_NPROC on the sandbox's uid, the process cap where no pids cgroup
  can be made (it counts every task of that uid, hence a uid per open sandbox).

The probe runs once per grader process in a throw-away fork and never claims a layer it did
not see work. :func:`start_probe` forks it early, so that it runs on another core while the
grader imports and reads the exercise; the first :func:`probe_layers` collects its answer.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import platform
import resource
import shutil
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field

from grader.sandbox import cgroups as sandbox_cgroups
from grader.sandbox import landlock as sandbox_landlock
from grader.sandbox import seccomp as sandbox_seccomp
from grader.sandbox import uids as sandbox_uids
from grader.sandbox.leftovers import TEMP_PREFIX
from grader.sandbox.tree_removal import TreeNotRemoved, remove_tree

LAYER_NAMES = (
    "process",
    "rlimits",
    "uid-drop",
    "no-new-privs",
    "network-namespace",
    "pid-namespace",
    "mount-isolation",
    "chroot-root",
    "pids-cgroup",
    "memory-cgroup",
    "seccomp",
    "landlock",
    "process-rlimit",
)
NOBODY = sandbox_uids.NOBODY
DISABLE_VARIABLE = "GRADE_SANDBOX_DISABLE"
SYSTEM_PYTHON = "/usr/bin/python3"

CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_REMOUNT = 0x20
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MNT_DETACH = 0x2
PR_SET_NO_NEW_PRIVS = 38
PIVOT_ROOT_SYSCALL = {"x86_64": 155, "aarch64": 41}
DEVICES = ("null", "zero", "random", "urandom")
SHARED_MEMORY = "/dev/shm"
SHARED_MEMORY_SIZE = "16m"
# A layer that stands in for another: not missing while the other is active.
STANDS_IN_FOR = {"chroot-root": "mount-isolation"}


class LayerError(OSError):
    """One isolation step failed in the worker's set-up."""


@dataclass(frozen=True)
class ResourceCaps:
    """rlimits applied to the whole worker before it starts."""

    file_bytes: int = 16 << 20
    open_files: int = 64
    cpu_seconds: int = 600


@dataclass
class IsolationPlan:
    """Everything the forked worker does to itself before executing the interpreter."""

    layers: dict[str, bool]
    caps: ResourceCaps = field(default_factory=ResourceCaps)
    new_root: str | None = None  # an empty host directory to mount the private root on
    root_binds: tuple[str, ...] = ()  # host directories shown read-only at the same path
    copies: tuple[tuple[str, str, bool], ...] = ()  # (host file, path in the root, owned by the uid)
    workdir: str = "/home/student"
    chroot: str | None = None  # a tree to chroot into (chroot-root), then chdir to workdir
    cgroup_procs: tuple[str, ...] = ()  # cgroup.procs files to join
    uid: int = NOBODY  # the unprivileged uid to drop to (uid-drop)


# ---------------------------------------------------------------------------------------------
# probing


def probe_layers() -> dict[str, bool]:
    """Which layers this host supports, tried once in a throw-away child process. Layers
    named in ``GRADE_SANDBOX_DISABLE`` (comma-separated) are reported, and used, as missing:
    a way to see what strict mode and the report say on a host without them."""
    working = _working_steps() - disabled_layers()
    return {name: name == "process" or name in working for name in LAYER_NAMES}


def disabled_layers() -> frozenset[str]:
    names = os.environ.get(DISABLE_VARIABLE, "")
    return frozenset(name.strip() for name in names.split(",") if name.strip())


def needs_user_namespace() -> bool:
    """True when namespaces are only reachable through an unprivileged user namespace."""
    return "user-namespace" in _working_steps()


@functools.lru_cache(maxsize=1)
def _working_steps() -> frozenset[str]:
    """Names of the layers (and of the "user-namespace" step) that worked in the probe."""
    if os.name != "posix":
        return frozenset()
    return frozenset(_probe_in_child())


def missing_layers(layers: dict[str, bool], names: Iterable[str] = LAYER_NAMES) -> list[str]:
    """The layers of ``names`` not active in ``layers``, leaving out one whose work another
    active layer does (``chroot-root`` where there is ``mount-isolation``)."""
    return [name for name in names if not layers.get(name, False)
            and not layers.get(STANDS_IN_FOR.get(name, ""), False)]


def layers_notice(layers: dict[str, bool]) -> str | None:
    """One line naming the isolation layers that are not active, or None when all are."""
    missing = missing_layers(layers)
    if not missing:
        return None
    return "sandbox: these isolation layers are unavailable on this host: " + ", ".join(missing)


def sandbox_uid() -> int:
    """The uid the probe drops to: the pinned one, else ``nobody``."""
    pinned = sandbox_uids.pinned_uid()
    return NOBODY if pinned is None else pinned


def tasks_of_uid(uid: int) -> int:
    """Tasks (threads included, as RLIMIT_NPROC counts them) whose real uid is ``uid``."""
    count = 0
    for _, fields in sandbox_uids.processes_of(uid):
        try:
            count += int(fields.get("Threads", "1"))
        except ValueError:
            continue
    return count


def start_probe() -> None:
    """Fork the probe now, unless it has run or is running; :func:`probe_layers` collects it.

    Forking may fail here (no process to spare): the probe then runs when it is needed."""
    if os.name != "posix" or _working_steps.cache_info().currsize or _STARTED:
        return
    try:
        _STARTED.append(_Probe.start())
    except OSError:
        return
    atexit.register(_collect_started)  # a command that ends before grading still cleans up


def _probe_in_child() -> set[str]:
    started = _collect_started()
    return started if started is not None else _Probe.start().collect()


def _collect_started() -> set[str] | None:
    """The started probe's answer (None without one), its processes and files cleaned up."""
    while _STARTED:
        probe = _STARTED.pop()
        if probe.parent == os.getpid():  # a forked copy of this process does not own it
            return probe.collect()
    return None


@dataclass
class _Probe:
    """A probe child under way: its pid, the pipe it answers on, and what to clean up."""

    pid: int
    read_fd: int
    scratch: str
    groups: sandbox_cgroups.CgroupSet
    parent: int

    @classmethod
    def start(cls) -> _Probe:
        # Named after this process, so the next grader removes it if this one is killed.
        scratch = tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-probe-")
        groups = sandbox_cgroups.CgroupSet.create(pids_max=8, memory_bytes=64 << 20)
        try:
            read_fd, write_fd = os.pipe()
            try:
                pid = os.fork()
            except OSError:
                os.close(read_fd)
                os.close(write_fd)
                raise
        except OSError:
            groups.remove()
            _discard(scratch)
            raise
        if pid == 0:  # pragma: no cover - runs in the probe child, which must never return
            try:
                os.close(read_fd)
                # As exec does for a real sandbox child: whatever the grading process holds
                # open (a batch's gradebook, a harness's files) is not the probe's, and under
                # the descriptor cap it would leave no room for the descriptors that Landlock
                # rules and the socket test open.
                os.closerange(3, write_fd)
                os.closerange(write_fd + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
                found = _try_layers(scratch, groups)
                os.write(write_fd, ",".join(name for name, ok in found.items() if ok).encode())
            finally:
                os._exit(0)
        os.close(write_fd)
        return cls(pid, read_fd, scratch, groups, os.getpid())

    def collect(self) -> set[str]:
        data = b""
        try:
            while chunk := os.read(self.read_fd, 4096):
                data += chunk
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass
        finally:
            os.close(self.read_fd)
            self.groups.remove()
            _discard(self.scratch)
        return set(data.decode().split(",")) - {""}


_STARTED: list[_Probe] = []


def _discard(scratch: str) -> None:
    try:
        remove_tree(scratch)
    except TreeNotRemoved:
        pass  # named after this process: the next grader's leftover cleanup tries again


def _try_layers(scratch: str, groups: sandbox_cgroups.CgroupSet) -> dict[str, bool]:
    found: dict[str, bool] = {}
    found["pids-cgroup"] = groups.pids is not None and _attempt(
        lambda: sandbox_cgroups.join(os.path.join(groups.pids, "cgroup.procs"), os.getpid())
    )
    found["memory-cgroup"] = groups.memory is not None and _attempt(
        lambda: sandbox_cgroups.join(os.path.join(groups.memory, "cgroup.procs"), os.getpid())
    )
    root = os.geteuid() == 0
    found["user-namespace"] = not root and _attempt(enter_user_namespace)
    if root or found["user-namespace"]:
        found["network-namespace"] = _attempt(lambda: _unshare(CLONE_NEWNET))
        found["pid-namespace"] = _attempt(
            lambda: _unshare(CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS)
        )
        plan = IsolationPlan(layers={}, new_root=os.path.join(scratch, "root"),
                             root_binds=("/usr",))
        os.mkdir(plan.new_root)
        found["mount-isolation"] = _attempt(
            lambda: (_unshare(CLONE_NEWNS), enter_private_root(plan))
        )
    # In the order apply_plan takes: the descriptor cap after the private root is built.
    found["rlimits"] = _attempt(lambda: apply_rlimits(ResourceCaps()))
    can_chroot = root and _attempt(lambda: os.chroot("/"))  # needs CAP_SYS_CHROOT: before the drop
    found["uid-drop"] = root and _attempt(drop_privileges)
    found["process-rlimit"] = found["uid-drop"] and _attempt(_nproc_is_enforced)
    found["chroot-root"] = (can_chroot and found["uid-drop"] and not found.get("mount-isolation")
                            and shutil.which("ldd") is not None)
    found["no-new-privs"] = _attempt(set_no_new_privs)
    found["landlock"] = found["no-new-privs"] and sandbox_landlock.probe()
    found["seccomp"] = sandbox_seccomp.supported() and _attempt(sandbox_seccomp.install) \
        and sandbox_seccomp.sockets_refused()
    return found


def _nproc_is_enforced() -> None:
    """A process of the dropped uid with RLIMIT_NPROC 0 must be refused a fork."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the probe's grandchild
        code = 1
        try:
            resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
            try:
                grandchild = os.fork()
            except BlockingIOError:
                code = 0
            else:
                if grandchild == 0:
                    os._exit(0)
                os.waitpid(grandchild, 0)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        raise LayerError("RLIMIT_NPROC is not enforced for this uid")


def _attempt(step) -> bool:
    try:
        step()
    except Exception:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# choosing the interpreter


def choose_interpreter(layers: dict[str, bool]) -> str:
    """The interpreter the worker runs: one the unprivileged uid can execute when dropping."""
    if layers.get("uid-drop") and os.access(SYSTEM_PYTHON, os.X_OK):
        return SYSTEM_PYTHON
    if sys.executable and os.access(sys.executable, os.X_OK):
        return sys.executable
    return SYSTEM_PYTHON


def interpreter_binds(interpreter: str) -> tuple[str, ...]:
    """Host directories the interpreter needs, shown read-only inside a private root."""
    binds = ["/usr"]
    for name in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        path = "/" + name
        if os.path.isdir(path) and not os.path.islink(path):
            binds.append(path)
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(interpreter)))
    if not prefix.startswith("/usr/") and prefix not in ("/usr", "/"):
        binds.append(prefix)
    return tuple(dict.fromkeys(binds))


# ---------------------------------------------------------------------------------------------
# the steps, run in the forked worker before exec


def apply_plan(plan: IsolationPlan) -> None:
    """Set up every planned layer; raise :class:`LayerError` naming the step that failed."""
    layers = plan.layers
    for procs in plan.cgroup_procs:
        _step("joining a cgroup", lambda: sandbox_cgroups.join(procs, os.getpid()))
    flags = 0
    if needs_user_namespace() and (
        layers.get("network-namespace") or layers.get("pid-namespace")
        or layers.get("mount-isolation")
    ):
        _step("creating a user namespace", enter_user_namespace)
    if layers.get("network-namespace"):
        flags |= CLONE_NEWNET
    if layers.get("pid-namespace"):
        flags |= CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS
    if layers.get("mount-isolation"):
        flags |= CLONE_NEWNS
    if flags:
        _step("creating namespaces", lambda: _unshare(flags))
    if layers.get("mount-isolation"):
        _step("building the private root", lambda: enter_private_root(plan))
    if plan.chroot is not None:
        _step("entering the private root", lambda: (os.chroot(plan.chroot),
                                                     os.chdir(plan.workdir)))
    # After the private root: until exec closes them, this child holds every descriptor the
    # grading process had open, which can be more than the call's own cap.
    if layers.get("rlimits"):
        _step("setting rlimits", lambda: apply_rlimits(plan.caps))
    if layers.get("uid-drop"):
        _step("dropping to an unprivileged user", lambda: drop_privileges(plan.uid))
    if layers.get("no-new-privs"):
        _step("setting no_new_privs", set_no_new_privs)
    if layers.get("seccomp"):
        _step("installing the system-call filter", sandbox_seccomp.install)


def enter_isolation(plan: IsolationPlan, error_fd: int) -> None:
    """Runs in the forked child before exec: report a failed step on the error pipe."""
    try:
        apply_plan(plan)
    except BaseException as error:
        try:
            os.write(error_fd, str(error).encode("utf-8", "replace")[:2000])
        finally:
            raise


def _step(what: str, action) -> None:
    try:
        action()
    except Exception as error:
        raise LayerError(f"sandbox set-up failed while {what}: {error}") from None


def apply_rlimits(caps: ResourceCaps) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (caps.file_bytes, caps.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (caps.open_files, caps.open_files))
    resource.setrlimit(resource.RLIMIT_CPU, (caps.cpu_seconds, caps.cpu_seconds))


def enter_user_namespace() -> None:
    """Without root: a user namespace mapping only our own uid and gid, which allows the
    other namespaces; the worker keeps its real uid and loses the namespace's capabilities
    when it executes the interpreter."""
    uid, gid = os.getuid(), os.getgid()
    _unshare(CLONE_NEWUSER)
    _write_proc("/proc/self/setgroups", "deny")
    _write_proc("/proc/self/uid_map", f"{uid} {uid} 1")
    _write_proc("/proc/self/gid_map", f"{gid} {gid} 1")


def _write_proc(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def drop_privileges(uid: int | None = None) -> None:
    uid = sandbox_uid() if uid is None else uid
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getuid() != uid or os.geteuid() != uid:
        raise LayerError("the uid did not change")


def set_no_new_privs() -> None:
    if _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        _raise_errno("prctl(PR_SET_NO_NEW_PRIVS)")


def enter_private_root(plan: IsolationPlan) -> None:
    """Mount a small tmpfs, show only the planned paths in it, and make it the root."""
    root = plan.new_root
    if root is None:
        raise LayerError("no directory for the private root")
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,nr_inodes=4096,mode=0755")
    for source in plan.root_binds:
        _bind_read_only(source, root + source)
    for name in ("bin", "lib", "lib32", "lib64", "libx32", "sbin"):
        host = "/" + name
        if os.path.islink(host) and not os.path.lexists(root + host):
            os.symlink(os.readlink(host), root + host)
    for device in DEVICES:
        host = "/dev/" + device
        if os.path.exists(host):
            _bind_file(host, f"{root}/dev/{device}")
    # /tmp: the only writable place, the fork server's scratch directory (emptied per call).
    tmp = root + "/tmp"
    os.makedirs(tmp, exist_ok=True)
    owner = plan.uid if plan.layers.get("uid-drop") else os.getuid()
    _mount("tmpfs", tmp, "tmpfs", MS_NOSUID | MS_NODEV,
           f"size=64m,nr_inodes=4096,mode=0700,uid={owner},gid={owner}")
    # /dev/shm: where multiprocessing makes its semaphores (SemLock), private to this sandbox
    # and emptied with the scratch directory after every call.
    shm = root + SHARED_MEMORY
    os.makedirs(shm, exist_ok=True)
    _mount("tmpfs", shm, "tmpfs", MS_NOSUID | MS_NODEV,
           f"size={SHARED_MEMORY_SIZE},nr_inodes=1024,mode=0700,uid={owner},gid={owner}")
    workdir = root + plan.workdir
    os.makedirs(workdir, exist_ok=True)
    for host_file, inside, owned_by_nobody in plan.copies:
        _copy_in(host_file, root + inside, plan.uid if owned_by_nobody else None)
    os.chmod(workdir, 0o755)
    _mount("none", root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    _pivot_into(root)
    os.chdir(plan.workdir)


def _bind_read_only(source: str, target: str) -> None:
    os.makedirs(target, exist_ok=True)
    _mount(source, target, None, MS_BIND | MS_REC)
    _mount("none", target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _bind_file(source: str, target: str) -> None:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w"):
        pass
    _mount(source, target, None, MS_BIND)


def _copy_in(host_file: str, target: str, owner: int | None) -> None:
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copyfile(host_file, target)
    os.chmod(target, 0o644)
    if owner is not None:
        os.chown(target, owner, owner)


def _pivot_into(root: str) -> None:
    os.chdir(root)
    number = PIVOT_ROOT_SYSCALL.get(platform.machine())
    if number is None:
        raise LayerError(f"pivot_root is not known on {platform.machine()}")
    if _libc().syscall(number, b".", b".") != 0:
        _raise_errno("pivot_root")
    if _libc().umount2(b".", MNT_DETACH) != 0:
        _raise_errno("umount of the old root")
    os.chdir("/")


# ---------------------------------------------------------------------------------------------
# libc


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> None:
    if _libc().unshare(flags) != 0:
        _raise_errno("unshare")


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    result = _libc().mount(
        source.encode(),
        target.encode(),
        fstype.encode() if fstype else None,
        ctypes.c_ulong(flags),
        data.encode() if data else None,
    )
    if result != 0:
        _raise_errno(f"mount {target}")


def _raise_errno(what: str) -> None:
    number = ctypes.get_errno()
    raise LayerError(number, f"{what}: {os.strerror(number)}")
