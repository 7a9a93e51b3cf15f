"""Benchmark of ``grade batch``: the CPU of one grading in a class, and the parent's time and
memory on a synthetic class of any size.

    python bench/batch.py [--students 200] [--jobs N] [--baseline DIR] [--workdir DIR] [--keep]
    python bench/batch.py --synthetic 10000 [--baseline DIR]
    python bench/batch.py --mixed [--copies 4] [--jobs N] [--by-kind] [--baseline DIR]

The class mixes copies and variants of the shipped examples and test submissions: correct
ones in several styles, the catalogue's mistaken students (one known mistake each), broken
ones (syntax error, raising, missing function), a few for the other exercise, and one too
slow for the efficiency milestone. Each copy ends with a comment naming its student, so no
two files are equal. Every exercise is graded in full (efficiency milestone included), from
each file's ``# exercise:`` header, as ``grade batch`` grades it (its own process, the batch
run in-process so that its own CPU is told from its gradings').

Prints the CPU seconds per grading (the batch process and every process it waited for) and
its ratio to W, the CPU of ``python3 -c 'sum(range(30_000_000))'`` measured in the same run
(the median of three just before and three just after each checkout's gradings), the share of
the batch process itself (commits, decoding, rendering, forking), its peak RSS, the wall time
and the re-run with nothing changed.

``--synthetic N`` grades a few submissions once, records N gradings cycling their reports
through the gradebook API (the first 200 timed as a batch records them), then writes the
outputs in a fresh process: every report rendered (a first run), then only the CSV files and
the class report (a re-run); it prints the time and the peak RSS of each phase.

``--mixed`` grades a class of every shipped exercise: per exercise, copies of its correct and
wrong examples and, for code exercises, one whose first function raises and one whose first
function never returns. It prints, per exercise, the CPU seconds per grading and its ratio to W,
then the whole class's CPU per submission as a ratio to W, and the projected wall time of a
10,000-student class on one 32-core Slurm node (the class's CPU divided over 32 cores as fast as
this machine's, the batch process's own share included). With ``--by-kind`` each kind of
submission of each exercise is its own batch (one row each), and the CPU per grading of every
correct, wrong, crashing and looping submission is printed too: the CPU of the gradings'
own processes, each batch's process (which imports and prepares once) aside; the rows and the
whole class include it, once per batch.

``--baseline DIR`` (repeatable) runs the same measurements with another checkout (``git
archive COMMIT | tar -x -C DIR``) and prints its figures beside this one's, each row labelled
with the folder's name. With ``--mixed`` each part of the class is graded by each checkout in
turn, one right after the other.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKOUT = Path(os.environ.get("BENCH_CHECKOUT") or ROOT)
sys.path.insert(0, str(CHECKOUT))

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
TIMED_RECORDS = 200


# --------------------------------------------------------------------------- the class


def sources() -> list[str]:
    """One source per kind of student, in the proportions the class is built with."""
    from grader.spec import load_exercise
    from grader.spec.registry import family_of

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
        (folder / f"s{index:05d}.py").write_text(text + f"\n# submitted by s{index:05d}\n")


# --------------------------------------------------------------------------- measuring


def cpu_of(command: list[str], env: dict | None = None) -> tuple[float, float, str]:
    """CPU seconds of ``command`` and its waited-for descendants, wall seconds, stdout."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    stdout = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command[:3]} failed:\n{stdout}")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started, stdout


def workload() -> float:
    """W: the CPU of the fixed workload, median of three."""
    return statistics.median(cpu_of(["python3", "-c", "sum(range(30_000_000))"])[0]
                             for _ in range(3))


def inner(checkout: Path, *args: str) -> dict:
    """Run a phase of this script in a fresh process importing ``checkout``'s grader."""
    env = dict(os.environ, BENCH_CHECKOUT=str(checkout), PYTHONPATH=str(checkout))
    _, _, stdout = cpu_of([sys.executable, str(Path(__file__).resolve()), "--inner", *args],
                          env=env)
    return json.loads(stdout.strip().splitlines()[-1])


def usage() -> dict:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"self_cpu": me.ru_utime + me.ru_stime,
            "children_cpu": children.ru_utime + children.ru_stime,
            "peak_rss_mb": me.ru_maxrss / 1024}


def phase_grade(folder: str, out: str, jobs: str, exercise: str = "") -> dict:
    from grader.batch.batch import BatchOptions, run_batch
    from grader.grading.secrets import resolve_secret

    started = time.perf_counter()
    summary = run_batch(Path(folder), Path(out), BatchOptions(
        exercise=exercise or None, jobs=int(jobs), progress=False,
        grading_options={"strict_sandbox": False, "seed_secret": resolve_secret(None)}))
    return {"wall": time.perf_counter() - started, "graded": summary.graded,
            "reused": summary.reused, "line": summary.lines()[0], **usage()}


