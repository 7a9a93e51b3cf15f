"""Benchmark of grading: how long ``grade submit`` takes, and where the time goes.

    python bench/grade.py [SUBMISSION] [--runs 10]     # default: the bpe-train-encode sample
    python bench/grade.py --startup [--runs 10]        # CPU of grade --version and --help
    python bench/grade.py --audit EXERCISE [--runs 1]  # wall and CPU of grade audit
    python bench/grade.py --efficiency [--runs 5]      # margins of the efficiency milestone
    python bench/grade.py --pairs 7                    # CPU and wall as ratios to W
    python bench/grade.py --pairs 3 --every-exercise   # the same, every shipped exercise

The first mode prints the median wall time of ``grade submit SUBMISSION --format json`` run
as a fresh process (the full suite, property checks and the efficiency milestone included),
then the median split of the same grading, each run in a fresh process too (so caches start
cold, as in the command): importing the grader, starting the sandbox (worker start and
loading the submission), each milestone's checks, and rendering the report; the rest of the
command's time is interpreter start-up and the command line layer.

By default the grader runs as pip installs it, from compiled bytecode (one run first writes
the ``__pycache__`` files of an editable install; ``PYTHONDONTWRITEBYTECODE`` is lifted for
it). ``--no-bytecode-cache`` measures the other case, an editable install where bytecode is
never written (``PYTHONDONTWRITEBYTECODE=1``, as many Docker images set): the grader's own
modules are then compiled from source on every run (their ``__pycache__`` folders are
removed first).

``--startup`` prints the median CPU time (user + system, of the child process) of
``grade --version`` and ``grade --help``, which must not import the grading machinery.
``--audit`` prints the wall and CPU time of ``grade audit EXERCISE`` (its gradings run in
parallel, so the CPU time is the figure that does not depend on the host's load).

``--pairs N`` runs W (``python3 -c 'sum(range(30_000_000))'``) and ``grade submit`` one after
the other, N times, for the correct and the wrong sample of bpe-train-encode and for the correct
one with the grader's cache (the validated spec and the prepared work) emptied before each
run (a course's first grading), and
prints the median ratios of CPU (the whole process tree) and wall time to W. The grader runs
from compiled bytecode here too, unless ``--no-bytecode-cache`` is given.
``--every-exercise`` does the same for the correct and the wrong example of every exercise under
``examples/`` (``--exercise ID`` for some, with or without ``--every-exercise``), adds the peak RSS of the largest process of the
grading's tree, and says whether each wall ratio is within its budget (correct 1.5 x W, wrong
2 x W).

The efficiency mode grades only the efficiency check, repeatedly, for the Counter-based correct
submission (must pass) and the one that rescans the texts every merge (must fail), and
prints each run's CPU times, ratio and verdict with the margin to the limit.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Optional

STARTED = time.perf_counter()
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.grading import engine  # noqa: E402
from grader.report import render  # noqa: E402
from grader.sandbox import Sandbox  # noqa: E402

IMPORT_SECONDS = time.perf_counter() - STARTED

DEFAULT_SUBMISSION = ROOT / "examples" / "bpe-train-encode" / "student_correct.py"
COUNTER = ROOT / "tests" / "submissions" / "correct_counter.py"
RESCANS_TEXTS = ROOT / "tests" / "submissions" / "slow_rawtext.py"
LOWER_BOUND_MERGES = 10


OWN_PACKAGES = ("grader", "reference")


def grader_environment(bytecode_cache: bool) -> dict[str, str]:
    """The environment of the measured runs, with or without the grader's bytecode cached."""
    environment = dict(os.environ)
    if bytecode_cache:
        environment.pop("PYTHONDONTWRITEBYTECODE", None)
        return environment
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    for package in OWN_PACKAGES:
        for cache in (ROOT / package).rglob("__pycache__"):
            shutil.rmtree(cache, ignore_errors=True)
    return environment


def bytecode_words(bytecode_cache: bool) -> str:
    return ("the grader runs from compiled bytecode, as installed by pip" if bytecode_cache else
            "the grader's own modules are compiled from source on every run")


def grade_command() -> list[str]:
    grade = Path(sys.executable).with_name("grade")
    return [str(grade)] if grade.exists() else [sys.executable, "-m", "grader.commands.cli"]


def command_seconds(submission: Path, environment: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        grade_command() + ["submit", str(submission), "--format", "json"],
        capture_output=True, text=True, check=False, env=environment,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"grade submit failed ({done.returncode}): {done.stderr.strip()}")
    return seconds


