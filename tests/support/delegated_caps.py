"""A call that spreads over many processes and much memory, and what a delegated cgroup v2
subtree must make of it: shared by the test in the container simulation and the one on a
cgroup-v2-only kernel (:mod:`support.cgroup_v2_vm`).

``RUN_SPREAD`` (run as ``python -c RUN_SPREAD STUDENT``, where ``STUDENT`` holds ``SPREAD``)
prints one JSON line: the controllers the subtree offers, the sandbox's layers, how many
processes a call could start under a cap of 8, and how a call whose four processes want
100 MiB each under a 160 MiB cap ended.
"""

from __future__ import annotations

SPREAD = '''
import os, time

def spread(count, mib):
    children = []
    for _ in range(count):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            block = b"x" * (mib << 20)
            time.sleep(2)
            os._exit(len(block) & 0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
    return len(children)
'''
RUN_SPREAD = '''
import json, os, sys
from grader.sandbox.api import Sandbox, SandboxLimits
offered = open("/sys/fs/cgroup/cgroup.controllers").read().split()
limits = SandboxLimits(call_seconds=8.0, memory_mib=160, total_seconds=30, max_processes=8)
with Sandbox(sys.argv[1], limits=limits) as box:
    forks = box.call("spread", [20, 1])
    memory = box.call("spread", [4, 100])
    print(json.dumps({"offered": offered, "layers": box.layers, "forks": forks.value,
                      "memory": memory.error}))
'''


def offers_pids_and_memory(report: dict) -> bool:
    return {"pids", "memory"} <= set(report["offered"])


def assert_caps_held(report: dict) -> None:
    """The pids and memory groups were used, and both caps held."""
    assert report["layers"]["pids-cgroup"] and report["layers"]["memory-cgroup"], report
    assert report["forks"] is not None and report["forks"] < 8, report  # pids.max counts the server too
    assert report["memory"] == "ran out of memory (limit 160 MiB)", report
