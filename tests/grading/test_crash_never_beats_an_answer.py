"""A crash never earns more than an answer: a check's share for an input the code crashes on
is never larger than for a wrong answer there; points for pruning need the corpus; a case a
do-nothing submission passes is no evidence of work."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.grading.engine import grade_submission
from grader.spec import load_exercise

ROOT = Path(__file__).resolve().parents[2]
UNIGRAM = load_exercise("unigram-lm")
UNIGRAM_CORRECT = (ROOT / "examples" / "unigram-lm" / "student_correct.py").read_text(encoding="utf-8")
CLEANED = "def segment(text, pieces):\n    s = clean(text)\n"
KEPT = "        else:\n            tokens.append(s[i:j])\n"


def grade(tmp_path: Path, name: str, source: str, exercise):
    folder = tmp_path / name
    folder.mkdir()
    path = folder / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(path, exercise, seed_secret="s")


def milestone(report, milestone_id):
    return next(m for m in report.milestones if m.id == milestone_id)


@pytest.fixture(scope="module")
def unknown_characters(tmp_path_factory):
    """segment crashing on unknown characters, and segment dropping them (a wrong answer on
    exactly the inputs where the other crashes), each graded once."""
    tmp_path = tmp_path_factory.mktemp("unknown")
    assert CLEANED in UNIGRAM_CORRECT and KEPT in UNIGRAM_CORRECT
    crashing = UNIGRAM_CORRECT.replace(
        CLEANED, CLEANED + "    for character in s:\n        if character not in pieces:\n"
        "            raise KeyError(character)\n", 1)
    dropping = UNIGRAM_CORRECT.replace(
        KEPT, "        elif not unknown:\n            tokens.append(s[i:j])\n", 1)
    return (milestone(grade(tmp_path, "crash", crashing, UNIGRAM), "segment"),
            milestone(grade(tmp_path, "wrong", dropping, UNIGRAM), "segment"))


def test_segment_crashing_on_unknown_characters_earns_no_more_than_a_wrong_answer(unknown_characters):
    crashed, answered = unknown_characters
    assert crashed.score < crashed.max_score and answered.score < answered.max_score
    assert crashed.score <= answered.score, (crashed.score, answered.score)


def test_each_check_gives_a_crash_no_more_than_a_wrong_answer(unknown_characters):
    crashed, answered = unknown_characters
    wrong_scores = {check.id: check.score for check in answered.checks}
    for check in crashed.checks:
        assert check.score <= wrong_scores[check.id] + 1e-9, (check.id, check.message)


PRUNE = "def prune(corpus, pieces, keep):\n"


@pytest.mark.parametrize("order", ["pieces[p], p", "-len(p), p"])
def test_pruning_that_never_reads_the_corpus_earns_nothing(tmp_path, order):
    start = UNIGRAM_CORRECT.index(PRUNE)
    blind = UNIGRAM_CORRECT[:start] + PRUNE + f'''    multi = sorted((p for p in pieces if len(p) > 1), key=lambda p: ({order}))
    removed = set(multi[:max(0, len(pieces) - keep)])
    return {{p: v for p, v in pieces.items() if p not in removed}}
'''
    prune = milestone(grade(tmp_path, "blind", blind, UNIGRAM), "prune")
    assert prune.score == 0, [(c.id, c.score) for c in prune.checks]


WHOLE_WORD = {"bpe-train-encode": "encode", "bpe-steps": "encode", "lesson97-bpe": "tokenize"}


@pytest.mark.parametrize("exercise_id", sorted(WHOLE_WORD))
def test_an_encode_returning_the_whole_word_earns_nothing(tmp_path, exercise_id):
    exercise = load_exercise(exercise_id)
    name = WHOLE_WORD[exercise_id]
    source = (ROOT / "examples" / exercise_id / "student_correct.py").read_text(encoding="utf-8")
    source += f'''

def {name}(word, merges):
    return [word + "</w>"]
'''
    report = grade(tmp_path, "whole", source, exercise)
    encoding = next(m for m in report.milestones
                    if next(s for s in exercise.milestones if s.id == m.id).function
                    in ("encode", "tokenize"))
    assert encoding.score == 0, [(c.id, c.passed, c.score) for c in encoding.checks]