def phase_samples(path: str) -> dict:
    """Grade a few submissions; write their stored reports to ``path``."""
    from grader.batch.stored import stored_output, stored_report
    from grader.grading.engine import grade_submission
    from grader.spec import load_exercise
    from grader.spec.registry import family_of

    exercise = load_exercise("bpe-train-encode")
    students = family_of(exercise).students
    folder = Path(path).parent / "samples"
    folder.mkdir(exist_ok=True)
    mistaken = folder / "mistaken.py"
    mistaken.write_text(students.source(exercise, students.applicable(exercise)[0].id))
    samples = []
    for source in [CORRECT[0], WRONG[0], BROKEN[1], mistaken]:
        report = grade_submission(source, exercise)
        samples.append([stored_report(report), stored_output(report.student_output)])
    Path(path).write_text(json.dumps(samples))
    return {"samples": len(samples)}


def phase_build(samples_path: str, out: str, count: str) -> dict:
    """Record ``count`` gradings cycling the samples, the first ones timed."""
    from grader.batch.gradebook import Gradebook

    samples = json.loads(Path(samples_path).read_text())
    # What a grading process sends with its report, where the gradebook takes it.
    made_in_grading = {}
    if "summary" in inspect.signature(Gradebook.record).parameters:
        from grader.batch.summaries import summarize

        made_in_grading = {index: {"summary": summarize(report),
                                   "report_json": json.dumps(report, ensure_ascii=False)}
                           for index, (report, _) in enumerate(samples)}
    Path(out).mkdir(parents=True, exist_ok=True)
    book = Gradebook(Path(out) / "gradebook.sqlite")
    started, timed = time.perf_counter(), 0.0
    for index in range(int(count)):
        report, output = samples[index % len(samples)]
        not_gradable = any(e.startswith("Not gradable: ") for e in report["errors"])
        sent = made_in_grading.get(index % len(samples), {})
        book.record({
            "student": f"s{index:05d}", "exercise": report["exercise"], "entry": f"s{index:05d}.py",
            "submission_sha256": f"{index:064d}", "spec_sha256": "0" * 64,
            "grader_version": "bench", "settings_sha256": "0" * 64,
            "outcome": "not-gradable" if not_gradable else "graded", "score": report["score"],
            "max_score": report["max_score"], "report": report, "student_output": output,
            "seconds": 1.0}, **sent)
        if index + 1 == TIMED_RECORDS:
            timed = time.perf_counter() - started
            # The rest as fast as the file allows: only the first ones are the measurement.
            book.db.execute("PRAGMA synchronous=OFF")
    book.close()
    return {"record_ms": 1000 * timed / min(int(count), TIMED_RECORDS),
            "build_s": time.perf_counter() - started}


def phase_outputs(out: str, fresh: str) -> dict:
    """Write the outputs of an existing folder: every report rendered, or none."""
    from grader.batch import outputs
    from grader.batch.gradebook import Gradebook

    started = time.perf_counter()
    with Gradebook(Path(out) / "gradebook.sqlite") as book:
        gradings = book.latest()
        ids = {g.id for g in gradings} if fresh == "all" else set()
        settings = outputs.OutputSettings()
        if "book" in inspect.signature(outputs.write_outputs).parameters:
            written = outputs.write_outputs(Path(out), book, gradings, settings, ids)
        else:  # a checkout from before the gradebook counted the class report
            written = outputs.write_outputs(Path(out), gradings, book.unusable(), settings, ids)
    return {"wall": time.perf_counter() - started, "reports": written.reports, **usage()}


PHASES = {"grade": phase_grade, "samples": phase_samples, "build": phase_build,
          "outputs": phase_outputs}


# --------------------------------------------------------------------------- the two modes


