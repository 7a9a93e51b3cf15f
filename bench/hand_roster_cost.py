"""What a roster's hand variants cost: assigning them, and grading a file on or off the roster.

Assigns the variants of a roster of made-up ids (``student000`` ...) as ``grade stub
--roster`` does, then grades, each in a fresh state (nothing drawn yet in the process):
a student's own file on their assigned variant (its variant line read), the same file
handed in by someone else (refused on its check), and that file without its variant line
(its corpus looked for among the submitter's own draws). Prints wall-clock and CPU seconds.
Run:

    python bench/hand_roster_cost.py [EXERCISE] [ROSTER_SIZE] [SECRET]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from grader.families.hand import mistakes, roster_sheets
from grader.grading.engine import grade_submission
from grader.spec import load_exercise


def timed(what: str, run) -> object:
    wall, cpu = time.perf_counter(), time.process_time()
    value = run()
    print(f"  {what:58s} {time.perf_counter() - wall:6.2f} s wall {time.process_time() - cpu:6.2f} s CPU")
    return value


def main(argv: list[str]) -> None:
    exercise = load_exercise(argv[1] if len(argv) > 1 else "hand-bpe")
    size = int(argv[2]) if len(argv) > 2 else 30
    secret = argv[3] if len(argv) > 3 else "secret-0"
    students = [f"student{i:03d}" for i in range(size)]
    print(f"{exercise.id}: roster of {size}, secret {secret!r}")
    mistakes.forget_drawn()
    sheets = timed(f"assign and render {size} answers files", lambda: roster_sheets(exercise, students, secret))
    late = max(students, key=lambda s: int(sheets[s].split("# Your variant: ")[1].split(" ")[0]))
    index = sheets[late].split("# Your variant: ")[1].split(" ")[0]
    folder = Path(tempfile.mkdtemp())
    with_line = folder / "with_line.yaml"
    with_line.write_text(sheets[late])
    without = folder / "without_line.yaml"
    without.write_text("".join(line for line in sheets[late].splitlines(keepends=True)
                               if not line.startswith("# Your variant:")))
    for what, path, who in ((f"own file, variant {index}, variant line read", with_line, late),
                            ("the same file handed in by a classmate (check refused)", with_line,
                             students[0] if late != students[0] else students[1]),
                            ("own file without its variant line (corpus searched)", without, late),
                            ("a classmate's file without it (32 draws searched)", without,
                             students[0] if late != students[0] else students[1])):
        mistakes.forget_drawn()
        timed(what, lambda: grade_submission(path, exercise, seed_secret=secret, submitter=who))


if __name__ == "__main__":
    main(sys.argv)
