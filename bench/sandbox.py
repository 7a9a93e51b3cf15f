"""Benchmark the sandbox: worker start, a trivial call, and a call carrying a 1 MB corpus.

    python bench/sandbox.py [--starts 30] [--calls 500] [--big-calls 50] [--portable]

Prints the median (and 10th/90th percentiles) of each, and which isolation layers were
active. ``--portable`` measures with only the layers every host has (process, rlimits), to
show what the Linux layers cost. Targets: start < 100 ms, trivial call < 2 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from grader.sandbox import Sandbox, SandboxLimits, layers_notice, probe_layers  # noqa: E402

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


def time_starts(path: str, count: int, portable: bool) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        with open_box(path, portable) as box:
            if not box.load().ok:
                raise SystemExit("the benchmark submission did not load")
            times.append(time.perf_counter() - started)
    return times


def time_calls(box: Sandbox, function: str, args: list, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        outcome = box.call(function, args)
        times.append(time.perf_counter() - started)
        if not outcome.ok:
            raise SystemExit(f"benchmark call failed: {outcome.error}")
    return times


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
        starts = time_starts(path, options.starts, options.portable)
        with open_box(path, options.portable) as box:
            box.load()
            active = box.layers
            time_calls(box, "ping", [], 20)  # warm up
            trivial = time_calls(box, "ping", [], options.calls)
            corpus = one_megabyte_corpus()
            big = time_calls(box, "size", [corpus], options.big_calls)

    print(f"python {sys.version.split()[0]} as uid {os.geteuid()}; layer probe {probe_ms:.1f} ms"
          " (once per grader process)")
    print("active layers: " + ", ".join(name for name, on in active.items() if on))
    print(layers_notice(active) or "all isolation layers active")
    print(describe("worker start (spawn + import)", starts, 100))
    print(describe("trivial call round trip", trivial, 2))
    print(describe(f"call with a {sum(map(len, corpus)) / 1e6:.2f} MB corpus", big))
    if layers != active:
        print("(layers restricted by --portable)")


if __name__ == "__main__":
    main()
