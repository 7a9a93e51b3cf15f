"""Benchmark the sandbox: worker start, a trivial call (a call's fixed overhead), and a call
carrying a 1 MB corpus.

    python bench/sandbox.py [--starts 30] [--calls 500] [--big-calls 50]
                            [--portable | --container-like]
    python bench/sandbox.py --baseline DIR     # also measure the checkout in DIR, side by side

Prints the median (and 10th/90th percentiles) of each, and which isolation layers were
active. ``--portable`` measures with only the layers every host has (process, rlimits), to
show what the Linux layers cost; ``--container-like`` without namespaces and cgroups, as in a
default Docker container on a cgroup-v2-only host. ``--baseline DIR`` runs the same
measurements on another checkout of the project (for instance the commit before a change,
``git archive COMMIT | tar -x -C DIR``) in a subprocess and prints both, before and after.
Targets: start < 100 ms, trivial call < 5 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUBMISSION = """
def ping():
    return None


def size(corpus):
    return sum(len(text) for text in corpus)
"""
PORTABLE = ("process", "rlimits")
CONTAINER_MISSING = ("network-namespace", "pid-namespace", "mount-isolation", "pids-cgroup",
                     "memory-cgroup")
TARGETS_MS = {"start": 100, "trivial": 5}
LABELS = {
    "start": "worker start (spawn + import)",
    "trivial": "trivial call round trip",
    "big": "call with a 1 MB corpus",
    "start_cpu": "CPU: whole run (start, import, stop)",
    "trivial_cpu": "CPU: trivial call",
    "big_cpu": "CPU: call with a 1 MB corpus",
}


def open_box(sandbox, path: str, mode: str):
    box = sandbox.Sandbox(path, limits=sandbox.SandboxLimits(total_seconds=3600))
    if mode == "portable":
        box.layers = {name: name in PORTABLE for name in box.layers}
    elif mode == "container-like":
        box.layers = {name: on and name not in CONTAINER_MISSING for name, on in box.layers.items()}
    return box


def time_starts(sandbox, path: str, count: int, mode: str) -> tuple[list[float], list[float]]:
    """Wall time of start + import, and CPU time of grader and worker for a whole run."""
    times, cpu = [], []
    for _ in range(count):
        cpu_before = _cpu_of_self_and_children()
        started = time.perf_counter()
        with open_box(sandbox, path, mode) as box:
            if not box.load().ok:
                raise SystemExit("the benchmark submission did not load")
            times.append(time.perf_counter() - started)
        cpu.append(_cpu_of_self_and_children() - cpu_before)
    return times, cpu


def time_calls(box, function: str, args: list, count: int) -> tuple[list[float], list[float]]:
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


def summary(seconds: list[float]) -> dict | None:
    if not seconds:
        return None
    ordered = sorted(seconds)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return {"median": statistics.median(ordered) * 1000, "p10": pick(0.1), "p90": pick(0.9),
            "n": len(ordered)}


def one_megabyte_corpus() -> list[str]:
    line = "low lower lowest newer wider new newest " * 25
    return [line] * ((1 << 20) // len(line))


def measure(root: Path, options) -> dict:
    """Every measurement, with the project at ``root`` importable."""
    sys.path.insert(0, str(root))
    import grader.sandbox as sandbox
    from grader.sandbox.api import probe_layers

    started = time.perf_counter()
    layers = probe_layers()
    probe_ms = (time.perf_counter() - started) * 1000
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "student.py")
        Path(path).write_text(SUBMISSION)
        starts, start_cpu = time_starts(sandbox, path, options.starts, options.mode)
        with open_box(sandbox, path, options.mode) as box:
            box.load()
            active = box.layers
            time_calls(box, "ping", [], 20)  # warm up
            trivial, trivial_cpu = time_calls(box, "ping", [], options.calls)
            big, big_cpu = time_calls(box, "size", [one_megabyte_corpus()], options.big_calls)
    return {
        "root": str(root), "probe_ms": probe_ms, "uid": os.geteuid(),
        "python": sys.version.split()[0],
        "active": [name for name, on in active.items() if on],
        "missing": [name for name, on in active.items() if not on],
        "results": {"start": summary(starts), "trivial": summary(trivial), "big": summary(big),
                    "start_cpu": summary(start_cpu), "trivial_cpu": summary(trivial_cpu),
                    "big_cpu": summary(big_cpu)},
    }


def describe(label: str, result: dict | None, target_ms: float | None = None) -> str:
    if result is None:
        return f"{label:38} (not measurable here)"
    verdict = "" if target_ms is None else ("  (target < %g ms: %s)" % (
        target_ms, "met" if result["median"] < target_ms else "MISSED"))
    return (f"{label:38} median {result['median']:8.2f} ms   p10 {result['p10']:8.2f}   "
            f"p90 {result['p90']:8.2f}   n={result['n']}{verdict}")


def print_report(report: dict, heading: str) -> None:
    print(f"{heading}: {report['root']}")
    print(f"  python {report['python']} as uid {report['uid']}; layer probe "
          f"{report['probe_ms']:.1f} ms (once per grader process)")
    print("  active layers: " + ", ".join(report["active"]))
    if report["missing"]:
        print("  inactive layers: " + ", ".join(report["missing"]))
    for key, label in LABELS.items():
        print("  " + describe(label, report["results"][key], TARGETS_MS.get(key)))


def print_comparison(before: dict, after: dict) -> None:
    print("before -> after (medians, ms):")
    for key, label in LABELS.items():
        old, new = before["results"][key], after["results"][key]
        if old is None or new is None:
            continue
        print(f"  {label:38} {old['median']:8.2f} -> {new['median']:8.2f}"
              f"   ({new['median'] - old['median']:+.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--big-calls", type=int, default=50)
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--portable", dest="mode", action="store_const", const="portable",
                       help="use only the process and rlimits layers")
    modes.add_argument("--container-like", dest="mode", action="store_const",
                       const="container-like", help="no namespaces and no cgroups")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="also measure the project checked out in DIR (before a change)")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    options = parser.parse_args()
    options.mode = options.mode or "as-probed"

    before = None
    if options.baseline is not None:
        argv = [sys.executable, __file__, "--json", "--root", str(options.baseline.resolve()),
                "--starts", str(options.starts), "--calls", str(options.calls),
                "--big-calls", str(options.big_calls)]
        if options.mode != "as-probed":
            argv.append("--" + options.mode)
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"the baseline could not be measured:\n{done.stderr}")
        before = json.loads(done.stdout)
    after = measure(options.root, options)
    if options.json:
        print(json.dumps(after))
        return
    print(f"load average " + " ".join(f"{load:.2f}" for load in os.getloadavg())
          + f" on {os.cpu_count()} cores; layers: {options.mode}")
    if before is not None:
        print_report(before, "before")
    print_report(after, "after" if before is not None else "project")
    if before is not None:
        print_comparison(before, after)


if __name__ == "__main__":
    main()
