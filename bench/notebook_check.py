"""Benchmark of ``check()`` from a notebook cell: how long it takes on a correct solution.

    python bench/notebook_check.py [--runs 5] [--cold] [SUBMISSION]

Each run starts a fresh kernel (nbclient + ipykernel), runs the solution as two cells, then
``check()`` twice, timing each call inside the kernel (``time.perf_counter`` around the call,
the grader's import included in the first). The grader's cache (the validated spec and the
work prepared from it) is one folder for all runs, warmed by an untimed run first, as a
student's is after their first check; ``--cold`` gives each run a fresh one, as on the very
first check. Prints the median and the range of the first and of the second call, and of
the whole kernel run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "tests" / "submissions" / "correct_dicts.py"
TIMED = ("import time as _t\n_s = _t.perf_counter()\ncheck()\n"
         "print('seconds', _t.perf_counter() - _s)")


def one_run(source: str, cache: str) -> tuple[float, float, float]:
    head, tail = source.split("\ndef encode", 1)
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in (
        head, "def encode" + tail, "from grader.notebook import check", TIMED, TIMED)])
    started = time.perf_counter()
    os.environ["GRADE_CACHE_DIR"] = cache
    NotebookClient(book, timeout=300, kernel_name="python3").execute()
    whole = time.perf_counter() - started
    seconds = [float(output.text.split()[-1]) for cell in book.cells[-2:]
               for output in cell.outputs if output.output_type == "stream"
               and output.text.startswith("seconds")]
    return seconds[0], seconds[1], whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="a fresh cache for every run")
    arguments = parser.parse_args()
    source = arguments.submission.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as shared:
        if not arguments.cold:
            one_run(source, shared)
        runs = []
        for _ in range(arguments.runs):
            with tempfile.TemporaryDirectory() as fresh:
                runs.append(one_run(source, fresh if arguments.cold else shared))
    for index, label in enumerate(("first check()", "second check()", "kernel run")):
        values = [run[index] for run in runs]
        print(f"{label:15} median {statistics.median(values):6.2f} s  "
              f"(min {min(values):.2f}, max {max(values):.2f}, {len(values)} runs)")


if __name__ == "__main__":
    sys.exit(main())