class Timers:
    """Wall time spent in a few wrapped functions during one grading."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, owner: object, name: str, label) -> None:
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                key = label(*args) if callable(label) else label
                self.seconds[key] += time.perf_counter() - started

        setattr(owner, name, timed)
        self._restore = getattr(self, "_restore", []) + [(owner, name, original)]

    def restore(self) -> None:
        for owner, name, original in reversed(getattr(self, "_restore", [])):
            setattr(owner, name, original)


def split_once(submission: Path) -> dict[str, float]:
    """One in-process grading, timed by phase."""
    timers = Timers()
    timers.wrap(Sandbox, "__enter__", "sandbox start")
    timers.wrap(Sandbox, "load", "sandbox start")
    timers.wrap(engine, "grade_milestone",
                lambda calls, box, milestone, *rest: f"checks: {milestone.id}")
    try:
        started = time.perf_counter()
        report = engine.grade_submission(submission)
        graded = time.perf_counter()
        render(report, "text")
        timers.seconds["reporting"] = time.perf_counter() - graded
        timers.seconds["grading total"] = graded - started
        timers.seconds["imports"] = IMPORT_SECONDS
    finally:
        timers.restore()
    if report.score != report.max_score:
        print(f"note: the submission scored {report.score:g}/{report.max_score:g}", file=sys.stderr)
    return dict(timers.seconds)


def cold_split(submission: Path, environment: dict[str, str]) -> dict[str, float]:
    """:func:`split_once` in a fresh interpreter, with its import time."""
    done = subprocess.run(
        [sys.executable, __file__, str(submission), "--split-once"],
        capture_output=True, text=True, check=False, env=environment,
    )
    if done.returncode != 0:
        raise SystemExit(f"the timed grading failed: {done.stderr.strip()}")
    return json.loads(done.stdout.splitlines()[-1])


def bench_grading(submission: Path, runs: int, bytecode_cache: bool) -> None:
    print(f"grade submit {submission.relative_to(ROOT) if submission.is_relative_to(ROOT) else submission}")
    environment = grader_environment(bytecode_cache)
    if bytecode_cache:
        command_seconds(submission, environment)  # writes the bytecode, as an install does
        print("  the grader runs from compiled bytecode, as installed by pip")
    else:
        print("  the grader's own modules are compiled from source on every run")
    walls = [command_seconds(submission, environment) for _ in range(runs)]
    print(f"  command wall time, median of {runs}: {statistics.median(walls):.3f} s "
          f"(min {min(walls):.3f}, max {max(walls):.3f})")
    splits = [cold_split(submission, environment) for _ in range(runs)]
    keys = list(dict.fromkeys(key for split in splits for key in split))
    print(f"  split of a grading in a fresh process, median of {runs}:")
    for key in keys:
        print(f"    {key:<28} {statistics.median(s.get(key, 0.0) for s in splits):.3f} s")
    rest = statistics.median(walls) - statistics.median(
        s["imports"] + s["grading total"] + s["reporting"] for s in splits)
    print(f"    {'interpreter and CLI':<28} {rest:.3f} s (command minus the above)")


WORKLOAD = ["python3", "-c", "sum(range(30_000_000))"]
"""W, the fixed workload every grading figure is a ratio to (CPU and wall of the process tree)."""
WRONG_SUBMISSION = ROOT / "examples" / "bpe-train-encode" / "student_wrong.py"


def tree_seconds(command: list[str], environment: Optional[dict] = None) -> tuple[float, float]:
    """CPU (user + system of the whole process tree) and wall seconds of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   env=environment)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu, wall


def bench_pairs(pairs: int, bytecode_cache: bool = True) -> None:
    """``grade submit`` of a correct and a wrong submission, each run paired with W."""
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        environment = dict(grader_environment(bytecode_cache), GRADE_CACHE_DIR=cache)
        print(f"grade submit as ratios to W = {' '.join(WORKLOAD)}, paired runs, median of {pairs}; "
              f"{bytecode_words(bytecode_cache)}")
        for label, submission, cold in (("correct, first grading (cache empty)", DEFAULT_SUBMISSION, True),
                                        ("correct", DEFAULT_SUBMISSION, False),
                                        ("wrong", WRONG_SUBMISSION, False)):
            figures = paired_figures(submission, pairs, environment, Path(cache) if cold else None)
            print(f"  {label:<38} CPU {figures.cpu:.2f} x W   wall {figures.wall:.2f} x W   "
                  f"({figures.cpu_seconds:.2f} CPU-s)")


EXAMPLES = ROOT / "examples"
TARGET_WALL = {"correct": 1.5, "wrong": 2.0}
"""The wall-time budget of one grading, as a ratio to W, for each kind of example."""


