"""The guarantees strict mode stands on, checked from inside a call: with the layers this host
has, and as in a default container on a cgroup-v2-only host (no namespaces, no cgroups), where
seccomp, Landlock, the dedicated uid, rlimits and the fork server must give them alone."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from grader.sandbox import guarantees
from grader.sandbox import landlock as sandbox_landlock
from grader.sandbox.api import Sandbox, SandboxLimits, probe_layers

LAYERS = probe_layers()
LIMITS = SandboxLimits(call_seconds=3.0, memory_mib=192, total_seconds=60.0, max_processes=16)
CONTAINER_LIKE = {"network-namespace": False, "pid-namespace": False, "mount-isolation": False,
                  "pids-cgroup": False, "memory-cgroup": False,
                  "chroot-root": bool(LAYERS["uid-drop"])}  # a root grader in a container
REPOSITORY = Path(__file__).resolve().parents[2]

PROBES = '''
import errno
import json
import os
import socket
import sys
import time

FAMILIES = {"inet": 2, "inet6": 10, "netlink": 16, "packet": 17, "vsock": 40, "bluetooth": 31,
            "unix": 1}


def sockets():
    """For each family: "ok" when a socket could be made, else the errno name."""
    found = {}
    for name, family in FAMILIES.items():
        kind = socket.SOCK_RAW if name in ("netlink", "packet") else socket.SOCK_STREAM
        try:
            socket.socket(family, kind).close()
            found[name] = "ok"
        except OSError as error:
            found[name] = errno.errorcode.get(error.errno, str(error.errno))
    try:
        left, right = socket.socketpair()
        left.sendall(b"x")
        found["socketpair"] = right.recv(1).decode()
    except OSError as error:
        found["socketpair"] = errno.errorcode.get(error.errno, str(error.errno))
    return found


def readable(paths):
    found = {}
    for path in paths:
        try:
            with open(path, "rb") as handle:
                found[path] = len(handle.read(16)) > 0
        except OSError:
            found[path] = False
    return found


def signal_to(pid):
    try:
        os.kill(pid, 0)
        return "ok"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))


def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def spin_in_a_grandchild_and_forge(seconds):
    """Burn CPU in a child that is never waited for, then forge a frame claiming no CPU."""
    read_fd, write_fd = os.pipe()
    if os.fork() == 0:
        os.close(read_fd)
        spin(seconds)
        os._exit(0)
    os.close(write_fd)
    os.read(read_fd, 1)  # returns when the child exits; no CPU spent waiting
    frame = json.dumps({"status": "ok", "value": "forged", "cpu": 0.0}).encode()
    for fd in range(3, 32):
        try:
            os.write(fd, len(frame).to_bytes(4, "big") + frame)
        except OSError:
            pass
    os._exit(0)


def threads(count):
    import threading

    started = 0
    for _ in range(count):
        try:
            threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
            started += 1
        except RuntimeError:
            break
    return started


def import_from(paths, name):
    """Import ``name`` after putting ``paths`` on the path: "ok", or the error's type."""
    import importlib

    sys.path.extend(paths)
    try:
        importlib.import_module(name)
        return "ok"
    except Exception as error:
        return type(error).__name__


def neighbours(pid):
    # What a call may do to another process by pid, and to itself: each errno name or "ok".
    import resource

    found = {}
    for name, action in (
        ("prlimit-other", lambda: resource.prlimit(pid, resource.RLIMIT_NPROC, (0, 0))),
        ("setpriority-other", lambda: os.setpriority(os.PRIO_PROCESS, pid, 19)),
        ("setpriority-user", lambda: os.setpriority(os.PRIO_USER, 0, 19)),
        ("affinity-other", lambda: os.sched_setaffinity(pid, {0})),
        ("prlimit-self", lambda: resource.prlimit(0, resource.RLIMIT_NOFILE)),
        ("nice-self", lambda: os.nice(1)),
    ):
        try:
            action()
            found[name] = "ok"
        except OSError as error:
            found[name] = errno.errorcode.get(error.errno, str(error.errno))
    return found
