"""Where no memory cgroup can be had, a call's processes are capped in total by the trusted
side's watch of the sandbox's own uid (``grader.sandbox.memory_watch``), not only one by one."""

from __future__ import annotations

import os
import textwrap

import pytest

from grader.sandbox import uids
from grader.sandbox.api import Sandbox, SandboxLimits, probe_layers

LAYERS = probe_layers()
SOURCE = textwrap.dedent('''
    import os, time

    def spread(count, mib):
        """count processes holding mib MiB each, every page written, for a while."""
        children = []
        for _ in range(count):
            pid = os.fork()
            if pid == 0:
                block = b"x" * (mib << 20)
                time.sleep(3)
                os._exit(len(block) & 0)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        return "all held"
''')
# Each process may hold 160 MiB; four of 100 MiB are over the call's total (160 + 128 MiB).
LIMITS = SandboxLimits(call_seconds=8.0, memory_mib=160, total_seconds=60)
NO_CGROUPS = {"pids-cgroup": False, "memory-cgroup": False}


@pytest.fixture
def submission(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(SOURCE)
    os.chmod(tmp_path, 0o755)
    os.chmod(path, 0o644)
    return path


@pytest.mark.skipif(not LAYERS.get("uid-drop"), reason="the watch needs a uid of the sandbox's")
def test_processes_each_under_the_cap_are_stopped_together_over_it(submission):
    with Sandbox(submission, limits=LIMITS) as box:
        box.layers.update(NO_CGROUPS)
        outcome = box.call("spread", [4, 100])
        assert outcome.kind == "memory", outcome
        assert outcome.error == "ran out of memory (limit 160 MiB)"
        assert box.call("spread", [1, 20]).value == "all held"  # the next call runs as usual


@pytest.mark.skipif(not LAYERS.get("uid-drop"), reason="the watch needs a uid of the sandbox's")
def test_without_a_uid_of_its_own_nothing_sums_the_processes(submission, monkeypatch):
    # What the watch adds: a pinned, shared uid cannot be watched, and the same call passes.
    monkeypatch.setenv(uids.PINNED_VARIABLE, str(uids.NOBODY))
    with Sandbox(submission, limits=LIMITS) as box:
        box.layers.update(NO_CGROUPS)
        assert box.call("spread", [4, 100]).value == "all held"