class PairedFigures:
    """Median ratios to W of N paired runs, and the largest peak RSS seen."""

    def __init__(self, cpu: float, wall: float, cpu_seconds: float, peak_mib: float) -> None:
        self.cpu, self.wall, self.cpu_seconds, self.peak_mib = cpu, wall, cpu_seconds, peak_mib


def paired_figures(submission: Path, pairs: int, environment: dict,
                   emptied_cache: Optional[Path] = None) -> PairedFigures:
    """Grade ``submission`` ``pairs`` times, each run right after a run of W."""
    command = grade_command() + ["submit", str(submission), "--format", "json"]
    subprocess.run(command, capture_output=True, check=False, env=environment)
    cpu_ratios, wall_ratios, cpus, peaks = [], [], [], []
    for _ in range(pairs):
        if emptied_cache is not None:  # the kept spec and the prepared work both go
            for stored in emptied_cache.iterdir():
                shutil.rmtree(stored) if stored.is_dir() else stored.unlink()
        w_cpu, w_wall = tree_seconds(WORKLOAD)
        g_cpu, g_wall, peak = measured_tree(command, environment)
        cpu_ratios.append(g_cpu / w_cpu)
        wall_ratios.append(g_wall / w_wall)
        cpus.append(g_cpu)
        peaks.append(peak)
    return PairedFigures(statistics.median(cpu_ratios), statistics.median(wall_ratios),
                         statistics.median(cpus), max(peaks))


MEASURE_TREE = """
import json, resource, subprocess, sys, time
started = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
wall = time.perf_counter() - started
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([use.ru_utime + use.ru_stime, wall, use.ru_maxrss / 1024]))
"""


def measured_tree(command: list[str], environment: dict) -> tuple[float, float, float]:
    """CPU and wall seconds of ``command``'s process tree, and the peak RSS (MiB) of the largest
    process in it, measured by a fresh interpreter that runs nothing else."""
    done = subprocess.run([sys.executable, "-c", MEASURE_TREE, *command], capture_output=True,
                          text=True, check=True, env=environment)
    cpu, wall, peak = json.loads(done.stdout)
    return cpu, wall, peak


def example_files(folder: Path) -> dict[str, Path]:
    """The correct and the wrong example of one exercise folder under examples/."""
    found = {}
    for kind in ("correct", "wrong"):
        matches = sorted(folder.glob(f"*_{kind}.*"))
        if matches:
            found[kind] = matches[0]
    return found