def real_class(args: argparse.Namespace, checkouts: list[tuple[str, Path]], workdir: Path) -> None:
    folder = workdir / "class"
    build_class(folder, args.students)
    print(f"class: {args.students} submissions, --jobs {args.jobs}, {os.cpu_count()} cores, "
          f"load before: {os.getloadavg()[0]:.1f}")
    print(f"{'checkout':10} {'CPU-s/grading':>13} {'W':>6} {'x W':>5} {'batch process':>14} "
          f"{'peak RSS':>9} {'wall':>7} {'re-run':>7}", flush=True)
    for label, checkout in checkouts:
        out = workdir / f"out-{label}"
        shutil.rmtree(out, ignore_errors=True)
        before = workload()
        first = inner(checkout, "grade", str(folder), str(out), str(args.jobs))
        w = statistics.median([before, workload()])
        again = inner(checkout, "grade", str(folder), str(out), str(args.jobs))
        total = first["self_cpu"] + first["children_cpu"]
        per = total / max(1, first["graded"])
        print(f"{label:10} {per:13.3f} {w:6.3f} {per / w:5.2f} "
              f"{first['self_cpu'] / max(1, first['graded']):11.4f} s "
              f"{first['peak_rss_mb']:6.0f} MB {first['wall']:6.1f}s {again['wall']:6.1f}s")
        print(f"{'':10} {first['line']}", flush=True)
    print("(CPU-s/grading: the batch process and all it waited for, over the gradings; W: the "
          "median of its CPU just before and just after the row's gradings; batch process: "
          "its own CPU per grading, warm-up included)")


MIXED_CLASS_SIZE = 10_000
MIXED_NODE_CORES = 32


def first_function(exercise_id: str) -> str | None:
    """The name of the function the exercise's first milestone grades, None for answers files."""
    from grader.spec import load_exercise

    exercise = load_exercise(exercise_id)
    if not exercise.functions:
        return None
    return exercise.function(exercise.milestones[0].function).name


def mixed_sources(copies: int) -> dict[str, list[tuple[str, str, str]]]:
    """exercise id -> the texts of its part of the mixed class, each with its file suffix and
    its kind (correct, wrong, crashing, looping)."""
    class_by_exercise: dict[str, list[tuple[str, str, str]]] = {}
    for folder in sorted(p for p in EXAMPLES.iterdir() if p.is_dir()):
        correct = sorted(folder.glob("*_correct.*"))
        wrong = sorted(folder.glob("*_wrong.*"))
        suffix = correct[0].suffix if correct else ".py"
        texts = ([(f.read_text(), suffix, "correct") for f in correct]
                 + [(f.read_text(), suffix, "wrong") for f in wrong]) * copies
        name = first_function(folder.name)
        if name and correct:
            base = correct[0].read_text()
            texts.append((base + f"\n\ndef {name}(*args, **kwargs):\n    raise RuntimeError('crash')\n",
                          suffix, "crashing"))
            texts.append((base + f"\n\ndef {name}(*args, **kwargs):\n    while True:\n        pass\n",
                          suffix, "looping"))
        class_by_exercise[folder.name] = texts
    return class_by_exercise


def suffix_of(texts: list[tuple[str, str, str]]) -> str:
    return texts[0][1] if texts else ".py"


def mixed(args: argparse.Namespace, checkouts: list[tuple[str, Path]], workdir: Path) -> None:
    parts = mixed_sources(args.copies)
    print(f"mixed class: every exercise, --jobs {args.jobs}, {os.cpu_count()} cores, "
          f"load before: {os.getloadavg()[0]:.1f}")
    width = 27 if args.by_kind else 18
    paired = len(checkouts) > 1
    print(f"{'exercise':{width}} " + (f"{'checkout':10} " if paired else "")
          + f"{'gradings':>8} {'CPU-s/grading':>13} {'x W':>6} {'wall':>7}", flush=True)
    totals = {label: [0.0, 0] for label, _ in checkouts}
    kinds: dict[tuple[str, str], list[float]] = {}
    ws = []
    for exercise, texts in parts.items():
        groups = ([(kind, [t for t in texts if t[2] == kind])
                   for kind in dict.fromkeys(t[2] for t in texts)] if args.by_kind
                  else [("", texts)])
        for kind, group in groups:
            label = f"{exercise} {kind}".strip()
            # Each checkout grades the same part one after the other: paired rows.
            for name, checkout in checkouts:
                cpu, own, count, w, wall = grade_mixed_part(args, workdir, label, exercise, group,
                                                            checkout)
                ws.append(w)
                totals[name][0] += cpu
                totals[name][1] += count
                if kind:
                    kinds.setdefault((kind, name), [0.0, 0])
                    kinds[(kind, name)][0] += cpu - own
                    kinds[(kind, name)][1] += count
                per_grading = cpu / max(1, count)
                print(f"{label:{width}} " + (f"{name:10} " if paired else "")
                      + f"{count:8d} {per_grading:13.3f} {per_grading / w:6.2f} {wall:6.1f}s",
                      flush=True)
    w = statistics.median(ws)
    for (kind, name), (cpu, count) in kinds.items():
        print(f"every {kind} submission" + (f" ({name})" if paired else "")
              + f": {count} gradings, {cpu / max(1, count):.3f} CPU-s each "
              f"= {cpu / max(1, count) / w:.2f} x W (the gradings' processes, batch process aside)")
    for name, (cpu, count) in totals.items():
        per = cpu / max(1, count)
        projected = per * MIXED_CLASS_SIZE / MIXED_NODE_CORES
        print(("" if not paired else f"{name}: ")
              + f"whole class: {count} gradings, {per:.3f} CPU-s per submission = "
              f"{per / w:.2f} x W (W = {w:.3f} CPU-s, target <= 0.5 x W)")
        print(("" if not paired else f"{name}: ")
              + f"projected: {MIXED_CLASS_SIZE:,} students on one {MIXED_NODE_CORES}-core Slurm "
              f"node with cores as fast as this machine's: {projected / 60:.1f} min "
              f"({per:.3f} CPU-s x {MIXED_CLASS_SIZE:,} / {MIXED_NODE_CORES})")


