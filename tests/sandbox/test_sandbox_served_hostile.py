"""Served functions against a hostile test file, in every environment a grader meets (as root,
as an ordinary user, in the simulated default and cgroup-v2-only containers): it reaches
nothing of the implementations but their answers, and what it forges on the served pipes is
never logged as an implementation's answer.

Each run is ``tests/support/served_probe.py`` (the reference's ``train_bpe`` and ``encode``
served, a secret in its closure and environment, the catalogue imported) on a file of
``tests/hostile/served/``, started in the environment by the ``platform_env`` fixture, with the layers that environment
has and again without namespaces and cgroups ("container-like": where the test sees the host's
/proc and file system, and only the dedicated uid, Landlock and seccomp stand in its way).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest

import grader.families.bpe.catalogue as catalogue
import reference
import reference.plain
from support.fixtures import platform_env  # noqa: F401 - the fixture

REPOSITORY = Path(__file__).resolve().parents[2]
HOSTILE = REPOSITORY / "tests" / "hostile" / "served"
PROBE = REPOSITORY / "tests" / "support" / "served_probe.py"


@pytest.fixture(scope="module")
def place():
    """A directory an ordinary user can read, with the hostile files and an empty TMPDIR."""
    directory = Path(tempfile.mkdtemp(prefix="bpe-served-test-"))
    os.chmod(directory, 0o755)
    (directory / "tmp").mkdir()
    os.chmod(directory / "tmp", 0o1777)
    for source in HOSTILE.glob("*.py"):
        shutil.copyfile(source, directory / source.name)
        os.chmod(directory / source.name, 0o644)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def probe(platform_env, place: Path, test_file: str, function: str, *args,  # noqa: F811
          layers: str = "as-probed") -> dict:
    options = ["--container-like"] if layers == "container-like" else []
    argv = platform_env([sys.executable, PROBE, *options, place / test_file, function,
                         json.dumps(args)])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=place,
                          env={**os.environ, "TMPDIR": str(place / "tmp")})
    assert done.returncode == 0, (platform_env.name, done.stderr[-3000:])
    assert os.listdir(place / "tmp") == [], "the run left files in TMPDIR"
    return json.loads(done.stdout)


@pytest.mark.parametrize("layers", ["as-probed", "container-like"])
def test_a_test_file_reaches_nothing_of_the_implementations(platform_env, place,  # noqa: F811
                                                            layers):
    result = probe(platform_env, place, "spy_on_implementations.py", "spy", "{needles}",
                   "{paths}", layers=layers)
    assert result["kind"] == "ok", (platform_env.name, result["error"])
    assert result["value"] == {"found": [], "imported": [], "opened": []}, platform_env.name
    assert result["log"] == []


def test_the_spy_finds_the_implementations_where_nothing_isolates_them(monkeypatch, tmp_path):
    """The same search run in this process (no sandbox): every channel it reports can fail."""
    secret = "served-secret-" + secrets.token_hex(8)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              env={**os.environ, "SERVED_PROBE_SECRET": secret})
    fake = types.ModuleType("bpe")
    fake.train_bpe = fake.encode = lambda *args: reference.plain.train_bpe(*args)
    monkeypatch.setitem(sys.modules, "bpe", fake)
    monkeypatch.syspath_prepend(str(HOSTILE))
    import spy_on_implementations as spy

    monkeypatch.setattr(spy, "_pids", lambda: [holder.pid])
    kept = [secret]  # in this process's memory, as the grader keeps its implementations
    try:
        needles = [needle[::-1] for needle in (*kept, reference.plain.train_bpe.__doc__.strip(),
                                                catalogue.__doc__.splitlines()[0])]
        paths = [reference.plain.__file__, catalogue.__file__, reference.__file__]
        result = spy.spy(needles, paths)
    finally:
        holder.kill()
        holder.wait()
    assert {"gc", "environ of a process", f"file {catalogue.__file__}",
            f"file {reference.plain.__file__}"} <= set(result["found"])
    assert {"reference", "grader.families.bpe.catalogue"} <= set(result["imported"])
    assert result["opened"] == paths


@pytest.mark.parametrize("platform_env", ["host-root", "host-nobody", "container"], indirect=True)
@pytest.mark.parametrize("layers", ["as-probed", "container-like"])
def test_an_answer_forged_into_the_answer_pipe_is_never_logged(platform_env, place,  # noqa: F811
                                                               layers):
    result = probe(platform_env, place, "forge_served_frames.py", "forge_an_answer",
                   layers=layers)
    # Whatever the test read back (its own forgery, where it has a /proc to reopen its answer
    # pipe for writing), the log holds the reference's answer to what it asked.
    assert result["log"] == [["train_bpe", [["low lower lowest"], 2],
                              [list(pair) for pair in reference.plain.train_bpe(
                                  ["low lower lowest"], 2)], None]], platform_env.name
    assert "FORGED" not in json.dumps(result["log"])


@pytest.mark.parametrize("platform_env", ["host-root", "host-nobody", "container"], indirect=True)
@pytest.mark.parametrize("forgery", ["forge_a_request_with_its_answer", "forge_garbage",
                                     "forge_an_unknown_function"])
def test_a_malformed_frame_on_the_served_pipe_is_a_bad_answer(platform_env, place,  # noqa: F811
                                                              forgery):
    result = probe(platform_env, place, "forge_served_frames.py", forgery)
    assert result["kind"] == "bad-answer", (platform_env.name, result)
    assert result["error"].startswith("sent a malformed request to a served function")
    assert result["log"] == []


@pytest.mark.parametrize("platform_env", ["host-root", "container"], indirect=True)
def test_a_well_formed_request_written_by_hand_is_answered_and_logged_as_what_it_is(
        platform_env, place):  # noqa: F811
    result = probe(platform_env, place, "forge_served_frames.py", "forge_a_request_and_leave")
    assert result["kind"] == "ok" and result["value"] == "left"
    expected = [list(pair) for pair in reference.plain.train_bpe(["sent by hand"], 1)]
    assert result["log"] == [["train_bpe", [["sent by hand"], 1], expected, None]]
