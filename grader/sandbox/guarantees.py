"""What --strict-sandbox demands: guarantees, each of which some mechanism must provide.

Strict mode is defined by what holds for student code, not by which isolation layer gives
it: a default Docker container has no namespaces, yet a dedicated uid, seccomp, Landlock
and rlimits give the same guarantees there. Each guarantee names the layers (as probed at
start-up by :func:`grader.sandbox.layers.probe_layers`) that can provide it; it holds when
any of them is active. :func:`providers` says which did, :func:`missing` which do not hold.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Callable

from grader.sandbox import landlock as sandbox_landlock


@dataclass(frozen=True)
class Guarantee:
    name: str
    text: str  # what holds, in words: "student code ..."
    needs: str  # the mechanisms that can provide it, in words
    providers: Callable[[dict[str, bool]], list[str]]


def _root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _any(layers: dict[str, bool], *names: str) -> list[str]:
    return [name for name in names if layers.get(name)]


def _unprivileged(layers: dict[str, bool]) -> list[str]:
    if not layers.get("no-new-privs"):
        return []
    if _root():
        return ["uid-drop", "no-new-privs"] if layers.get("uid-drop") else []
    return ["non-root grader", "no-new-privs"]


def _out_of_view(layers: dict[str, bool]) -> list[str]:
    """No other process's /proc entries to read, and no signal to send outside the call."""
    see = _any(layers, "mount-isolation", "chroot-root", "landlock")
    signal = _any(layers, "pid-namespace")
    if _root() and layers.get("uid-drop"):
        signal.append("uid-drop")
    if layers.get("landlock") and sandbox_landlock.abi() >= 6:
        signal.append("landlock")
    return sorted(set(see + signal)) if see and signal else []


def _process_cap(layers: dict[str, bool]) -> list[str]:
    return _any(layers, "pids-cgroup") or _any(layers, "process-rlimit")


def _memory_cap(layers: dict[str, bool]) -> list[str]:
    if layers.get("memory-cgroup"):
        return ["memory-cgroup"]
    # RLIMIT_AS per process times the process cap bounds the call's memory as a whole.
    cap = _process_cap(layers)
    return ["rlimits", *cap] if layers.get("rlimits") and cap else []


def _trusted_cpu(layers: dict[str, bool]) -> list[str]:
    # A cpuacct group is made beside the pids or memory group when the host has one; else the
    # fork server's wait4 figures, trusted because the server never runs student code.
    if not layers.get("process"):
        return []
    if layers.get("pids-cgroup") or layers.get("memory-cgroup"):
        return ["cpuacct-cgroup", "fork-server wait4"]
    return ["fork-server wait4"]


def _hermetic(layers: dict[str, bool]) -> list[str]:
    writes = _any(layers, "mount-isolation", "landlock")
    reaping = _any(layers, "pid-namespace")
    if not reaping and sys.platform.startswith("linux"):
        reaping = ["subreaper"]
    return writes + reaping if writes and reaping else []


GUARANTEES = (
    Guarantee("unprivileged", "student code runs as an unprivileged user with no new privileges",
              "root dropping to a dedicated uid, and no_new_privs", _unprivileged),
    Guarantee("no-network", "student code can open no socket but AF_UNIX",
              "the seccomp socket filter (x86-64 Linux)", lambda layers: _any(layers, "seccomp")),
    Guarantee("files-out-of-reach",
              "student code cannot read the spec, the reference or the grader's files",
              "mount-isolation, chroot-root or landlock",
              lambda layers: _any(layers, "mount-isolation", "chroot-root", "landlock")),
    Guarantee("imports-confined",
              "student code can import only the standard library and the exercise's allowed "
              "modules, wherever it looks for others",
              "landlock or chroot-root (a private root alone still shows the system's packages)",
              lambda layers: _any(layers, "chroot-root", "landlock")),
    Guarantee("processes-out-of-view", "student code cannot see or signal other processes",
              "mount-isolation, chroot-root or landlock to hide /proc, and a PID namespace, "
              "uid-drop or "
              "landlock ABI 6 against signals", _out_of_view),
    Guarantee("process-cap", "a call's processes and threads are capped as a whole",
              "a pids cgroup, or RLIMIT_NPROC on the dedicated uid", _process_cap),
    Guarantee("memory-cap", "a call's memory is capped as a whole",
              "a memory cgroup, or RLIMIT_AS with a process cap", _memory_cap),
    Guarantee("trusted-cpu", "CPU time is measured by the trusted side",
              "a cpuacct cgroup or the fork server's wait4", _trusted_cpu),
    Guarantee("hermetic-calls", "nothing one call writes or starts reaches a later call",
              "mount-isolation or landlock to confine writes, and a PID namespace or a "
              "subreaper to find every process", _hermetic),
)


def providers(layers: dict[str, bool]) -> dict[str, list[str]]:
    """Guarantee name -> the mechanisms providing it here (empty: it does not hold)."""
    return {guarantee.name: guarantee.providers(layers) for guarantee in GUARANTEES}


def missing(layers: dict[str, bool]) -> list[Guarantee]:
    """The guarantees that do not hold with these layers."""
    return [guarantee for guarantee in GUARANTEES if not guarantee.providers(layers)]


def refusal(absent: list[Guarantee]) -> str:
    """The one-line reason --strict-sandbox gives for refusing to grade."""
    reasons = "; ".join(f"{g.text} (needs {g.needs})" for g in absent)
    return (f"refusing to grade with --strict-sandbox: on this host it cannot be guaranteed "
            f"that {reasons}. Grade without --strict-sandbox, or for an LMS bundle build it "
            "again with `grade bundle ... --sandbox best-effort`.")
