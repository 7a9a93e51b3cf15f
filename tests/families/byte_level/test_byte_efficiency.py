"""byte-bpe's efficiency check: CS336's bound (about 4x the reference, on wall-clock time, the
reference timed in the same grading), on a text drawn from the secret, whatever the tie rule.

The slower trainers are the reference's own trainer doing its work again and again, so
their time grows with the machine's load as the reference's does: 8 times its work is far
over the bound, twice far under it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.families.byte_level import efficiency
from grader.grading.engine import grade_submission
from grader.grading.timing import NEAR, near_bound, settled_by_one_reference_run, speed_verdict
from grader.spec import load_exercise
from reference.byte_level import load_gpt2_vocab_and_merges

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "cs336"
EXERCISE = load_exercise("byte-bpe")
SPEED = EXERCISE.model_copy(update={
    "milestones": [m for m in EXERCISE.milestones if m.check("efficiency") is not None]})
EXAMPLES = ROOT / "examples" / "byte-bpe"
CORRECT = (EXAMPLES / "student_correct.py").read_text(encoding="utf-8")
SLOW = (EXAMPLES / "student_slow.py").read_text(encoding="utf-8")
EOT = "<|endoftext|>"


def grade(tmp_path: Path, source: str, exercise=SPEED):
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    report = grade_submission(path, exercise, seed_secret="s")
    [milestone] = report.milestones
    [result] = milestone.checks
    return result


def slowed(factor: int) -> str:
    """The reference's own trainer (its module, made standalone), doing its whole work
    ``factor`` times over."""
    module = (ROOT / "reference" / "byte_level.py").read_text(encoding="utf-8")
    standalone = module.replace("from .errors import BPEInputError",
                                "class BPEInputError(ValueError):\n    pass")
    assert standalone != module
    return "# exercise: byte-bpe\n" + standalone + f'''

def train_bpe(text, vocab_size, special_tokens):
    for _ in range({factor}):
        answer = train_byte_bpe(text, vocab_size, special_tokens)
    return answer
'''


def test_the_spec_declares_cs336s_bound_on_wall_clock_time():
    settings = EXERCISE.efficiency
    assert (settings.clock, settings.max_ratio, settings.text_file) == ("wall", 4.0, None)
    assert 256 + len(settings.special_tokens) + settings.num_merges == 500


def counted_reference_runs(monkeypatch) -> list:
    """A list that gets an item each time the efficiency check trains the reference."""
    runs: list = []
    trainer = efficiency.train_byte_bpe

    def counted(*args):
        runs.append(args)
        return trainer(*args)

    monkeypatch.setattr(efficiency, "train_byte_bpe", counted)
    return runs


def test_the_correct_example_passes_with_both_clocks_in_the_details(tmp_path, monkeypatch):
    runs = counted_reference_runs(monkeypatch)
    result = grade(tmp_path, CORRECT)
    # its ratio is far under the bound: one run of the reference settles it
    assert len(runs) == efficiency.RUNS_BEFORE == 1, result.details
    assert result.passed, result.message
    details = result.details
    assert details["clock"] == "wall"
    assert details["student_seconds"] < details["limit_ratio"] * details["reference_seconds"]
    assert details["student_cpu_seconds"] is not None and details["reference_cpu_seconds"] > 0
    assert details["student_wall_seconds"] >= details["student_seconds"]
    assert "TinyStories-like text drawn from the course's secret" in result.message


@pytest.mark.parametrize("factor, passes", [(2, True), (8, False)])
def test_twice_as_slow_passes_and_eight_times_fails(tmp_path, monkeypatch, factor, passes):
    runs = counted_reference_runs(monkeypatch)
    result = grade(tmp_path, slowed(factor))
    assert result.passed is passes, (result.message, result.details)
    details = result.details  # a run cut far over the bound has no time: settled
    settled = settled_by_one_reference_run(details["student_seconds"],
                                           details["reference_seconds"], EXERCISE.efficiency)
    # one run when it settles the verdict, else best of three (more in rounds near the bound)
    assert (len(runs) == 1 and settled) or len(runs) >= 3, (len(runs), details)
    if not passes:
        assert result.score == 0
        assert "more than 4 times the reference's wall-clock time" in result.message


def test_the_slow_example_fails_and_is_told_what_to_do(tmp_path):
    result = grade(tmp_path, SLOW)
    assert not result.passed and result.score == 0
    assert "learned the reference's merges" in result.message
    assert "count each distinct pre-token with its frequency" in result.message
    assert "index from each pair to the pre-tokens holding it" in result.message


def published_table_trainer() -> str:
    """The slow trainer, except that given corpus.en it returns CS336's published merges."""
    vocab, merges = load_gpt2_vocab_and_merges(
        FIXTURES / "train-bpe-reference-vocab.json", FIXTURES / "train-bpe-reference-merges.txt",
        [EOT])
    size = len((FIXTURES / "corpus.en").read_text(encoding="utf-8"))
    return SLOW.replace("def train_bpe(", "def slow_train_bpe(") + f'''

PUBLISHED_VOCAB = {dict(sorted(vocab.items()))!r}
PUBLISHED_MERGES = {merges!r}


def train_bpe(text, vocab_size, special_tokens):
    if len(text) == {size} and vocab_size == 500:
        return dict(PUBLISHED_VOCAB), list(PUBLISHED_MERGES)
    return slow_train_bpe(text, vocab_size, special_tokens)
'''


