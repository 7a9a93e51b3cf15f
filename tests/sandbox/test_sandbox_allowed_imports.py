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
    import sys

    ALREADY_THERE = "regex" in sys.modules  # before this module's own import
    import regex


    def preloaded():
        return ALREADY_THERE


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


def test_the_server_imports_an_allowed_module_once_for_every_call(submission):
    # Each call executes the module again in a fresh child: the module is already imported
    # there, as the fork server imported it, so no call pays for importing it again.
    with Sandbox(submission, allowed_imports=("regex",)) as box:
        assert box.load().ok
        assert box.call("preloaded").value is True
        assert box.call("letters", ["ab"]).value == ["ab"]


def test_where_a_call_could_rewrite_its_files_the_server_does_not_import_it(submission):
    with Sandbox(submission, allowed_imports=("regex",)) as box:
        for name in ("uid-drop", "landlock", "mount-isolation", "chroot-root"):
            box.layers[name] = False
        assert box.load().ok
        assert box.call("preloaded").value is False


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