def bench_every_exercise(pairs: int, only: Optional[list[str]], bytecode_cache: bool = True) -> None:
    """The paired figures of every shipped exercise's correct and wrong example."""
    folders = [f for f in sorted(EXAMPLES.iterdir()) if f.is_dir() and (not only or f.name in only)]
    print(f"grade submit of every exercise as ratios to W = {' '.join(WORKLOAD)}, "
          f"paired runs, median of {pairs}; {bytecode_words(bytecode_cache)}; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"  {'exercise':<18} {'example':<8} {'CPU x W':>8} {'wall x W':>9} {'CPU-s':>7} "
          f"{'peak MiB':>9}  wall target")
    with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
        environment = dict(grader_environment(bytecode_cache), GRADE_CACHE_DIR=cache)
        for folder in folders:
            for kind, submission in example_files(folder).items():
                figures = paired_figures(submission, pairs, environment)
                target = TARGET_WALL[kind]
                verdict = "within" if figures.wall <= target else "OVER"
                print(f"  {folder.name:<18} {kind:<8} {figures.cpu:>8.2f} {figures.wall:>9.2f} "
                      f"{figures.cpu_seconds:>7.2f} {figures.peak_mib:>9.0f}  "
                      f"<= {target} x W: {verdict}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def child_run(args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of ``grade ARGS`` run as a child process."""
    before = os.times()
    started = time.perf_counter()
    subprocess.run(grade_command() + args, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def bench_startup(runs: int) -> None:
    for args in (["--version"], ["--help"], ["submit", "--help"]):
        figures = [child_run(args) for _ in range(runs)]
        print(f"grade {' '.join(args)}: CPU median of {runs}: "
              f"{statistics.median(c for _, c in figures):.3f} s, wall median "
              f"{statistics.median(w for w, _ in figures):.3f} s")


def bench_audit(exercise: str, runs: int) -> None:
    figures = [child_run(["audit", exercise, "--quiet"]) for _ in range(runs)]
    print(f"grade audit {exercise}: wall median of {runs}: "
          f"{statistics.median(w for w, _ in figures):.1f} s, CPU (all gradings) "
          f"{statistics.median(c for _, c in figures):.1f} s on {os.cpu_count()} cores")


def bench_efficiency(runs: int) -> None:
    from grader.families.bpe.efficiency import run as run_efficiency
    from grader.spec.hooks import CheckContext
    from grader.grading.timing import wall_timeout
    from grader.spec import load_exercise

    exercise = load_exercise("bpe-train-encode")
    milestone = next(m for m in exercise.milestones if m.check("efficiency"))
    check = milestone.check("efficiency")
    check_share = milestone.points * check.weight / sum(c.weight for c in milestone.checks)
    settings = exercise.efficiency
    print(f"efficiency milestone of {exercise.id}: {settings.total_words:,} words, "
          f"{settings.distinct_words:,} distinct, {settings.num_merges} merges; limits "
          f"{settings.max_ratio:g}x the reference and {settings.max_seconds:g} s "
          f"(wall timeout {wall_timeout(settings):g} s)")
    last_reference = None
    for submission in (COUNTER, RESCANS_TEXTS):
        print(f"  {submission.name}")
        for _ in range(runs):
            started = time.perf_counter()
            with Sandbox(submission) as box:
                box.load()
                [result] = run_efficiency(CheckContext(None, box, exercise, milestone, check, check_share))
            wall = time.perf_counter() - started
            details = result.details or {}
            student, reference = details.get("student_seconds"), details.get("reference_seconds")
            verdict = "pass" if result.passed else "fail"
            if student is not None and reference:
                ratio = student / reference
                margin = (settings.max_ratio / ratio) if result.passed else (ratio / settings.max_ratio)
                print(f"    {verdict}: student {student:.3f} s, reference {reference:.3f} s, "
                      f"ratio {ratio:.1f}x, margin {margin:.1f}x; milestone wall {wall:.2f} s")
            else:
                print(f"    {verdict}: stopped at the time limit, reference {reference:.3f} s; "
                      f"milestone wall {wall:.2f} s")
                last_reference = reference
        if submission == RESCANS_TEXTS and last_reference:
            print(f"    {lower_bound(submission, exercise, last_reference)}")


def lower_bound(submission: Path, exercise, reference_seconds: float) -> str:
    """A measured lower bound of a too-slow trainer's ratio: its CPU time for a few merges.

    Training fewer merges never takes longer, so the time of the first ``LOWER_BOUND_MERGES``
    merges bounds the time of all of them from below.
    """
    from grader.families.bpe.efficiency import corpus_for

    with Sandbox(submission) as box:
        box.load()
        outcome = box.call(exercise.function("train").name, [corpus_for(exercise), LOWER_BOUND_MERGES],
                           timeout=120)
    if outcome.cpu_seconds is None or not outcome.ok:
        return f"lower bound not measured: {outcome.error}"
    ratio = outcome.cpu_seconds / reference_seconds
    return (f"its first {LOWER_BOUND_MERGES} merges alone take {outcome.cpu_seconds:.3f} s CPU = "
            f"{ratio:.0f}x the reference's time for all {exercise.efficiency.num_merges}: "
            f"margin > {ratio / exercise.efficiency.max_ratio:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("submission", nargs="?", type=Path, default=DEFAULT_SUBMISSION)
    parser.add_argument("--runs", type=int, default=None, help="runs per figure")
    parser.add_argument("--efficiency", action="store_true", help="measure the efficiency margins")
    parser.add_argument("--startup", action="store_true", help="CPU of grade --version and --help")
    parser.add_argument("--audit", metavar="EXERCISE", help="time grade audit EXERCISE")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="compile the grader's modules from source on every run")
    parser.add_argument("--pairs", type=int, metavar="N",
                        help="correct and wrong gradings as ratios to W, N paired runs each")
    parser.add_argument("--every-exercise", action="store_true",
                        help="with --pairs: every shipped exercise's correct and wrong example")
    parser.add_argument("--exercise", action="append", metavar="ID",
                        help="with --pairs: only this exercise's examples (repeatable; implies --every-exercise)")
    parser.add_argument("--split-once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.split_once:
        print(json.dumps(split_once(args.submission.resolve())))
    elif args.pairs and (args.every_exercise or args.exercise):
        bench_every_exercise(args.pairs, args.exercise, not args.no_bytecode_cache)
    elif args.pairs:
        bench_pairs(args.pairs, not args.no_bytecode_cache)
    elif args.efficiency:
        bench_efficiency(args.runs or 5)
    elif args.startup:
        bench_startup(args.runs or 10)
    elif args.audit:
        bench_audit(args.audit, args.runs or 1)
    else:
        bench_grading(args.submission.resolve(), args.runs or 10, not args.no_bytecode_cache)


if __name__ == "__main__":
    main()
