"""Benchmark of grading a submission whose trainer never returns.

    python bench/loops.py [EXERCISE ...] [--keep DIR]

For each exercise with code (default: every shipped one that has a correct example), the
correct example is graded with its training function replaced by ``while True: pass``: the
script prints the wall time of ``grade submit --format json`` in a fresh process, the score,
and each milestone's points, so that a loop's cost (and what the other functions still earn)
shows at a glance. ``--keep DIR`` leaves the looping sources there.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# exercise -> the name of the function that trains (replaced by a loop)
LOOPING = {
    "bpe-train-encode": "train_bpe",
    "lesson97-bpe": "train_bpe",
    "bpe-steps": "train_bpe",
    "byte-bpe": "train_bpe",
    "wordpiece": "train_wordpiece",
    "unigram-lm": "em_step",
}


def looping_source(exercise: str) -> str:
    """The correct example of ``exercise`` with its trainer redefined as an endless loop."""
    source = (ROOT / "examples" / exercise / "student_correct.py").read_text()
    name = LOOPING[exercise]
    return source + f"\n\ndef {name}(*args, **kwargs):\n    while True:\n        pass\n"


def grade(path: Path, exercise: str) -> tuple[float, dict]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "grade"), "submit", str(path), "--exercise", exercise,
         "--format", "json", "-q"], capture_output=True, text=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    try:
        return seconds, json.loads(done.stdout)
    except json.JSONDecodeError:
        return seconds, {"error": done.stderr.strip()[-300:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="*", default=list(LOOPING))
    parser.add_argument("--keep", type=Path, default=None)
    options = parser.parse_args()
    folder = options.keep or Path(tempfile.mkdtemp(prefix="loops-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"{'exercise':18} {'loops in':16} {'wall s':>7} {'score':>7}  milestones")
    for exercise in options.exercises:
        path = folder / f"{exercise}-loop.py"
        path.write_text(looping_source(exercise))
        seconds, result = grade(path, exercise)
        if "error" in result:
            print(f"{exercise:18} {LOOPING[exercise]:16} {seconds:7.1f}  error: {result['error']}")
            continue
        milestones = ", ".join(f"{m['title']}: {m['score']:g}/{m['max_score']:g}"
                               for m in result.get("milestones", []))
        print(f"{exercise:18} {LOOPING[exercise]:16} {seconds:7.1f} {result['score']:7.2f}  "
              f"{milestones}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
