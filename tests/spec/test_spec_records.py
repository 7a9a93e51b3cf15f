"""Spec models as plain records (``grader.spec.records``) validated by derived pydantic models
(``grader.spec.validators``): the same rules and errors, and no pydantic where none validates."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from grader.families.bpe.spec import BpeExercise, BpeMilestone, ROLES
from grader.spec import load_exercise
from grader.spec.models import Limits
from grader.spec.validators import validated, validator_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def exercise():
    return load_exercise("bpe-train-encode")


def test_a_validated_spec_is_records_all_the_way_down(exercise):
    assert type(exercise) is BpeExercise and dataclasses.is_dataclass(exercise)
    assert type(exercise.limits) is Limits
    assert all(type(milestone) is BpeMilestone for milestone in exercise.milestones)
    assert not any(type(value).__module__.startswith("pydantic")
                   for _, value in exercise)


def test_a_record_is_frozen_but_takes_what_the_loader_attaches(exercise):
    with pytest.raises(dataclasses.FrozenInstanceError):
        exercise.title = "changed"
    copy = exercise.model_copy(update={"title": "changed"})
    assert copy.title == "changed" and exercise.title != "changed"
    assert copy.source == exercise.source, "the copy lost what the loader attached"
    assert copy.fingerprint != exercise.fingerprint


def test_the_derived_model_keeps_the_rules():
    with pytest.raises(ValidationError) as caught:
        validated(Limits, {"call_seconds": -1, "memory_mib": "512", "extra": 1})
    kinds = sorted(error["type"] for error in caught.value.errors())
    assert kinds == ["extra_forbidden", "greater_than", "int_type"]
    assert validated(Limits, {}) == Limits()


def test_a_field_check_runs_with_the_familys_own_role_order(exercise):
    data = exercise.model_dump()
    data["functions"] = dict(reversed(list(data["functions"].items())))
    reordered = validated(BpeExercise, data)
    assert list(reordered.functions) == [role for role in ROLES if role in data["functions"]]


def test_the_derived_model_has_the_records_name_and_docstring():
    model = validator_of(BpeExercise)
    assert model.__name__ == "BpeExercise" and model.__doc__ == BpeExercise.__doc__
    assert validator_of(BpeExercise) is model, "derived once per record"


def test_loading_a_kept_spec_imports_neither_pydantic_nor_yaml(tmp_path):
    code = ("import sys; from grader.spec import load_exercise; "
            "e = load_exercise('bpe-train-encode'); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'pydantic', 'yaml'}))")
    environment = {"GRADE_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    first, second = (subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                    cwd=ROOT, env=environment, check=True).stdout.strip()
                     for _ in range(2))
    assert first == "['pydantic', 'yaml']", "the first load validates the spec"
    assert second == "[]"
