"""Does a hostile classmate change an honest student's score? ``grade batch --jobs 2`` in the
simulated default Docker container (``tests/support/container.py``; run as root), on a class of
two: the correct example, and a submission that attacks every process it can reach
(``tests/hostile/signal_the_neighbours.py``: SIGSTOP and SIGKILL to every pid, or
``cap_the_neighbours.py``: RLIMIT_NPROC 0 and nice 19), several runs each.

    python bench/neighbours.py [--runs 5] [--attacker signal_the_neighbours] [--cgroup-v2-only]
                               [--shared-uid] [--disable landlock]

Prints the honest student's score graded alone, then in each run beside the attacker, with the
wall time of the batch. ``--shared-uid`` pins every sandbox to ``nobody``
(``GRADE_SANDBOX_UID``), as before each sandbox had a uid of its own, to show what that buys.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.container import container_available, container_command  # noqa: E402

CORRECT = ROOT / "examples" / "bpe-train-encode" / "student_correct.py"
HOSTILE = ROOT / "tests" / "hostile"
GRADE = str(Path(sys.executable).with_name("grade"))


def batch(students: dict[str, Path], v2_only: bool,
          env: dict[str, str] | None = None) -> tuple[dict[str, str], float]:
    place = Path(tempfile.mkdtemp(prefix="bench-neighbours-"))
    try:
        os.chmod(place, 0o755)
        folder = place / "class"
        folder.mkdir()
        for name, source in students.items():
            shutil.copyfile(source, folder / f"{name}.py")
        started = time.monotonic()
        done = subprocess.run(
            container_command([GRADE, "batch", str(folder), "-o", str(place / "out"),
                               "--exercise", "bpe-train-encode", "--jobs", "2",
                               "--no-progress"], cgroup_v2_only=v2_only),
            capture_output=True, text=True, timeout=900, env={**os.environ, **(env or {})})
        seconds = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"grade batch failed ({done.returncode}): {done.stderr[-2000:]}")
        with open(place / "out" / "grades.csv", newline="") as handle:
            rows = {row["student"]: row["total"] for row in csv.DictReader(handle)}
        return rows, seconds
    finally:
        shutil.rmtree(place, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--attacker", default="signal_the_neighbours",
                        choices=["signal_the_neighbours", "cap_the_neighbours"])
    parser.add_argument("--cgroup-v2-only", action="store_true")
    parser.add_argument("--shared-uid", action="store_true")
    parser.add_argument("--disable", default="", help="layers to treat as missing, e.g. landlock "
                        "(as on a kernel older than Landlock ABI 6, which scopes signals)")
    options = parser.parse_args()
    env = {"GRADE_SANDBOX_UID": "65534"} if options.shared_uid else {}
    if options.disable:
        env["GRADE_SANDBOX_DISABLE"] = options.disable
    reason = container_available(cgroup_v2_only=options.cgroup_v2_only)
    if reason:
        raise SystemExit(f"cannot simulate the container here: {reason}")
    alone, seconds = batch({"honest": CORRECT}, options.cgroup_v2_only, env)
    print(f"honest alone: {alone['honest']}  ({seconds:.1f} s)")
    attacker = HOSTILE / f"{options.attacker}.py"
    for run in range(1, options.runs + 1):
        rows, seconds = batch({"honest": CORRECT, "mallory": attacker}, options.cgroup_v2_only,
                              env)
        print(f"run {run}: honest {rows['honest']}, {options.attacker} {rows['mallory']}  "
              f"({seconds:.1f} s)")


if __name__ == "__main__":
    main()
