"""One bug costs once, in efficiency too: a fast trainer whose merges are wrong in a way the
train milestone charges (one merge too few, pairs weighted by frequency squared, CS336's 2024
rule for special tokens) keeps its speed points; a run that skips the work does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.grading.engine import grade_submission
from grader.spec import load_exercise

ROOT = Path(__file__).resolve().parents[2]
TRAIN_ENCODE = load_exercise("bpe-train-encode")
BYTE = load_exercise("byte-bpe")
BYTE_SPEED = BYTE.model_copy(update={
    "milestones": [m for m in BYTE.milestones if m.check("efficiency") is not None]})
CORRECT = (ROOT / "examples" / "bpe-train-encode" / "student_correct.py").read_text(encoding="utf-8")
BYTE_CORRECT = (ROOT / "examples" / "byte-bpe" / "student_correct.py").read_text(encoding="utf-8")

WEIGHTED = "pairs[pair] = pairs.get(pair, 0) + freq\n"
LOOP = "    for _ in range(num_merges):\n"
SPLIT_OUT = "    for chunk in split_specials(text, special_tokens)[::2]:\n"

TRAINERS = {
    "one merge too few": CORRECT.replace(LOOP, "    for _ in range(num_merges - 1):\n"),
    "frequency squared": CORRECT.replace(WEIGHTED, "pairs[pair] = pairs.get(pair, 0) + freq * freq\n"),
}


def grade(tmp_path: Path, source: str, exercise):
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(path, exercise, seed_secret="s")


def efficiency_of(report):
    return next(m for m in report.milestones if m.id == "efficiency")


@pytest.mark.parametrize("bug", sorted(TRAINERS))
def test_a_fast_trainer_with_one_bug_keeps_its_speed_points(tmp_path, bug):
    source = TRAINERS[bug]
    assert source != CORRECT
    report = grade(tmp_path, source, TRAIN_ENCODE)
    train = next(m for m in report.milestones if m.id == "train")
    assert train.score < train.max_score  # the bug is charged where it lives
    speed = efficiency_of(report)
    assert speed.score == speed.max_score == 15, speed.checks[0].message


def test_cs336s_2024_special_token_rule_keeps_its_speed_points(tmp_path):
    assert SPLIT_OUT in BYTE_CORRECT
    source = BYTE_CORRECT.replace(SPLIT_OUT, "    for chunk in [text]:\n")
    report = grade(tmp_path, source, BYTE_SPEED)
    speed = efficiency_of(report)
    assert speed.score == speed.max_score == 15, speed.checks[0].message
    assert "learned 243 byte-level BPE merges" in speed.checks[0].message
    assert "milestone grades which merges are right" in speed.checks[0].message


COUNT_SERIALLY = '''    counts = Counter()
    for chunk in split_specials(text, special_tokens)[::2]:
        counts.update(PAT.findall(chunk))
    return counts
'''
COUNT_IN_A_FORKSERVER_POOL = '''    import multiprocessing
    chunks = split_specials(text, special_tokens)[::2]
    with multiprocessing.get_context("forkserver").Pool(2) as pool:
        parts = pool.map(count_chunk, chunks, chunksize=max(1, len(chunks) // 8))
    counts = Counter()
    for part in parts:
        counts.update(part)
    return counts


def count_chunk(chunk):
    return Counter(PAT.findall(chunk))
'''


def test_a_forkserver_pool_trainer_is_graded_like_its_serial_twin(tmp_path):
    assert COUNT_SERIALLY in BYTE_CORRECT
    pooled = BYTE_CORRECT.replace(COUNT_SERIALLY, COUNT_IN_A_FORKSERVER_POOL)
    (tmp_path / "pooled").mkdir()
    (tmp_path / "serial").mkdir()
    reports = [grade(tmp_path / "pooled", pooled, BYTE_SPEED),
               grade(tmp_path / "serial", BYTE_CORRECT, BYTE_SPEED)]
    [(pooled_score, pooled_message), (serial_score, serial_message)] = [
        (efficiency_of(r).score, efficiency_of(r).checks[0].message) for r in reports]
    assert pooled_score == serial_score == 15, pooled_message
    assert pooled_message == serial_message
