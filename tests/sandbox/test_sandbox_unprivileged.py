"""The sandbox when the grader is an ordinary user (a student's laptop, a CI runner).

Run as root, the test forks a child that drops to ``nobody`` before touching the sandbox,
probes the layers afresh and grades a small submission twice: with every layer that user
can get, and with only the portable ones (process, channel, timeouts), as on a host
without namespaces. The child reports plain facts back through a pipe. Run as an ordinary
user, the same scenario runs in-process.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import tempfile
import textwrap
import time
import traceback
from pathlib import Path

import pytest

from grader.sandbox import api as sandbox_api
from grader.sandbox import layers as sandbox_layers
from grader.sandbox.api import Sandbox, SandboxLimits, probe_layers

NOBODY = 65534
PR_SET_DUMPABLE = 4
PORTABLE = ("process", "rlimits")
SUBMISSION = """
import os
import time


def add(a, b):
    return a + b


def who():
    return os.getuid()


def sleep(seconds):
    time.sleep(seconds)


def quit():
    os._exit(0)


def detach():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            try:
                os.execv("/bin/sleep", ["sleep", "17.3205"])
            finally:
                os._exit(0)
        os._exit(0)
    time.sleep(0.1)
    return "detached"
"""
MARKER = "17.3205"


def grade_scenario(path: str) -> dict:
    """Grade the submission with all available layers, then with the portable ones only."""
    limits = SandboxLimits(call_seconds=0.5, memory_mib=256, total_seconds=20)
    report: dict = {"uid": os.getuid(), "layers": probe_layers()}
    for label, keep_only in (("full", None), ("portable", PORTABLE)):
        box = Sandbox(path, limits=limits)
        if keep_only is not None:
            box.layers = {name: name in keep_only for name in box.layers}
        with box:
            report[label] = {
                "loaded": box.load().ok,
                "add": box.call("add", [2, 3]).value,
                "who": box.call("who", []).value,
                "sleep": box.call("sleep", [5]).kind,
                "quit": box.call("quit", []).kind,
                "after": box.call("add", [1, 1]).value,
                "detach": box.call("detach", []).value,
                "survivors": marked_processes(),
                "directory": box.directory,
            }
    return report


def marked_processes(patience: float = 2.0) -> list[int]:
    """Live processes carrying the marker; strays get a moment to finish dying (SIGKILL is
    sent before the call's reply, reaping happens after it)."""
    deadline = time.monotonic() + patience
    while (found := _marked_now()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return found


def _marked_now() -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if MARKER.encode() in handle.read():
                    found.append(int(entry))
        except (OSError, ValueError):
            continue
    return found


def run_as_nobody(path: str) -> dict:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the report travels through the pipe
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
            # A user who logged in is "dumpable"; a process that just left root is not, and
            # could not write its own user-namespace maps.
            ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
            sandbox_layers._working_steps.cache_clear()
            try:
                report = grade_scenario(path)
            except BaseException:
                report = {"error": traceback.format_exc()}
            os.write(write_fd, json.dumps(report).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    data = b""
    while chunk := os.read(read_fd, 65536):
        data += chunk
    os.close(read_fd)
    os.waitpid(pid, 0)
    assert data, "the unprivileged child reported nothing"
    report = json.loads(data)
    assert "error" not in report, report.get("error")
    return report


@pytest.fixture
def shared_submission(monkeypatch):
    """The submission, and the worker script, where ``nobody`` can read them: the checkout may
    sit in a directory only root can enter."""
    directory = tempfile.mkdtemp(prefix="bpe-sandbox-test-")
    os.chmod(directory, 0o755)
    path = os.path.join(directory, "student.py")
    with open(path, "w") as handle:
        handle.write(textwrap.dedent(SUBMISSION))
    os.chmod(path, 0o644)
    worker = shutil.copy(sandbox_api.WORKER_SCRIPT, os.path.join(directory, "worker.py"))
    os.chmod(worker, 0o644)
    monkeypatch.setattr(sandbox_api, "WORKER_SCRIPT", Path(worker))
    yield path
    shutil.rmtree(directory, ignore_errors=True)


def test_an_unprivileged_grader_still_grades_safely(shared_submission):
    if os.geteuid() == 0:
        report = run_as_nobody(shared_submission)
    else:
        report = json.loads(json.dumps(grade_scenario(shared_submission)))
    assert report["uid"] != 0
    assert report["layers"]["uid-drop"] is False
    assert report["layers"]["process"] is True
    for label in ("full", "portable"):
        run = report[label]
        assert run["loaded"] is True
        assert (run["add"], run["sleep"], run["quit"], run["after"]) == (5, "timeout", "exit", 2)
        assert (run["detach"], run["survivors"]) == ("detached", [])
        assert run["who"] == report["uid"]  # no uid change without root
        assert not os.path.exists(run["directory"])
