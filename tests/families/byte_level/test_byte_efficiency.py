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


def test_the_correct_example_passes_with_both_clocks_in_the_details(tmp_path):
    result = grade(tmp_path, CORRECT)
    assert result.passed, result.message
    details = result.details
    assert details["clock"] == "wall"
    assert details["student_seconds"] < details["limit_ratio"] * details["reference_seconds"]
    assert details["student_cpu_seconds"] is not None and details["reference_cpu_seconds"] > 0
    assert details["student_wall_seconds"] >= details["student_seconds"]
    assert "TinyStories-like text drawn from the course's secret" in result.message


@pytest.mark.parametrize("factor, passes", [(2, True), (8, False)])
def test_twice_as_slow_passes_and_eight_times_fails(tmp_path, factor, passes):
    result = grade(tmp_path, slowed(factor))
    assert result.passed is passes, (result.message, result.details)
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


def test_a_call_far_over_the_bound_is_stopped_early():
    from grader.grading.timing import Clocks

    settings = EXERCISE.efficiency
    cut = efficiency.call_timeout(settings, Clocks(wall=0.2, cpu=0.2))
    assert cut == pytest.approx(efficiency.CUT_FACTOR * 4 * 0.2 + efficiency.CUT_GRACE_SECONDS)
    cpu = settings.model_copy(update={"clock": "cpu"})
    assert efficiency.call_timeout(cpu, Clocks(wall=0.2, cpu=0.2)) > cut
