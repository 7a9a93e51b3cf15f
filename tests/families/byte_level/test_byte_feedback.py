"""Byte-level feedback shows bytes as bytes: merges as pairs of ``b'…'`` literals, in every
report format, and JSON carries the same literal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.grading.audit import exercise_without_efficiency
from grader.grading.engine import grade_submission
from grader.report import render
from grader.spec import load_exercise
from support.audits import audit_group, audited

ROOT = Path(__file__).resolve().parents[3]

EXERCISE = load_exercise("byte-bpe")
IN_BYTE_AUDIT = pytest.mark.xdist_group(audit_group("byte-bpe"))
"""Tests reading gradings of byte-bpe's audit (``support.audits``: a mistake's student-style
file, ``write_student``, graded with ``exercise_without_efficiency``)."""


@IN_BYTE_AUDIT
def test_merges_and_tokens_show_as_bytes_in_every_report():
    report = audited("byte-bpe", "byte-ties-smaller")
    text = render(report, "text")
    assert "Expected merges: [(b'c', b'd')]" in text
    assert "Your merges:     [(b' ', b'c')]" in text
    for form in ("text", "markdown", "html"):
        assert "\"b'" not in render(report, form) and "&quot;b&#x27;" not in render(report, form)
    check = next(c for c in report.checks if c.id == "cases:tie-to-the-greater-pair")
    as_json = json.loads(render(report, "json"))
    shown = next(c for m in as_json["milestones"] for c in m["checks"]
                 if c["id"] == check.id)["details"]
    assert shown["expected_merges"] == {"literal": "[(b'c', b'd')]"}


@IN_BYTE_AUDIT
def test_tokens_of_an_encoding_show_as_bytes():
    text = render(audited("byte-bpe", "byte-encode-specials-as-text"), "text")
    assert "Expected tokens: [b'lo', b'west', b'<|endoftext|>', b'ne', b'we', b'r']" in text


def test_the_stubs_worked_tie_is_the_reference_run_with_the_exercises_pre_tokenizer():
    from grader.families.byte_level.stub import tie_paragraph
    from grader.spec.stubs import render_stub
    from reference.byte_level import train_byte_bpe

    exercise = load_exercise("byte-bpe")
    paragraph = tie_paragraph(exercise)
    stub = " ".join(render_stub(exercise).split())
    assert " ".join(paragraph.split()) in stub
    # 'ab cd' pre-tokenizes to 'ab' and ' cd': three pairs, one of them with the space.
    assert "the pre-tokens are 'ab', ' cd'" in paragraph
    assert "(b'a', b'b'), (b' ', b'c'), (b'c', b'd') all occur once" in paragraph
    _, merges = train_byte_bpe("ab cd", 257, [])
    assert f"this rule merges ({merges[0][0]!r}, {merges[0][1]!r})" in paragraph
    assert "['ba ab ca']" not in stub  # character BPE's worked tie does not apply here


def test_decoding_states_and_tests_errors_replace(tmp_path):
    correct = (ROOT / "examples" / "byte-bpe" / "student_correct.py").read_text(encoding="utf-8")
    joined = 'b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")'
    assert joined in correct
    variants = {
        "strict": 'b"".join(vocab[i] for i in ids).decode("utf-8")',
        "each-token": '"".join(vocab[i].decode("utf-8", errors="replace") for i in ids)',
    }
    exercise = exercise_without_efficiency(EXERCISE)  # the decode milestone is all it reads
    for name, body in variants.items():
        path = tmp_path / f"{name}.py"
        path.write_text(correct.replace(joined, body), encoding="utf-8")
        decode = next(m for m in grade_submission(path, exercise).milestones if m.id == "decode")
        failed = [c for c in decode.checks if not c.passed and c.visibility == "visible"]
        assert failed, name
        if name == "strict":
            assert all("errors='replace'" in c.message for c in failed)
        else:
            assert {d.id for c in failed for d in c.diagnoses} == {"byte-decode-each-token"}
