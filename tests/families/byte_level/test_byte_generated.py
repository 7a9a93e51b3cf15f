"""byte-bpe's generated inputs, differential and property checks: seeded from the secret,
covering the inputs where byte-level mistakes show, and failing real counting bugs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from grader.families.byte_level import generated, honest_run, stories
from grader.families.byte_level.fast_student import fast_source
from grader.grading.engine import grade_submission
from grader.grading import shrink
from grader.grading.search import generated_examples
from grader.spec.hooks import Failure
from grader.grading.secrets import inputs_seed
from grader.spec.hooks import StudentAnswer
from grader.spec import load_exercise
from reference.byte_level import pretokenize, train_byte_bpe

ROOT = Path(__file__).resolve().parents[3]
EXERCISE = load_exercise("byte-bpe")
CORRECT = (ROOT / "examples" / "byte-bpe" / "student_correct.py").read_text(encoding="utf-8")
TRAIN = "train_byte_bpe"
COUNTED_ONCE = "        counts.update(PAT.findall(chunk))\n"
WEIGHTED = "    freqs = list(counted.values())\n"
UNWEIGHTED = CORRECT.replace(WEIGHTED, "    freqs = [1] * len(counted)\n")
EOT = "<|endoftext|>"


def trimmed(*milestones: str, examples: int = 20):
    """byte-bpe with only the milestones named and fewer generated inputs, and without the
    regex module, so each sandbox call is quick: the submissions fall back on their re
    spelling of GPT-2's pattern, which agrees with regex on every generated text."""
    kept = [m for m in EXERCISE.milestones if m.id in milestones]
    return EXERCISE.model_copy(update={
        "milestones": kept, "allowed_imports": [],
        "properties": EXERCISE.properties.model_copy(update={"examples": examples})})


def grade_source(tmp_path: Path, source: str, exercise, secret: str = "s"):
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(path, exercise, seed_secret=secret)


def check(report, milestone_id: str, check_id: str):
    milestone = next(m for m in report.milestones if m.id == milestone_id)
    return next(c for c in milestone.checks if c.id == check_id)


def test_the_example_is_the_fast_submission_the_audit_grades():
    assert CORRECT == fast_source(EXERCISE)


def test_inputs_depend_on_the_secret_and_only_on_it():
    seeds = [inputs_seed(secret, EXERCISE.id) for secret in ("one", "one", "two")]
    runs = [generated_examples(EXERCISE, TRAIN, 40, seed) for seed in seeds]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_inputs_cover_the_cases_where_byte_level_mistakes_show():
    examples = generated_examples(EXERCISE, TRAIN, EXERCISE.properties.examples,
                                  inputs_seed("s", EXERCISE.id))
    texts = [text for text, _, _ in examples]
    multibyte = [t for t in texts if len(t.encode("utf-8")) > len(t)]
    documents = [t for t, specials, _ in examples if specials and any(s in t for s in specials)]
    assert multibyte and documents
    assert any(not specials for _, specials, _ in examples)  # the empty special-token list
    assert any(re.search(r"(.)\1\1", t) for t in texts)  # a run of one byte
    assert any(s == ("<|x|>", "<|x|><|x|>") for _, s, _ in examples)  # one special in another
    no_pair_left = [e for e in examples
                    if len(train_byte_bpe(*generated.train_args(e))[1]) < e[2]]
    assert no_pair_left
    assert all(0 <= k <= EXERCISE.properties.max_merges for _, _, k in examples)


def test_decoding_inputs_include_ids_cut_in_the_middle_of_a_character():
    examples = generated_examples(EXERCISE, "decode_byte_bpe", EXERCISE.properties.examples,
                                  inputs_seed("s", EXERCISE.id))
    vocab_of = {e: generated.reference_training(*e[:3])[0] for e in examples}
    broken = [e for e in examples
              if "\ufffd" in b"".join(vocab_of[e][i] for i in generated.ids_to_decode(e))
              .decode("utf-8", errors="replace")]
    assert broken