def grade_mixed_part(args: argparse.Namespace, workdir: Path, label: str, exercise: str,
                     texts: list[tuple[str, str, str]],
                     checkout: Path = ROOT) -> tuple[float, float, int, float, float]:
    """Grade one part of the mixed class as one batch with ``checkout``'s grader: its CPU (the
    batch process and all it waited for), the batch process's own, the gradings, W measured
    just before and after, and the batch's wall time."""
    name = label.replace(" ", "-")
    folder = workdir / "mixed" / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for index, (text, suffix, _) in enumerate(texts):
        ending = f"\n# submitted by m{index:05d}\n" if suffix == ".py" else f"\n# m{index:05d}\n"
        (folder / f"m{index:05d}{suffix}").write_text(text + ending)
    out = workdir / "mixed-out" / name
    shutil.rmtree(out, ignore_errors=True)
    w_before = workload()
    # Answers files are graded for a named exercise; code files name theirs in the header.
    named = exercise if suffix_of(texts) != ".py" else ""
    graded = inner(checkout, "grade", str(folder), str(out), str(args.jobs), named)
    w = statistics.median([w_before, workload()])
    return (graded["self_cpu"] + graded["children_cpu"], graded["self_cpu"], graded["graded"], w,
            graded["wall"])


def synthetic(args: argparse.Namespace, checkouts: list[tuple[str, Path]], workdir: Path) -> None:
    samples = workdir / "samples.json"
    inner(ROOT, "samples", str(samples))
    print(f"synthetic class: {args.synthetic} gradings of 4 sample reports "
          f"({samples.stat().st_size // 4 // 1024} KB of JSON each)")
    print(f"{'checkout':10} {'record':>9} {'first run: time':>16} {'peak RSS':>9} "
          f"{'re-run: time':>13} {'peak RSS':>9}")
    for label, checkout in checkouts:
        out = workdir / f"synthetic-{label}"
        shutil.rmtree(out, ignore_errors=True)
        built = inner(checkout, "build", str(samples), str(out), str(args.synthetic))
        first = inner(checkout, "outputs", str(out), "all")
        again = inner(checkout, "outputs", str(out), "none")
        print(f"{label:10} {built['record_ms']:6.2f} ms {first['wall']:15.1f}s "
              f"{first['peak_rss_mb']:6.0f} MB {again['wall']:12.1f}s {again['peak_rss_mb']:6.0f} MB")
    print("(record: one grading recorded, as the batch process does it; first run: the "
          "outputs with every report rendered; re-run: the CSV files and the class report)")


def main() -> None:
    if sys.argv[1:2] == ["--inner"]:
        print(json.dumps(PHASES[sys.argv[2]](*sys.argv[3:])))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--synthetic", type=int, metavar="N",
                        help="a synthetic class of N gradings: the output phase only")
    parser.add_argument("--baseline", type=Path, metavar="DIR", action="append", default=[],
                        help="another checkout, measured the same way (may be repeated)")
    parser.add_argument("--mixed", action="store_true",
                        help="a class of every shipped exercise: correct, wrong, crashing, looping")
    parser.add_argument("--copies", type=int, default=4,
                        help="with --mixed: copies of each correct and wrong example")
    parser.add_argument("--by-kind", action="store_true",
                        help="with --mixed: each kind of submission of each exercise graded as "
                             "its own batch, and the CPU per grading of each kind")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the class and its outputs")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-batch-"))
    workdir.mkdir(parents=True, exist_ok=True)
    checkouts = [(path.name[:10], path.resolve()) for path in args.baseline] + [("this", ROOT)]
    try:
        if args.mixed:
            mixed(args, checkouts, workdir)
        else:
            (synthetic if args.synthetic else real_class)(args, checkouts, workdir)
    finally:
        if args.keep:
            print(f"outputs in {workdir}")
        elif args.workdir is None:
            shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
