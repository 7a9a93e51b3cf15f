"""Dataclass methods compiled once and kept (``grader.spec.compiled_methods``): a ``grade``
process runs kept code, and a record made from it is the record the standard library makes."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from grader.spec import compiled_methods
from grader.spec.compiled_methods import KeptMethods

ROOT = Path(__file__).resolve().parents[2]
GRADE = Path(sys.executable).with_name("grade")

REPORT = """\
import dataclasses, sys
from grader.spec import compiled_methods
from grader.commands.cli import main
def report():
    kept = compiled_methods._KEPT
    print("kept", kept[0].added if kept else None, len(kept[0].codes) if kept else 0,
          dataclasses.__dict__.get("exec") is not None, file=sys.stderr)
import atexit
atexit.register(report)
sys.argv = ["grade", *sys.argv[1:]]
main()
"""


def run_grade(cache: str, *args: str, script: str = REPORT) -> str:
    """The ``kept`` line a ``grade`` process (its program: ``main`` in ``__main__``) prints."""
    environment = {**os.environ, "GRADE_CACHE_DIR": cache}
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True,
                          text=True, cwd=ROOT, env=environment, timeout=120)
    assert done.returncode == 0, done.stderr
    return next(line for line in done.stderr.splitlines() if line.startswith("kept"))


def test_a_grade_process_keeps_the_methods_and_the_next_one_compiles_none(tmp_path):
    cache = str(tmp_path / "cache")
    first = run_grade(cache, "stub", "bpe-train-encode").split()
    assert first[1] != "0" and first[2] == first[1] and first[3] == "True", first
    kept = list((tmp_path / "cache").glob("methods-*.pickle"))
    assert len(kept) == 1
    second = run_grade(cache, "stub", "bpe-train-encode").split()
    assert second[1] == "0", "every method of the second run was compiled by the first"
    assert int(second[2]) == int(first[2])


def test_without_a_cache_folder_nothing_is_kept_or_changed(tmp_path):
    line = run_grade("off", "stub", "bpe-train-encode").split()
    assert line == ["kept", "None", "0", "False"]


def test_a_command_called_inside_another_program_leaves_dataclasses_alone(tmp_path):
    script = (REPORT.replace("from grader.commands.cli import main", "from grader.commands import cli")
              .replace("main()", "from click.testing import CliRunner\n"
                       "assert CliRunner().invoke(cli.main, sys.argv[1:]).exit_code == 0"))
    line = run_grade(str(tmp_path / "cache"), "stub", "bpe-train-encode", script=script).split()
    assert line == ["kept", "None", "0", "False"]


def make_record(kept: Optional[KeptMethods], monkeypatch: pytest.MonkeyPatch) -> type:
    """A frozen record class, its methods run through ``kept`` (None: the standard library's)."""
    if kept is not None:
        monkeypatch.setattr(dataclasses, "exec", kept.exec, raising=False)

    @dataclasses.dataclass(frozen=True)
    class Answer:
        value: int
        words: Optional[str] = None
        seen: tuple = dataclasses.field(default_factory=tuple)

    monkeypatch.delattr(dataclasses, "exec", raising=False)
    return Answer


def test_a_record_made_from_kept_code_is_the_standard_librarys_record(tmp_path, monkeypatch):
    path = tmp_path / "methods.pickle"
    monkeypatch.setenv("GRADE_CACHE_DIR", str(tmp_path))
    first = KeptMethods(path)
    compiled = make_record(first, monkeypatch)
    assert first.added >= 5, "init, repr, eq, hash, setattr and delattr compiled"
    first.store()
    again = KeptMethods(path)
    assert len(again.codes) == len(first.codes)
    kept = make_record(again, monkeypatch)
    assert again.added == 0, "the same class needs no compiling"
    plain = make_record(None, monkeypatch)
    for record in (compiled, kept, plain):
        answer = record(3, "three")
        assert answer == record(3, "three") and answer != record(4)
        assert hash(answer) == hash(record(3, "three")) and answer.seen == ()
        assert repr(answer).endswith(".Answer(value=3, words='three', seen=())")
        with pytest.raises(dataclasses.FrozenInstanceError):
            answer.value = 4
        with pytest.raises(TypeError):
            record()
    assert repr(kept(1)) == repr(plain(1))
    assert kept.__init__.__code__.co_filename == plain.__init__.__code__.co_filename


def test_a_forked_process_leaves_the_file_to_its_parent(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADE_CACHE_DIR", str(tmp_path))
    path = tmp_path / "methods.pickle"
    kept = KeptMethods(path)
    make_record(kept, monkeypatch)
    child = os.fork()
    if child == 0:
        kept.store()
        os._exit(0)
    os.waitpid(child, 0)
    assert not path.exists()
    kept.store()
    assert path.exists()


def test_a_file_that_is_not_kept_code_only_costs_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADE_CACHE_DIR", str(tmp_path))
    path = tmp_path / "methods.pickle"
    from grader.spec import disk_cache

    disk_cache.store(path, b"not marshalled code")
    kept = KeptMethods(path)
    assert kept.codes == {}
    make_record(kept, monkeypatch)
    assert kept.added >= 5
    disk_cache.store(path, marshal.dumps(dict.fromkeys(kept.codes, "not code")))
    again = KeptMethods(path)
    Answer = make_record(again, monkeypatch)
    assert again.added == kept.added and Answer(1) == Answer(1)


def test_the_file_is_named_by_the_code_and_python(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADE_CACHE_DIR", str(tmp_path))
    from grader.spec import disk_cache

    assert compiled_methods.file_for() == tmp_path / f"methods-{disk_cache.code_fingerprint()[:32]}.pickle"
    monkeypatch.setenv("GRADE_CACHE_DIR", "off")
    assert compiled_methods.file_for() is None


def test_the_cache_module_loads_before_any_record_and_the_stages_names_still_resolve():
    code = ("import sys, dataclasses; made = []; real = dataclasses._process_class\n"
            "dataclasses._process_class = lambda cls, *a: made.append(cls) or real(cls, *a)\n"
            "import grader.spec.compiled_methods\n"
            "print(len(made), sorted(m for m in sys.modules if m.startswith('grader')))\n"
            "import grader.spec\n"
            "print(all(getattr(grader.spec, name) is not None for name in grader.spec.__all__))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=True)
    assert done.stdout.splitlines() == [
        "0 ['grader', 'grader.spec', 'grader.spec.compiled_methods', 'grader.spec.disk_cache']",
        "True"]
