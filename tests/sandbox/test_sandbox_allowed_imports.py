"""A spec's allowed third-party modules, and only those, are importable inside the sandbox.

The worker sees the standard library only; ``allowed_imports`` copies the named modules
beside it. Checked on this host and, for the platforms' case, inside the container
simulation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.sandbox import Sandbox, SandboxError

from support.container import container_available, container_command

SUBMISSION = textwrap.dedent('''
    import regex


    def letters(text):
        return regex.findall(r"\\p{L}+", text)


    def other(name):
        __import__(name)
        return "imported"
''')


@pytest.fixture
def submission(tmp_path):
    os.chmod(tmp_path, 0o755)
    path = tmp_path / "student.py"
    path.write_text(SUBMISSION, encoding="utf-8")
    os.chmod(path, 0o644)
    return path


def test_an_allowed_module_imports_and_works(submission):
    with Sandbox(submission, allowed_imports=("regex",)) as box:
        assert box.load().ok
        assert box.call("letters", ["héllo wörld 42"]).value == ["héllo", "wörld"]


def test_without_the_allowance_the_module_is_not_there(submission):
    with Sandbox(submission) as box:
        loaded = box.load()
    assert not loaded.ok and "No module named 'regex'" in loaded.error


@pytest.mark.parametrize("name", ["jinja2", "pydantic", "hypothesis", "grader", "reference"])
def test_nothing_else_installed_becomes_importable(submission, name):
    with Sandbox(submission, allowed_imports=("regex",)) as box:
        assert box.load().ok
        answer = box.call("other", [name])
    assert answer.kind == "exception" and "ModuleNotFoundError" in (answer.error or "")


def test_a_module_not_installed_is_a_clear_error(submission):
    with pytest.raises(SandboxError, match="not installed beside the grader"):
        Sandbox(submission, allowed_imports=("no_such_module_anywhere",))


def test_allowed_imports_work_in_a_default_container(submission, tmp_path):
    reason = container_available()
    if reason:
        pytest.skip(reason)
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent(f'''
        import json, sys
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from grader.sandbox import Sandbox
        with Sandbox({str(submission)!r}, allowed_imports=("regex",)) as box:
            ok = box.load().ok
            print(json.dumps([ok, box.call("letters", ["ab cd"]).value, box.layers]))
    '''))
    os.chmod(script, 0o644)
    done = subprocess.run(container_command([sys.executable, str(script)]), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    ok, value, layers = json.loads(done.stdout.strip().splitlines()[-1])
    assert ok and value == ["ab", "cd"]
    assert layers["landlock"] and not layers.get("mount-isolation")