@pytest.mark.parametrize("bug, replacement", [
    ("across pre-tokens", (COUNTED_ONCE, "        counts.update([chunk] if chunk else [])\n")),
    ("pre-token frequency ignored", (WEIGHTED, "    freqs = [1] * len(counted)\n")),
])
def test_real_counting_bugs_fail_the_generated_checks(tmp_path, request, bug, replacement):
    old, new = replacement
    assert old in CORRECT
    source = CORRECT.replace(old, new)
    report = (request.getfixturevalue("unweighted_twice")[0] if source == UNWEIGHTED
              else grade_source(tmp_path, source, trimmed("train")))
    differential = check(report, "train", "differential")
    most_frequent = check(report, "train", "property:most-frequent")
    # it fails, and keeps only the share of the generated inputs it answers right
    assert not differential.passed and differential.score < differential.max_score, bug
    assert differential.score == 0 or "earns their share" in differential.message, bug
    assert not most_frequent.passed, bug


def test_the_correct_submission_passes_every_generated_check(tmp_path):
    report = grade_source(tmp_path, CORRECT, trimmed("train", "encode", "decode"))
    failed = [(m.id, c.id, c.message) for m in report.milestones for c in m.checks if not c.passed]
    assert failed == []


@pytest.fixture(scope="module")
def unweighted_twice(tmp_path_factory):
    """The correct submission counting each pre-token once, graded twice on the train
    milestone under one secret."""
    folder = tmp_path_factory.mktemp("unweighted")
    return [grade_source(folder, UNWEIGHTED, trimmed("train")) for _ in range(2)]


def test_the_same_submission_and_secret_give_the_same_report(unweighted_twice):
    reports = [report.to_json() for report in unweighted_twice]
    assert _without_durations(reports[0]) == _without_durations(reports[1])


def _without_durations(value):
    if isinstance(value, dict):
        return {k: _without_durations(v) for k, v in value.items()
                if k != "seconds" and not k.endswith("_seconds")}
    if isinstance(value, list):
        return [_without_durations(v) for v in value]
    return value


def test_a_merge_across_a_space_or_an_infrequent_pair_departs_from_bpe():
    text = "ab ab ab ba"
    assert honest_run.departure(text, [], [(b"a", b"b")]) is None
    across = honest_run.departure(text, [], [(b"b", b" ")])
    assert across is not None and across.count == 0
    rare = honest_run.departure(text, [], [(b"b", b"a")])
    assert rare is not None and (rare.count, rare.most) == (1, 3)
    assert honest_run.pairs_left("a\n", [], []) is False
    assert honest_run.pairs_left("ab", [], []) is True


def test_the_timed_text_is_tinystories_like_and_the_size_of_corpus_en():
    text = stories.generate(336, 130_000, "<|endoftext|>")
    assert text == stories.generate(336, 130_000, "<|endoftext|>")
    assert text != stories.generate(337, 130_000, "<|endoftext|>")
    corpus_en = (ROOT / "tests" / "fixtures" / "cs336" / "corpus.en").read_text(encoding="utf-8")
    assert 0.9 < len(text) / len(corpus_en) < 1.1
    assert text.count("\n<|endoftext|>\n") > 100 and text.startswith("Once upon a time")
    distinct = len(set(pretokenize(text, ["<|endoftext|>"])))
    assert distinct > 2_500  # corpus.en has 4,763: enough that per-merge recounting is slow


@pytest.mark.parametrize("role", [TRAIN, "encode_byte_bpe", "decode_byte_bpe"])
def test_every_reduction_is_a_smaller_input_that_keeps_special_tokens_whole(role):
    for example in generated_examples(EXERCISE, role, 30, inputs_seed("s", EXERCISE.id)):
        text, specials = example[0], example[1]
        for smaller in generated.reductions(EXERCISE, example):
            assert len(smaller) == len(example) and smaller[1] == specials
            assert shrink.size(smaller) < shrink.size(example)
            assert 0 <= smaller[2] <= example[2]
            # a special token is dropped whole or kept whole, never cut into text
            for token in specials:
                assert smaller[0].count(token) <= text.count(token)
            generated.reference_training(*smaller[:3])  # the reference takes it


def test_a_failing_input_shrinks_to_the_characters_the_failure_needs():
    judged = []

    def judge(example):  # a trainer that cannot take 'é' in a text with a special token
        judged.append(example)
        fails = "é" in example[0] and EOT in example[0]
        return Failure(example, StudentAnswer(value=None)) if fails else None

    first = (f"ab abé cd{EOT}dé d{EOT}ab", (EOT,), 9)
    found = shrink.shrink(judge(first), judge, lambda e: generated.reductions(EXERCISE, e))
    assert found.example == (f"é{EOT}", (EOT,), 0)
