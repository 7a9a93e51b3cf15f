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


def undescribed_properties(node, where: str = "") -> list[str]:
    """The properties of every object schema under ``node`` that carry no description."""
    found = []
    if not isinstance(node, dict):
        return found
    for name, sub in (node.get("properties") or {}).items():
        if not (isinstance(sub, dict) and sub.get("description")):
            found.append(f"{where}.{name}")
        found += undescribed_properties(sub, f"{where}.{name}")
    for key in ("$defs",):
        for name, sub in (node.get(key) or {}).items():
            found += undescribed_properties(sub, name)
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for index, sub in enumerate(node.get(key) or []):
            found += undescribed_properties(sub, f"{where}[{index}]")
    for key in ("items", "additionalProperties"):
        found += undescribed_properties(node.get(key), f"{where}[]")
    return found


def test_every_property_of_the_schema_is_described():
    """The README says so: editor completion shows each one's description."""
    assert undescribed_properties(json_schema()) == []
