"""Byte-level BPE is graded in CS336's conventions only: a spec that declares others is refused
with the reason, and the schema offers the byte family nothing else.

The reference, the stub and the audit of the byte family follow CS336 (texts, no end-of-word
marker, ties to the greatest pair of bytes, merges as pairs), so a spec that changed one of them
would be graded against conventions its students were never told.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "exercises" / "byte-bpe.yaml"


@pytest.mark.parametrize("line, changed, supported, reason", [
    ("tie_break: reverse-lexicographic", "tie_break: lexicographic", "'reverse-lexicographic'",
     "Ties go to the greatest pair of bytes"),
    ('end_of_word: ""', 'end_of_word: "</w>"', "''", "marks no word ends"),
    ("merge_form: pairs", "merge_form: pairs-with-token", "'pairs'", "(a, b) pairs of bytes"),
    ("corpus_form: texts", "corpus_form: word-counts", "'texts'", "trains on texts"),
])
def test_a_convention_the_byte_family_does_not_follow_is_refused_with_the_reason(
        tmp_path, line, changed, supported, reason):
    text = SPEC.read_text(encoding="utf-8")
    assert f"  {line}\n" in text
    spec = tmp_path / "byte-copy.yaml"
    spec.write_text(text.replace("id: byte-bpe\n", "id: byte-copy\n").replace(line, changed),
                    encoding="utf-8")
    checked = CliRunner().invoke(main, ["check", str(spec)])
    assert checked.exit_code != 0
    field = line.split(":")[0]
    assert f"conventions.{field}: " in checked.output
    assert f"is not supported here, only {supported}: " in checked.output and reason in checked.output


def test_the_schema_offers_the_byte_family_only_its_conventions():
    schema = json.loads(CliRunner().invoke(main, ["schema"]).output)
    byte = schema["$defs"]["ByteConventions"]["properties"]
    assert byte["tie_break"]["const"] == "reverse-lexicographic"
    assert byte["end_of_word"]["const"] == "" and byte["merge_form"]["const"] == "pairs"
    bpe = schema["$defs"]["Conventions"]["properties"]["tie_break"]
    assert len(bpe.get("enum", [])) == 4  # the character family takes every tie rule
