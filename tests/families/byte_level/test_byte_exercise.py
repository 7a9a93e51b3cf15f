"""The byte-bpe exercise against CS336's fixtures and GPT-2, and its grading pieces.

The correct student-style submission (what ``grade audit`` grades as the reference student)
must reproduce CS336's reference training run exactly (corpus.en, vocabulary 500,
``<|endoftext|>``: every merge in order, the same tokens in the vocabulary) and GPT-2's
encoding of the sample texts with GPT-2's own vocab and merges; its ``re`` spelling of
GPT-2's pattern, used where the sandbox cannot import ``regex``, must pre-tokenize the
fixture texts exactly as ``regex`` does.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import regex

from grader.families.byte_level import shapes
from grader.families.byte_level.mistakes import BYTE_MISTAKES, REFERENCES
from grader.families.byte_level.students import student_source
from grader.families.byte_level.mistakes import BOOK
from grader.mistakes.diagnosis import matching
from grader.spec import load_exercise
from grader.families.byte_level.expected import reference_byte_bpe
from reference.byte_level import (
    GPT2_PRETOKENIZE_PATTERN,
    encode_byte_bpe,
    load_gpt2_vocab_and_merges,
)
from support.audits import audit_group, audit_of

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "cs336"
EOT = "<|endoftext|>"
EXERCISE = load_exercise("byte-bpe")
SAMPLES = ["tinystories_sample.txt", "address.txt", "german.txt", "corpus.en"]


def student(hide_regex: bool = False) -> dict:
    source = student_source(EXERCISE)
    if hide_regex:
        source = source.replace("import regex\n", "import regex_is_not_here\n")
    namespace: dict = {}
    exec(compile(source, "<student>", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def cs336_run():
    text = (FIXTURES / "corpus.en").read_text(encoding="utf-8")
    return student()["train_bpe"](text, 500, [EOT])


def test_the_student_reproduces_cs336s_merges_exactly(cs336_run):
    _, expected_merges = load_gpt2_vocab_and_merges(
        FIXTURES / "train-bpe-reference-vocab.json", FIXTURES / "train-bpe-reference-merges.txt", [EOT])
    assert cs336_run[1] == expected_merges


def test_the_student_reproduces_cs336s_vocabulary(cs336_run):
    expected_vocab, _ = load_gpt2_vocab_and_merges(
        FIXTURES / "train-bpe-reference-vocab.json", FIXTURES / "train-bpe-reference-merges.txt", [EOT])
    vocab = cs336_run[0]
    assert sorted(vocab) == list(range(500))
    assert set(vocab.values()) == set(expected_vocab.values())


@pytest.mark.parametrize("name", SAMPLES)
def test_the_re_spelling_of_gpt2s_pattern_pretokenizes_the_fixtures_alike(name):
    text = (FIXTURES / name).read_text(encoding="utf-8")
    fallback = student(hide_regex=True)["PAT"]
    assert isinstance(fallback, re.Pattern)
    assert fallback.findall(text) == regex.findall(GPT2_PRETOKENIZE_PATTERN, text)


@pytest.fixture(scope="module")
def gpt2():
    return load_gpt2_vocab_and_merges(FIXTURES / "gpt2_vocab.json", FIXTURES / "gpt2_merges.txt", [EOT])


@pytest.mark.parametrize("name", ["tinystories_sample.txt", "address.txt", "german.txt"])
def test_the_student_encodes_as_gpt2_does(gpt2, name):
    vocab, merges = gpt2
    text = (FIXTURES / name).read_text(encoding="utf-8")
    namespace = student()
    ids = namespace["encode"](text, vocab, merges, [EOT])
    assert ids == encode_byte_bpe(text, vocab, merges, [EOT])
    assert namespace["decode"](ids, vocab) == text
    assert namespace["encode"]("Hello world" + EOT, vocab, merges, [EOT]) == [15496, 995, 50256]


def test_the_stated_tie_example_holds():
    case = next(c for c in EXERCISE.cases if c.id == "tie-to-the-greater-pair")
    assert reference_byte_bpe(case)[1] == [(b"c", b"d")]


def _crashes(mistake) -> bool:
    try:
        mistake.output_on(mistake.witness)
    except BOOK.crash:
        return True
    return False


RETURNING = [m for m in BYTE_MISTAKES if not _crashes(m)]  # the crash: test_byte_real_mistakes


@pytest.mark.parametrize("mistake", RETURNING, ids=[m.id for m in RETURNING])
def test_each_mistake_departs_on_its_witness_and_is_named_there(mistake):
    output = mistake.output_on(mistake.witness)
    assert output != REFERENCES[mistake.role](**mistake.witness)
    assert mistake in diagnose(mistake.role, output, mistake.witness, end_of_word="</w>")


def test_str_tokens_are_a_shape_error_of_their_own():
    with pytest.raises(shapes.StrTokensError, match=r"b'ab'.*encode\('utf-8'\)"):
        shapes.byte_training(({0: "ab"}, []), "train_bpe")
    with pytest.raises(shapes.ShapeError) as raised:
        shapes.byte_training(({0: 5}, []), "train_bpe")
    assert raised.value.kind == "shape"
    assert shapes.byte_training([{0: b"a"}, [[b"a", b"b"]]], "f") == ({0: b"a"}, [(b"a", b"b")])


@pytest.mark.xdist_group(audit_group("byte-bpe"))
def test_the_correct_example_scores_full_marks_efficiency_included():
    # The audit grades the example on the whole exercise, as `grade submit` does.
    report = audit_of("byte-bpe").reports["reference"]
    efficiency = next(m for m in report.milestones if m.id == "efficiency")
    assert efficiency.passed, efficiency.checks[0].message
    assert report.score == report.max_score


def test_a_byte_efficiency_check_needs_a_shipped_text_file():
    from grader.spec.rules import semantic_problems

    broken = EXERCISE.model_copy(update={"efficiency": EXERCISE.efficiency.model_copy(
        update={"text_file": "../secret.txt"})})
    assert any("not a file in exercises/data/" in message
               for _, message in semantic_problems(broken))


def diagnose(role, actual, inputs, **options):
    """The byte-level mistakes reproducing ``actual`` (their runs take no convention options)."""
    return matching(BOOK, role, actual, inputs, {})
