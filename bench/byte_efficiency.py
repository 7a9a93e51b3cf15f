"""byte-bpe's efficiency check on the shipped examples: the ratios it measures, run after run.

    python bench/byte_efficiency.py [--runs 3] [--secret TEXT]

Grades only the efficiency milestone of ``byte-bpe`` (sandbox included) for
``examples/byte-bpe/student_correct.py`` (pre-tokens counted once, incremental pair counts),
``student_slow.py`` (every pair recounted after each merge) and the reference's own trainer
doing its work twice and eight times over, and prints per run the verdict, the time on the
spec's clock, the student's wall and CPU seconds, the reference's, and the ratio.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.grading.engine import grade_submission  # noqa: E402
from grader.spec import load_exercise  # noqa: E402


def repeated_reference(times: int) -> str:
    module = (ROOT / "reference" / "byte_level.py").read_text(encoding="utf-8")
    module = module.replace("from .errors import BPEInputError",
                            "class BPEInputError(ValueError):\n    pass")
    return ("# exercise: byte-bpe\n" + module + "\n\ndef train_bpe(text, vocab_size, special_tokens):\n"
            f"    for _ in range({times}):\n"
            "        answer = train_byte_bpe(text, vocab_size, special_tokens)\n"
            "    return answer\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--secret", default="bench")
    options = parser.parse_args()
    exercise = load_exercise("byte-bpe")
    speed = exercise.model_copy(update={
        "milestones": [m for m in exercise.milestones if m.check("efficiency") is not None]})
    examples = ROOT / "examples" / "byte-bpe"
    sources = {
        "student_correct.py": (examples / "student_correct.py").read_text(encoding="utf-8"),
        "student_slow.py": (examples / "student_slow.py").read_text(encoding="utf-8"),
        "reference x2": repeated_reference(2),
        "reference x8": repeated_reference(8),
    }
    print(f"{'submission':20} {'run':>3} {'verdict':8} {'clock s':>8} {'wall s':>8} {'cpu s':>8} "
          f"{'ref s':>8} {'ref wall':>8} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for label, source in sources.items():
            path = Path(folder) / "student.py"
            path.write_text(source, encoding="utf-8")
            for run in range(1, options.runs + 1):
                report = grade_submission(path, speed, seed_secret=f"{options.secret}-{run}")
                [result] = report.milestones[0].checks
                d = result.details or {}
                ratio = (d["student_seconds"] / d["reference_seconds"]
                         if d.get("student_seconds") and d.get("reference_seconds") else float("nan"))
                print(f"{label:20} {run:>3} {'pass' if result.passed else 'fail':8} "
                      f"{d.get('student_seconds') or float('nan'):8.3f} "
                      f"{d.get('student_wall_seconds') or float('nan'):8.3f} "
                      f"{d.get('student_cpu_seconds') or float('nan'):8.3f} "
                      f"{d.get('reference_seconds', float('nan')):8.3f} "
                      f"{d.get('reference_wall_seconds') or float('nan'):8.3f} {ratio:6.2f}")


if __name__ == "__main__":
    main()
