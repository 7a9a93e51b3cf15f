"""Validated specs kept on disk (``grader.spec.spec_cache``): a spec is validated once per
text and grader, a kept one is the same exercise, and nothing wrong or foreign is kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from grader.spec import SpecError, disk_cache, load_exercise, loading, spec_cache
from grader.spec.registry import register_family, unregister_family
from tests.support.doc_family import write_doc_course

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "exercises" / "bpe-train-encode.yaml"


@pytest.fixture
def cache(monkeypatch, tmp_path) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(disk_cache.ENVIRONMENT_VARIABLE, str(folder))
    return folder


def copied_spec(tmp_path: Path, text: str = "") -> Path:
    path = tmp_path / "course" / "bpe-train-encode.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text or SHIPPED.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def validations(monkeypatch) -> list[str]:
    """The files validated from now on (each kept spec loaded instead is not one)."""
    seen: list[str] = []
    original = loading.parse_exercise

    def counted(text, file="<spec>", **options):
        seen.append(file)
        return original(text, file, **options)

    monkeypatch.setattr(loading, "parse_exercise", counted)
    return seen


def test_a_spec_is_validated_once_and_its_kept_copy_is_the_same_exercise(monkeypatch, cache, tmp_path):
    path = copied_spec(tmp_path)
    seen = validations(monkeypatch)
    first = load_exercise(path)
    second = load_exercise(path)
    assert len(seen) == 1, "the second load validated the spec again"
    assert second is not first and second.model_dump() == first.model_dump()
    assert type(second) is type(first) and second.source == path
    assert second.fingerprint == first.fingerprint
    assert second.problem(("milestones", 0), "m").line == first.problem(("milestones", 0), "m").line
    [kept] = (cache / disk_cache.SPECS).glob("*.pickle")
    assert oct(kept.stat().st_mode & 0o777) == "0o600"
    assert oct((cache / disk_cache.SPECS).stat().st_mode & 0o777) == "0o700"


def test_an_edited_spec_is_validated_again(monkeypatch, cache, tmp_path):
    path = copied_spec(tmp_path)
    seen = validations(monkeypatch)
    load_exercise(path)
    path.write_text(path.read_text(encoding="utf-8").replace(
        'title: "', 'title: "Edited ', 1), encoding="utf-8")
    edited = load_exercise(path)
    assert len(seen) == 2 and edited.title.startswith("Edited ")


def test_a_spec_with_a_problem_is_never_kept(monkeypatch, cache, tmp_path):
    path = copied_spec(tmp_path, SHIPPED.read_text(encoding="utf-8").replace(
        "points: 45", "points: -45", 1))
    for _ in range(2):
        with pytest.raises(SpecError):
            load_exercise(path)
    assert not list(cache.rglob("*.pickle"))


def test_a_course_familys_spec_is_not_kept(cache, tmp_path):
    course = write_doc_course(tmp_path / "course")
    register_family("toy", str(course / "families" / "toy"))
    try:
        assert load_exercise(course / "toy.yaml").family == "toy"
    finally:
        unregister_family("toy")
    assert not list(cache.rglob("*.pickle"))


def test_registering_a_family_changes_which_kept_specs_apply(cache, tmp_path):
    path = copied_spec(tmp_path)
    text = path.read_text(encoding="utf-8")
    before = spec_cache.file_for(path, "x", text)
    register_family("toy", str(write_doc_course(tmp_path / "course") / "families" / "toy"))
    try:
        assert spec_cache.file_for(path, "x", text) != before
    finally:
        unregister_family("toy")
    assert spec_cache.file_for(path, "x", text) == before


@pytest.mark.parametrize("content", [b"", b"not a pickle", b"\x80\x05K\x01."],
                         ids=["empty", "garbage", "not-an-exercise"])
def test_an_unreadable_kept_spec_only_costs_a_validation(monkeypatch, cache, tmp_path, content):
    path = copied_spec(tmp_path)
    load_exercise(path)
    [kept] = (cache / disk_cache.SPECS).glob("*.pickle")
    kept.write_bytes(content)
    seen = validations(monkeypatch)
    assert load_exercise(path).id == "bpe-train-encode" and len(seen) == 1


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to hand the file to another user")
def test_a_kept_spec_someone_else_wrote_is_not_trusted(monkeypatch, cache, tmp_path):
    path = copied_spec(tmp_path)
    load_exercise(path)
    [kept] = (cache / disk_cache.SPECS).glob("*.pickle")
    os.chown(kept, 65534, 65534)
    seen = validations(monkeypatch)
    load_exercise(path)
    assert len(seen) == 1


def test_off_keeps_nothing(monkeypatch, cache, tmp_path):
    monkeypatch.setenv(disk_cache.ENVIRONMENT_VARIABLE, "off")
    path = copied_spec(tmp_path)
    seen = validations(monkeypatch)
    load_exercise(path)
    load_exercise(path)
    assert len(seen) == 2 and not cache.exists()