'''


@pytest.fixture(params=["as-probed", "container-like"])
def box(request, tmp_path: Path):
    path = tmp_path / "student.py"
    path.write_text(textwrap.dedent(PROBES))
    with Sandbox(path, limits=LIMITS) as opened:
        if request.param == "container-like":
            opened.layers = {**opened.layers, **CONTAINER_LIKE}
        assert opened.load().ok
        yield opened


@pytest.mark.skipif(not LAYERS["seccomp"], reason="the seccomp layer is unavailable here")
def test_no_socket_but_af_unix(box):
    found = box.call("sockets", []).value
    assert found.pop("unix") == "ok" and found.pop("socketpair") == "x"
    assert found == dict.fromkeys(["inet", "inet6", "netlink", "packet", "vsock", "bluetooth"],
                                  "EPERM")


@pytest.mark.skipif(not LAYERS["seccomp"], reason="the seccomp layer is unavailable here")
def test_a_call_cannot_cap_or_deprioritise_another_process(box):
    # The pid of a process of the grader's: a classmate's sandbox would be no different.
    found = box.call("neighbours", [os.getpid()]).value
    assert found == {"prlimit-other": "EPERM", "setpriority-other": "EPERM",
                     "setpriority-user": "EPERM", "affinity-other": "EPERM",
                     "prlimit-self": "ok", "nice-self": "ok"}, found


@pytest.mark.skipif(not (LAYERS["landlock"] or LAYERS["mount-isolation"]),
                    reason="neither Landlock nor mount isolation here")
def test_spec_reference_grader_and_other_processes_are_out_of_reach(box):
    paths = [str(REPOSITORY / "exercises" / "bpe-train-encode.yaml"),
             str(REPOSITORY / "reference" / "plain.py"),
             str(REPOSITORY / "grader" / "sandbox" / "api.py"),
             os.path.join(box.directory, "home", "student.py"),
             f"/proc/{os.getpid()}/cmdline", f"/proc/{os.getpid()}/environ", "/proc/1/cmdline",
             "/etc/shadow", "/etc/passwd"]
    assert box.call("readable", [paths]).value == dict.fromkeys(paths, False)
    # The standard library itself stays readable.
    assert box.call("readable", [[os.__file__.replace(".pyc", ".py")]]).kind == "ok"


@pytest.mark.skipif(not guarantees.providers(LAYERS)["imports-confined"],
                    reason="nothing here confines imports")
def test_only_the_allowed_modules_can_be_imported_wherever_the_call_looks(box):
    import yaml  # installed beside the grader, not allowed by any exercise

    installed = os.path.dirname(os.path.dirname(yaml.__file__))
    paths = [installed, "/usr/lib/python3/dist-packages", "/usr/local/lib/python3/dist-packages"]
    assert box.call("import_from", [paths, "yaml"]).value in ("ModuleNotFoundError",
                                                             "PermissionError", "ImportError")
    assert box.call("import_from", [[], "json"]).value == "ok"


@pytest.mark.skipif(not (LAYERS["uid-drop"] or LAYERS["pid-namespace"]
                         or (LAYERS["landlock"] and sandbox_landlock.abi() >= 6)),
                    reason="nothing here keeps a call from signalling the grader")
def test_the_grader_cannot_be_signalled(box):
    assert box.call("signal_to", [os.getpid()]).value in ("EPERM", "ESRCH")


def test_cpu_time_is_measured_by_the_trusted_side(box):
    if not box.layers.get("pids-cgroup"):
        assert box.layers.get("pids-cgroup") is False  # the fork server's wait4 figures
    outcome = box.call("spin_in_a_grandchild_and_forge", [0.3])
    assert outcome.value == "forged"  # the call's own answer: its value, not its figures
    assert outcome.cpu_seconds is not None and outcome.cpu_seconds >= 0.25


@pytest.mark.skipif(not guarantees.providers(LAYERS)["process-cap"],
                    reason="no process cap here")
def test_threads_and_processes_are_capped_for_the_call(box):
    started = box.call("threads", [100]).value
    assert started < LIMITS.max_processes + 2
    assert box.call("threads", [3]).value == 3  # the next call has the full allowance again


def test_guarantees_name_a_mechanism_for_each_that_holds():
    found = guarantees.providers(LAYERS)
    assert set(found) == {guarantee.name for guarantee in guarantees.GUARANTEES}
    assert found["trusted-cpu"]
    for name, mechanisms in found.items():
        assert all(isinstance(mechanism, str) and mechanism for mechanism in mechanisms), name
    assert guarantees.missing(LAYERS) == [g for g in guarantees.GUARANTEES if not found[g.name]]
