"""Print, as one JSON object, which isolation mechanisms the current process can use.

    python container_probe.py            # facts about wherever it runs
    python -m support.container_probe

Standard library only. Every attempt that could change the process runs in a forked child,
so the probe itself stays as it started. A value is ``"ok"``, an errno name such as
``"EPERM"``, or a fact (a number, a list of lines).
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import socket
import struct
import sys
import tempfile

NOBODY = 65534
CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
AF_VSOCK = 40
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
SYS_CLONE3 = 435
SYS_LANDLOCK_CREATE_RULESET = 444
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_ACCESS_FS_WRITE_FILE = 1 << 1
CAP_SYS_ADMIN = 21
MS_REC = 0x4000
MS_PRIVATE = 0x40000

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def _errno_name(number: int) -> str:
    return errno.errorcode.get(number, str(number))


def _call(result: int) -> str:
    return "ok" if result >= 0 else _errno_name(ctypes.get_errno())


def in_child(action) -> str:
    """Run ``action()`` (returns a short string, or raises) in a forked child; its answer."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        answer = "?"
        try:
            os.close(read_fd)
            answer = str(action())
        except OSError as error:
            answer = _errno_name(error.errno) if error.errno else f"error: {error}"
        except BaseException as error:  # noqa: BLE001
            answer = f"error: {type(error).__name__}: {error}"
        finally:
            os.write(write_fd, answer.encode()[:4000])
            os._exit(0)
    os.close(write_fd)
    data = b""
    while chunk := os.read(read_fd, 4096):
        data += chunk
    os.close(read_fd)
    _, status = os.waitpid(pid, 0)
    return data.decode() if data else f"child died (status {status})"


def status_fields() -> dict[str, str]:
    fields = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key.startswith("Cap") or key in ("NoNewPrivs", "Seccomp", "Uid"):
                fields[key] = value.strip()
    return fields


def unshare(flags: int) -> str:
    return in_child(lambda: _call(libc.unshare(flags)))


def clone3() -> str:
    return _call(libc.syscall(SYS_CLONE3, None, 0))


def make_socket(family: int, kind: int = socket.SOCK_STREAM) -> str:
    def attempt() -> str:
        socket.socket(family, kind).close()
        return "ok"
    return in_child(attempt)


def mount_tmpfs() -> str:
    target = tempfile.mkdtemp(prefix="probe-mount-")
    try:
        def attempt() -> str:
            result = libc.mount(b"none", target.encode(), b"tmpfs", 0, None)
            if result == 0:
                libc.umount2(target.encode(), 2)
            return _call(result)
        def isolated() -> str:
            # A private mount namespace when allowed, so the host's mounts are never touched.
            if libc.unshare(CLONE_NEWNS) == 0:
                libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None)
            return attempt()
        return in_child(isolated)
    finally:
        os.rmdir(target)


def setresuid_nobody() -> str:
    def attempt() -> str:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
        return "ok" if os.getuid() == os.geteuid() == NOBODY else "uid unchanged"
    return in_child(attempt)


def no_new_privs() -> str:
    return in_child(lambda: _call(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)))


def seccomp_by_child() -> str:
    """A child sets no_new_privs and installs a one-instruction allow-all filter."""
    def attempt() -> str:
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return "no_new_privs " + _errno_name(ctypes.get_errno())
        raw = struct.pack("=HBBI", 0x06, 0, 0, 0x7FFF0000)  # ret ALLOW
        buffer = ctypes.create_string_buffer(raw, len(raw))

        class Fprog(ctypes.Structure):
            _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

        prog = Fprog(1, ctypes.cast(buffer, ctypes.c_void_p))
        return _call(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0))
    return in_child(attempt)


def landlock() -> dict[str, str | int]:
    version = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    found: dict[str, str | int] = {
        "abi": version if version >= 0 else _errno_name(ctypes.get_errno())}

    def restrict() -> str:
        attr = ctypes.c_uint64(LANDLOCK_ACCESS_FS_WRITE_FILE)
        fd = libc.syscall(SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), 8, 0)
        if fd < 0:
            return "create_ruleset " + _errno_name(ctypes.get_errno())
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return "no_new_privs " + _errno_name(ctypes.get_errno())
        if libc.syscall(SYS_LANDLOCK_RESTRICT_SELF, fd, 0) != 0:
            return "restrict_self " + _errno_name(ctypes.get_errno())
        try:  # writing any file is now refused
            with open(os.devnull, "w"):
                return "restriction not enforced"
        except PermissionError:
            return "ok"
    found["restrict_self"] = in_child(restrict) if version >= 0 else "skipped"
    return found


