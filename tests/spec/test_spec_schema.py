"""The published JSON Schema: up to date, accepts every shipped spec, rejects what it can express."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from grader.spec.loading import exercise_paths, exercises_dir
from grader.spec import json_schema

SPECS = Path(__file__).parents[1] / "specs"
SCHEMA_REJECTS = sorted(
    path for path in SPECS.glob("*.yaml") if "# schema-rejects: yes" in path.read_text(encoding="utf-8")
)


@pytest.fixture(scope="module")
def validator():
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_published_copy_equals_the_generated_schema():
    published = json.loads((exercises_dir() / "schema.json").read_text(encoding="utf-8"))
    assert published == json_schema(), "regenerate it: grade schema > exercises/schema.json"


@pytest.mark.parametrize("path", [*exercise_paths(), SPECS / "valid-minimal.yaml"], ids=lambda p: p.stem)
def test_schema_accepts_valid_specs(validator, path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    errors = [error.message for error in validator.iter_errors(data)]
    assert errors == []


def test_enough_broken_specs_are_expressible_in_the_schema():
    assert len(SCHEMA_REJECTS) >= 10


@pytest.mark.parametrize("path", SCHEMA_REJECTS, ids=lambda p: p.stem)
def test_schema_rejects_broken_specs_it_can_express(validator, path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert not validator.is_valid(data)


def test_schema_lists_the_tie_break_rules():
    conventions = json_schema()["$defs"]["Conventions"]["properties"]
    assert conventions["tie_break"]["enum"] == [
        "lexicographic", "concatenated", "first-seen", "reverse-lexicographic",
    ]
