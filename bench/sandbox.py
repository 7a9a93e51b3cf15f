"""Benchmark the sandbox: worker start, a trivial call, and a call carrying a 1 MB corpus.

    python bench/sandbox.py [--starts 30] [--calls 500] [--big-calls 50] [--portable]

Prints the median (and 10th/90th percentiles) of each, and which isolation layers were
active. ``--portable`` measures with only the layers every host has (process, rlimits), to
show what the Linux layers cost. Targets: start < 100 ms, trivial call < 2 ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.sandbox import Sandbox, SandboxLimits, layers_notice  # noqa: E402
from grader.sandbox.api import probe_layers  # noqa: E402

SUBMISSION = """
def ping():
    return None


def size(corpus):
    return sum(len(text) for text in corpus)
"""
PORTABLE = ("process", "rlimits")


def open_box(path: str, portable: bool) -> Sandbox:
    box = Sandbox(path, limits=SandboxLimits(total_seconds=3600))
    if portable:
        box.layers = {name: name in PORTABLE for name in box.layers}
    return box


def time_starts(path: str, count: int, portable: bool) -> tuple[list[float], list[float]]:
    """Wall time of start + import, and CPU time of grader and worker for a whole run."""
    times, cpu = [], []
    for _ in range(count):
        cpu_before = _cpu_of_self_and_children()
        started = time.perf_counter()
        with open_box(path, portable) as box:
            if not box.load().ok:
                raise SystemExit("the benchmark submission did not load")
            times.append(time.perf_counter() - started)
        cpu.append(_cpu_of_self_and_children() - cpu_before)
    return times, cpu


def time_calls(box: Sandbox, function: str, args: list, count: int
               ) -> tuple[list[float], list[float]]:
    """Wall time per call, and CPU time per call (grader + worker, where it can be measured)."""
    times, cpu = [], []
    for _ in range(count):
        grader_cpu = time.process_time()
        started = time.perf_counter()
        outcome = box.call(function, args)
        times.append(time.perf_counter() - started)
        if not outcome.ok:
            raise SystemExit(f"benchmark call failed: {outcome.error}")
        if outcome.cpu_seconds is not None:
            cpu.append(time.process_time() - grader_cpu + outcome.cpu_seconds)
    return times, cpu


def _cpu_of_self_and_children() -> float:
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def describe(label: str, seconds: list[float], target_ms: float | None = None) -> str:
    ordered = sorted(seconds)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    median = statistics.median(ordered) * 1000
    verdict = "" if target_ms is None else ("  (target < %g ms: %s)" % (
        target_ms, "met" if median < target_ms else "MISSED"))
    return (f"{label:34} median {median:8.2f} ms   p10 {pick(0.1):8.2f}   p90 {pick(0.9):8.2f}"
            f"   n={len(ordered)}{verdict}")


def one_megabyte_corpus() -> list[str]:
    line = "low lower lowest newer wider new newest " * 25
    return [line] * ((1 << 20) // len(line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--big-calls", type=int, default=50)
    parser.add_argument("--portable", action="store_true",
                        help="use only the process and rlimits layers")
    options = parser.parse_args()

    started = time.perf_counter()
    layers = probe_layers()
    probe_ms = (time.perf_counter() - started) * 1000
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "student.py")
        Path(path).write_text(SUBMISSION)
        starts, start_cpu = time_starts(path, options.starts, options.portable)
        with open_box(path, options.portable) as box:
            box.load()
            active = box.layers
            time_calls(box, "ping", [], 20)  # warm up
            trivial, trivial_cpu = time_calls(box, "ping", [], options.calls)
            corpus = one_megabyte_corpus()
            big, big_cpu = time_calls(box, "size", [corpus], options.big_calls)

    print(f"python {sys.version.split()[0]} as uid {os.geteuid()}; layer probe {probe_ms:.1f} ms"
          " (once per grader process); load average "
          + " ".join(f"{load:.2f}" for load in os.getloadavg()) + f" on {os.cpu_count()} cores")
    print("active layers: " + ", ".join(name for name, on in active.items() if on))
    print(layers_notice(active) or "all isolation layers active")
    megabytes = f"{sum(map(len, corpus)) / 1e6:.2f} MB"
    print("wall-clock time:")
    print(describe("worker start (spawn + import)", starts, 100))
    print(describe("trivial call round trip", trivial, 2))
    print(describe(f"call with a {megabytes} corpus", big))
    print("CPU time, less sensitive to other load on the machine (per call: the grader plus the"
          " worker's cpuacct cgroup, or, without cgroups, plus the call's child only):")
    print(describe("whole run: start, import, stop", start_cpu))
    if trivial_cpu:
        print(describe("trivial call", trivial_cpu))
        print(describe(f"call with a {megabytes} corpus", big_cpu))
    else:
        print("(per-call CPU needs the cpuacct cgroup, unavailable here)")
    if layers != active:
        print("(layers restricted by --portable)")


if __name__ == "__main__":
    main()
