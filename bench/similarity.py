"""``grade similarity`` on a large class: time, peak memory and pairs found.

    python bench/similarity.py [--students 500] [--threshold 0.5]

The class is built from the ten independent solutions in ``tests/batch/similarity_class``:
each student gets one of them, disguised (names renamed, functions reordered, comments
added) in a way of its own, so every file differs and each tenth of the class holds copies
of one solution. Prints the seconds and peak RSS of the comparison and how many pairs it
listed (copies of one solution are all pairs of its tenth: 10 * C(N/10, 2) of them).
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "batch"))

from grader.batch.similarity import find_similar  # noqa: E402
from grader.spec import load_exercise  # noqa: E402
from test_batch_similarity import disguised, solutions  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args()
    originals = list(solutions().values())
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(prefix="bench-similarity-") as scratch:
        folder = Path(scratch) / "class"
        folder.mkdir()
        for number in range(args.students):
            text = disguised(originals[number % len(originals)])
            padding = "".join(f"# note {rng.random()}\n" for _ in range(rng.randint(0, 5)))
            (folder / f"s{number:04d}.py").write_text(padding + text)
        started = time.monotonic()
        report = find_similar(folder, load_exercise("bpe-train-encode"),
                              threshold=args.threshold)
        seconds = time.monotonic() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    group = args.students // len(originals)
    print(f"{report.students} submissions compared in {seconds:.1f} s, peak RSS {peak:.0f} MiB; "
          f"{len(report.pairs)} pairs listed (copies make {len(originals) * group * (group - 1) // 2})")


if __name__ == "__main__":
    main()
