"""How often two students of a roster share an answer of a hand exercise.

Draws the variants of a roster of made-up ids (``student001`` ...) under a few secrets and
counts, for each question the exercise grades, the pairs of students whose expected answers
are equal, and the students who share that answer with at least one classmate. ``drawn``:
each student's first variant, as without a roster; ``roster``: the variants
``grade stub --roster`` assigns (``grader.families.hand.assignment``). Run:

    python bench/hand_collisions.py [EXERCISE] [ROSTER_SIZE] [SECRETS] [drawn|roster]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from itertools import combinations

from grader.families.hand.assignment import assign_variants
from grader.families.hand.expected import expected_answers
from grader.families.hand.mistakes import diagnostic_variant
from grader.spec import load_exercise


def shares(exercise, size: int, secret: str, mode: str) -> dict[str, tuple[int, int]]:
    """Question -> (pairs sharing the answer, students sharing it with someone)."""
    students = [f"student{i:03d}" for i in range(size)]
    if mode == "roster":
        variants = list(assign_variants(exercise, students, secret).values())
    else:
        variants = [diagnostic_variant(exercise, student, secret) for student in students]
    answers = [expected_answers(exercise, variant) for variant in variants]
    found = {}
    for question in answers[0]:
        keys = [json.dumps(a[question], sort_keys=True) for a in answers]
        counts = Counter(keys)
        pairs = sum(n * (n - 1) // 2 for n in counts.values())
        found[question] = (pairs, sum(n for n in counts.values() if n > 1))
    found["all"] = (sum(1 for a, b in combinations(answers, 2) if a == b), 0)
    return found


def main(argv: list[str]) -> None:
    exercise = load_exercise(argv[1] if len(argv) > 1 else "hand-bpe")
    size = int(argv[2]) if len(argv) > 2 else 30
    secrets = int(argv[3]) if len(argv) > 3 else 5
    mode = argv[4] if len(argv) > 4 else "drawn"
    total_pairs = size * (size - 1) // 2
    summed: dict[str, list[int]] = {}
    for number in range(secrets):
        for question, (pairs, students) in shares(exercise, size, f"secret-{number}", mode).items():
            summed.setdefault(question, [0, 0])
            summed[question][0] += pairs
            summed[question][1] += students
    print(f"{exercise.id}: roster of {size}, {secrets} secrets ({total_pairs} pairs each), {mode}")
    for question, (pairs, students) in summed.items():
        print(f"  {question:12s} pairs sharing it: {pairs / secrets / total_pairs:7.2%}"
              f"   students sharing it with someone: {students / secrets / size:7.2%}")


if __name__ == "__main__":
    main(sys.argv)
