"""A call may be stopped on its function's own CPU time (``cpu_seconds``), besides its
wall-clock limit: the module's import is not counted, a function that sleeps or disarms the
timer runs to the wall-clock limit as before, one that ends itself with the timer's signal
before it could have used that much CPU time (on every core) crashed, and a call without ``cpu_seconds`` is not stopped
sooner. The same calls in every environment the sandbox runs in (``tests/support``); the
cgroup-v2-only kernel runs one in ``support/delegated_caps.py``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from grader.sandbox.api import Sandbox, SandboxLimits
from support.fixtures import platform_env  # noqa: F401 - the fixture
from support.strays import adopting

BOUND = 0.2
IMPORT_CPU = 0.3  # more than BOUND: were the import counted, every call would be stopped
SUBMISSION = textwrap.dedent(f'''
    import os, signal, time

    _started = time.process_time()
    while time.process_time() - _started < {IMPORT_CPU}:
        pass


    def spin():
        while True:
            pass


    def quick(value):
        return value + 1


    def sleepy():
        while True:
            time.sleep(0.05)


    def disarm():
        signal.setitimer(signal.ITIMER_PROF, 0)
        while True:
            pass

''')
# A light module whose function ends itself with the timer's signal at once, in a call whose
# bound it could not have reached on 64 cores by then: it crashed.
SELF_STOP_BOUND = 9.0
SELF_STOP = "import os, signal\n\n\ndef self_stop():\n    os.kill(os.getpid(), signal.SIGPROF)\n"
# (function, arguments, CPU bound, wall-clock limit): the spinning call's wall-clock limit is
# far beyond what its CPU bound takes on a busy machine, the others' short. Every environment
# makes the first two; the others are the worker's logic, the same everywhere.
CALLS = [("quick", [1], BOUND, 10.0), ("spin", [], BOUND, 10.0), ("sleepy", [], BOUND, 0.5),
         ("disarm", [], BOUND, 0.5), ("spin", [], None, 0.5)]
EVERYWHERE = 2
# Run as ``python -c RUN STUDENT``: one JSON line, each call's kind, CPU stop and wall time.
RUN = textwrap.dedent(f'''
    import json, sys
    from grader.sandbox.api import Sandbox, SandboxLimits
    seen = {{}}
    with Sandbox(sys.argv[1], limits=SandboxLimits(call_seconds=10.0, total_seconds=90)) as box:
        for name, args, bound, wall in {CALLS[:EVERYWHERE]!r}:
            out = box.call(name, args, wall, cpu_seconds=bound)
            seen[name + ("" if bound else "-uncapped")] = {{
                "kind": out.kind, "value": out.value, "error": out.error,
                "cpu_stop": out.cpu_stop, "seconds": out.seconds, "cpu": out.cpu_seconds}}
    with Sandbox(sys.argv[2], limits=SandboxLimits(call_seconds=10.0, total_seconds=90)) as box:
        out = box.call("self_stop", [], cpu_seconds={SELF_STOP_BOUND})
        seen["self_stop"] = {{"kind": out.kind, "error": out.error}}
    print(json.dumps(seen))
''')


def _student(directory: Path, name: str = "student.py", text: str = SUBMISSION) -> Path:
    path = directory / name
    path.write_text(text)
    os.chmod(path, 0o644)
    return path


def assert_stops(seen: dict, where: str) -> None:
    """What each call of :data:`CALLS` made must have ended with."""
    assert seen["quick"]["kind"] == "ok" and seen["quick"]["value"] == 2, (where, seen)
    spin = seen["spin"]
    assert spin["kind"] == "timeout" and spin["cpu_stop"] == BOUND, (where, seen)
    assert spin["error"] == f"was stopped once it had used {BOUND} s of CPU time", (where, seen)
    assert spin["seconds"] < 9.9, (where, seen)  # stopped before the wall-clock limit
    # the import's CPU time came first, and did not count towards the bound
    assert spin["cpu"] is None or spin["cpu"] >= 0.8 * (IMPORT_CPU + BOUND), (where, seen)
    for name in ("sleepy", "disarm", "spin-uncapped"):
        if name in seen:
            assert seen[name]["kind"] == "timeout" and seen[name]["cpu_stop"] is None, (where, seen)
            assert seen[name]["error"] == "timed out after 0.5 s", (where, seen)
            assert seen[name]["seconds"] >= 0.5, (where, seen)
    assert seen["self_stop"]["kind"] == "crash", (where, seen)
    assert seen["self_stop"]["error"] == "crashed with SIGPROF", (where, seen)


def test_a_call_is_stopped_on_its_functions_own_cpu_time(tmp_path):
    seen = {}
    limits = SandboxLimits(call_seconds=10.0, total_seconds=90)
    with Sandbox(_student(tmp_path), limits=limits) as box:
        for name, args, bound, wall in CALLS:
            out = box.call(name, args, wall, cpu_seconds=bound)
            seen[name + ("" if bound else "-uncapped")] = {
                "kind": out.kind, "value": out.value, "error": out.error,
                "cpu_stop": out.cpu_stop, "seconds": out.seconds, "cpu": out.cpu_seconds}
        # a batch is never stopped on CPU time: the bound is for one call
        assert [o.kind for o in box.call_many("quick", [[1], [2]])] == ["ok", "ok"]
    with Sandbox(_student(tmp_path, "stop.py", SELF_STOP), limits=limits) as box:
        out = box.call("self_stop", [], cpu_seconds=SELF_STOP_BOUND)
        seen["self_stop"] = {"kind": out.kind, "error": out.error}
    assert len(seen) == len(CALLS) + 1
    assert_stops(seen, "in-process")


@pytest.mark.parametrize("platform_env", ["host-root", "host-nobody", "container",
                                          "container-cgroup-v2"], indirect=True)
def test_the_cpu_stop_holds_in_every_environment(platform_env):  # noqa: F811
    parent = Path(tempfile.mkdtemp(prefix="bpe-cpu-stop-"))
    try:
        os.chmod(parent, 0o755)
        temp = parent / "tmp"
        temp.mkdir()
        os.chmod(temp, 0o1777)
        student, light = _student(parent), _student(parent, "stop.py", SELF_STOP)
        with adopting() as adopted:
            done = subprocess.run(platform_env([sys.executable, "-c", RUN, str(student),
                                                str(light)]),
                                  capture_output=True, text=True, timeout=120, cwd=parent,
                                  env={**os.environ, "TMPDIR": str(temp)})
            assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
            assert adopted.strays() == [], platform_env.name
        assert_stops(json.loads(done.stdout.splitlines()[-1]), platform_env.name)
    finally:
        shutil.rmtree(parent, ignore_errors=True)