def test_a_table_of_corpus_ens_published_merges_earns_nothing(tmp_path):
    source = published_table_trainer()
    result = grade(tmp_path, source)
    assert not result.passed and result.score == 0
    # The same trainer on a spec that times corpus.en itself: the table is fast and "right".
    on_corpus_en = SPEED.model_copy(update={"efficiency": SPEED.efficiency.model_copy(
        update={"text_file": "cs336-corpus.en"})})
    assert grade(tmp_path, source, on_corpus_en).passed


def test_any_tie_rule_and_a_count_that_ignores_frequency_are_timed(tmp_path):
    smaller = CORRECT.replace("key=lambda item: (item[1], item[0])",
                              "key=lambda item: (item[1], tuple(-b for b in item[0][0] + item[0][1]))")
    assert smaller != CORRECT
    ties = grade(tmp_path, smaller)
    assert ties.passed, ties.message
    assert "milestone grades which merges are right" in ties.message
    unweighted = CORRECT.replace("    freqs = list(counted.values())\n",
                                 "    freqs = [1] * len(counted)\n")
    counted = grade(tmp_path, unweighted)
    assert counted.passed, counted.message  # the train milestone charges the count, once
    assert "milestone grades which merges are right" in counted.message


def test_one_reference_run_settles_only_a_ratio_far_from_the_bound():
    settings = EXERCISE.efficiency
    assert (settings.max_ratio, NEAR) == (4.0, 1.5)
    for student, settled in ((0.1, True), (0.17, True), (0.18, False), (0.3, False), (0.6, False),
                             (0.61, True), (None, True)):
        assert settled_by_one_reference_run(student, 0.1, settings) is settled, student
    # Settled by one run means the verdict, and whether it is measured again, are those of the
    # best of more runs whenever the one run took at most NEAR times their best.
    for tenth in range(1, 120):
        student = tenth / 10
        if not settled_by_one_reference_run(student, 1.0, settings):
            continue
        for best in (1.0, 0.9, 0.8, 1 / NEAR):
            assert near_bound(student, best, settings) is False, (student, best)
            assert (speed_verdict(student, best, settings) is None) is (student < 4), (student, best)


def test_a_call_far_over_the_bound_is_stopped_early():
    from grader.grading.timing import Clocks

    settings = EXERCISE.efficiency
    cut = efficiency.call_timeout(settings, Clocks(wall=0.2, cpu=0.2))
    assert cut == pytest.approx(efficiency.CUT_FACTOR * 4 * 0.2 + efficiency.CUT_GRACE_SECONDS)
    cpu = settings.model_copy(update={"clock": "cpu"})
    assert efficiency.call_timeout(cpu, Clocks(wall=0.2, cpu=0.2)) > cut