def rlimit_nproc() -> str:
    """As nobody with RLIMIT_NPROC at its current process count, is a fork refused?"""
    def attempt() -> str:
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        try:
            pid = os.fork()
        except BlockingIOError:
            return "ok"
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return "fork allowed above the limit"
    return in_child(attempt)


def cgroup_mounts() -> list[str]:
    found = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            before, _, after = line.partition(" - ")
            fields, extra = before.split(), after.split()
            if extra[0] in ("cgroup", "cgroup2"):
                found.append(f"{extra[0]} {fields[4]} {extra[2]} {fields[5]}")
    return found


def _read(path: str) -> str:
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError as error:
        return _errno_name(error.errno)


def _write(path: str, text: str) -> str:
    if not os.path.exists(path):
        return "absent"
    try:
        with open(path, "w") as handle:
            handle.write(text)
        return "ok"
    except OSError as error:
        return _errno_name(error.errno)


def cgroup_v2() -> dict | None:
    """What root can do in the cgroup2 mount at /sys/fs/cgroup (None when there is none)."""
    root = "/sys/fs/cgroup"
    if not any(line.startswith(f"cgroup2 {root} ") for line in cgroup_mounts()):
        return None
    found: dict = {"controllers": _read(f"{root}/cgroup.controllers"),
                   "subtree_control": _read(f"{root}/cgroup.subtree_control"),
                   "own_cgroup": _read("/proc/self/cgroup").splitlines()[-1]}
    found["enable_pids_memory_in_root"] = _write(f"{root}/cgroup.subtree_control",
                                                 "+pids +memory")
    child = f"{root}/probe-{os.getpid()}"
    try:
        os.mkdir(child)
    except OSError as error:
        found["mkdir_child"] = _errno_name(error.errno)
        return found
    try:
        found["mkdir_child"] = "ok"
        found["child_controllers"] = _read(f"{child}/cgroup.controllers")
        found["child_pids.max"] = _write(f"{child}/pids.max", "8")
        found["child_memory.max"] = _write(f"{child}/memory.max", str(64 << 20))
        found["join_child"] = in_child(lambda: _write(f"{child}/cgroup.procs", str(os.getpid())))
    finally:
        os.rmdir(child)
    return found


def cgroup_v1_pids() -> dict | None:
    """What the grader's cgroup v1 layer does: a child of our own pids group, capped, joined."""
    mount = next((line.split() for line in cgroup_mounts()
                  if line.startswith("cgroup ") and "pids" in line.split()[2].split(",")), None)
    if mount is None:
        return None
    own = next(line.split(":", 2)[2] for line in _read("/proc/self/cgroup").splitlines()
               if "pids" in line.split(":")[1].split(","))
    child = os.path.normpath(f"{mount[1]}/{own}/probe-{os.getpid()}")
    found: dict = {"mount": " ".join(mount)}
    try:
        os.mkdir(child)
    except OSError as error:
        found["mkdir_child"] = _errno_name(error.errno)
        return found
    try:
        found["mkdir_child"] = "ok"
        found["child_pids.max"] = _write(f"{child}/pids.max", "8")
        found["join_child"] = in_child(lambda: _write(f"{child}/cgroup.procs", str(os.getpid())))
    finally:
        os.rmdir(child)
    return found


def probe() -> dict:
    status = status_fields()
    effective = int(status["CapEff"], 16)
    bounding = int(status["CapBnd"], 16)
    return {
        "uid": os.getuid(),
        "status": status,
        "cap_sys_admin_effective": bool(effective >> CAP_SYS_ADMIN & 1),
        "cap_sys_admin_bounding": bool(bounding >> CAP_SYS_ADMIN & 1),
        "unshare_user": unshare(CLONE_NEWUSER),
        "unshare_mount": unshare(CLONE_NEWNS),
        "unshare_net": unshare(CLONE_NEWNET),
        "unshare_pid_ipc_uts": unshare(CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS),
        "unshare_cgroup": unshare(CLONE_NEWCGROUP),
        "clone3": clone3(),
        "fork": in_child(lambda: "ok"),
        "socket_vsock": make_socket(AF_VSOCK),
        "socket_inet": make_socket(socket.AF_INET),
        "mount_tmpfs": mount_tmpfs(),
        "setresuid_nobody": setresuid_nobody(),
        "no_new_privs": no_new_privs(),
        "seccomp_by_child": seccomp_by_child(),
        "landlock": landlock(),
        "rlimit_nproc_as_nobody": rlimit_nproc(),
        "cgroup_mounts": cgroup_mounts(),
        "cgroup_v2": cgroup_v2(),
        "cgroup_v1_pids": cgroup_v1_pids(),
    }


if __name__ == "__main__":
    json.dump(probe(), sys.stdout, indent=2)
    sys.stdout.write("\n")
