"""Benchmark of ``grade batch``: a class of 200 submissions graded from scratch, then again
with nothing changed.

    python bench/batch.py [--students 200] [--jobs N] [--workdir DIR] [--keep]

The class mixes copies and variants of the shipped examples and test submissions: correct
ones in several styles, the catalogue's mistaken students (one known mistake each), broken
ones (syntax error, raising, missing function), a few for the other exercise, and one too
slow for the efficiency milestone. Each copy ends with a comment naming its student, so no
two files are equal. Every exercise is graded in full (efficiency milestone included), from
each file's ``# exercise:`` header.

Prints the wall time, submissions per second and CPU use of the first run (the CPU time of
``grade batch`` and every process it waited for, as a share of ``--jobs`` cores, and how busy
the whole machine's cores were meanwhile, from /proc/stat), the wall time of the re-run, the
head of grades.csv and the top of the class report's mistake ranking.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.batch.gradebook import Gradebook  # noqa: E402
from grader.batch.stored import report_from_json  # noqa: E402
from grader.report.class_report import ClassEntry, class_view  # noqa: E402
from grader.spec import family_of, load_exercise  # noqa: E402

SUBMISSIONS = ROOT / "tests" / "submissions"
EXAMPLES = ROOT / "examples"
CORRECT = [EXAMPLES / "bpe-train-encode" / "student_correct.py"] + [
    SUBMISSIONS / f"correct_{style}.py" for style in ("counter", "dicts", "heap", "incremental")]
WRONG = [EXAMPLES / "bpe-train-encode" / "student_wrong.py"] + [
    SUBMISSIONS / f"wrong_{name}.py" for name in
    ("tie_first_seen", "encode_drops_marker", "alternating", "mutates_corpus")]
BROKEN = [SUBMISSIONS / f"broken_{name}.py" for name in ("syntax", "raises", "missing_encode")]
OTHER_EXERCISE = [EXAMPLES / "lesson97-bpe" / "student_correct.py",
                  EXAMPLES / "lesson97-bpe" / "student_wrong.py"]
SLOW = SUBMISSIONS / "slow_rawtext.py"


def sources() -> list[str]:
    """One source per kind of student, in the proportions the class is built with."""
    exercise = load_exercise("bpe-train-encode")
    students = family_of(exercise).students
    mistaken = [students.source(exercise, m.id) for m in students.applicable(exercise)]
    texts = [p.read_text() for p in CORRECT] * 4            # 20 correct, several styles
    texts += [p.read_text() for p in WRONG] * 2              # 10 hand-written wrong ones
    texts += mistaken                                        # every catalogue mistake once
    texts += [p.read_text() for p in BROKEN]
    texts += [p.read_text() for p in OTHER_EXERCISE]
    random.Random(0).shuffle(texts)  # a small class still gets a mix
    return texts


def build_class(folder: Path, students: int) -> None:
    pool = sources()
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for index in range(students):
        text = SLOW.read_text() if index == students // 2 else pool[index % len(pool)]
        (folder / f"s{index:03d}.py").write_text(text + f"\n# submitted by s{index:03d}\n")


def cpu_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all cores since boot."""
    with open("/proc/stat") as handle:
        fields = [int(v) for v in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def run(command: list[str]) -> tuple[float, float, int, str]:
    """Wall seconds, CPU seconds of the command and its waited-for descendants, exit, stdout."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    stdout = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status), stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the class and its outputs")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-batch-"))
    folder, out = workdir / "class", workdir / "out"
    build_class(folder, args.students)
    if out.exists():
        shutil.rmtree(out)
    grade = Path(sys.executable).with_name("grade")
    command = ([str(grade)] if grade.exists() else [sys.executable, "-m", "grader.commands.cli"]) + [
        "batch", str(folder), "-o", str(out), "--jobs", str(args.jobs), "--no-progress"]

    busy0, total0 = cpu_ticks()
    wall, cpu, code, stdout = run(command)
    busy1, total1 = cpu_ticks()
    if code != 0:
        raise SystemExit(f"grade batch failed ({code}):\n{stdout}")
    machine = 100 * (busy1 - busy0) / max(1, total1 - total0)
    print(f"class: {args.students} submissions, --jobs {args.jobs}, "
          f"{os.cpu_count()} cores on this machine, load before: {os.getloadavg()[0]:.1f}")
    print(f"first run:  {wall:7.1f} s wall  {args.students / wall:5.2f} submissions/s  "
          f"CPU {cpu:.1f} s = {100 * cpu / (wall * args.jobs):.0f}% of {args.jobs} cores; "
          f"all cores busy {machine:.0f}% (every process on the machine)")
    rewall, recpu, recode, restdout = run(command)
    print(f"re-run:     {rewall:7.1f} s wall  (CPU {recpu:.1f} s; nothing changed)")
    print(restdout.splitlines()[0] if restdout else "")
    print("\ngrades.csv (head):")
    print("".join((out / "grades.csv").read_text().splitlines(keepends=True)[:8]))
    with Gradebook(out / "gradebook.sqlite") as book:
        entries = [ClassEntry(g.student, report_from_json(g.report) if g.report else None,
                              g.error) for g in book.latest()]
    print("top of the mistake ranking:")
    for section in class_view(entries).sections:
        for row in section.mistakes[:6]:
            print(f"  {section.exercise}  {row.id:32} {len(row.students):3} students")
    print(f"\noutputs in {out}" if args.keep else "")
    if not args.keep and args.workdir is None:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
