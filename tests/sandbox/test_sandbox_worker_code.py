"""The worker file a sandbox places: the bytecode the worker's own interpreter made of
``worker.py``, kept in the cache folder, or the source where that cannot be had."""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from grader.sandbox import Sandbox, api, worker_code


def magic_of(interpreter: str) -> bytes:
    return subprocess.run([interpreter, "-I", "-S", "-c", "import importlib.util, sys; "
                           "sys.stdout.buffer.write(importlib.util.MAGIC_NUMBER)"],
                          capture_output=True, check=True).stdout


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(worker_code, "_KEPT", {})
    return tmp_path / "cache"


def test_a_sandbox_runs_the_worker_compiled_by_its_interpreter(tmp_path, cache):
    student = tmp_path / "student.py"
    student.write_text("def double(x):\n    return 2 * x\n", encoding="utf-8")
    with Sandbox(student) as box:
        assert box.load().ok
        outcome = box.call("double", [21])
        placed = Path(box._temp, "worker.py").read_bytes()
        interpreter = box.interpreter
    assert outcome.ok and outcome.value == 42
    assert placed[:4] == magic_of(interpreter)
    source = api.WORKER_SCRIPT.read_bytes()
    code = marshal.loads(placed[16:])
    assert code.co_filename == api.INSIDE_WORKER
    assert code.co_code == compile(source, api.INSIDE_WORKER, "exec").co_code
    assert len(list((cache / worker_code.FOLDER).glob("worker-*.pickle"))) == 1


def test_a_kept_worker_is_read_back_without_compiling_again(tmp_path, cache, monkeypatch):
    first, second = tmp_path / "first.py", tmp_path / "second.py"
    worker_code.place(api.WORKER_SCRIPT, sys.executable, str(first), "worker.py")
    monkeypatch.setattr(worker_code, "_KEPT", {})  # a new process
    monkeypatch.setattr(worker_code, "_compile", lambda *arguments: pytest.fail(
        "compiled again"))
    worker_code.place(api.WORKER_SCRIPT, sys.executable, str(second), "worker.py")
    assert first.read_bytes() == second.read_bytes() != api.WORKER_SCRIPT.read_bytes()


@pytest.mark.parametrize("cache_setting, interpreter", [("off", sys.executable),
                                                        (None, "/bin/false")])
def test_without_a_cache_folder_or_a_compiler_the_source_is_placed(
        tmp_path, monkeypatch, cache_setting, interpreter):
    monkeypatch.setenv("GRADE_CACHE_DIR", cache_setting or str(tmp_path / "cache"))
    monkeypatch.setattr(worker_code, "_KEPT", {})
    placed = tmp_path / "worker.py"
    worker_code.place(api.WORKER_SCRIPT, interpreter, str(placed), "worker.py")
    assert placed.read_bytes() == api.WORKER_SCRIPT.read_bytes()
    assert not list(tmp_path.glob(f"cache/{worker_code.FOLDER}/worker-*.pickle"))
