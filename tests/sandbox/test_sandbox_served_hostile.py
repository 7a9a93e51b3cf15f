"""Served functions against a hostile test file, in every environment a grader meets (as root,
as an ordinary user, in the simulated default and cgroup-v2-only containers): it reaches
nothing of the implementations but their answers, and what it forges on the served pipes is
never logged as an implementation's answer.

Each run is ``tests/support/served_probe.py`` (the reference's ``train_bpe`` and ``encode``
served, a secret in its closure and environment, the catalogue imported) on a file of
``tests/hostile/served/``, started in each environment (``support.fixtures``; when the tests
do not run as root, only as this user), with the layers that environment has and again
without namespaces and cgroups ("container-like": where the test sees the host's
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
from grader.sandbox.api import probe_layers
from support import served_probe
from support.fixtures import PLATFORM_ENVS, PlatformEnv, entered

REPOSITORY = Path(__file__).resolve().parents[2]
HOSTILE = REPOSITORY / "tests" / "hostile" / "served"
PROBE = REPOSITORY / "tests" / "support" / "served_probe.py"
LAYERS = probe_layers()
THIS_USER = "this-user"  # the tests' own user, when it is not root (root is "host-root")


@pytest.fixture(params=(THIS_USER, *PLATFORM_ENVS))
def where(request):
    """How to run a command in one environment (see ``support.fixtures``)."""
    name = request.param
    if name == THIS_USER:
        if not sys.platform.startswith("linux") or os.geteuid() == 0:
            pytest.skip("as root the host-root environment runs it")
        if not (LAYERS["landlock"] or LAYERS["mount-isolation"]):
            pytest.skip("neither Landlock nor mount isolation here: nothing keeps a call of "
                        "this user from the grader's files and memory")
        yield PlatformEnv(name, list)
        return
    yield from entered(name)


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


def probe(where, place: Path, test_file: str, calls: list,
          layers: str = "as-probed") -> list[dict]:
    if where.name == THIS_USER:  # in this process
        results = served_probe.probe(str(place / test_file), calls, layers == "container-like")
    else:
        options = ["--container-like"] if layers == "container-like" else []
        argv = where([sys.executable, PROBE, *options, place / test_file, json.dumps(calls)])
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=place,
                              env={**os.environ, "TMPDIR": str(place / "tmp")})
        assert done.returncode == 0, (where.name, done.stderr[-3000:])
        results = json.loads(done.stdout)
    assert os.listdir(place / "tmp") == [], "the run left files in TMPDIR"
    return results


@pytest.mark.parametrize("layers", ["as-probed", "container-like"])
def test_a_test_file_reaches_nothing_of_the_implementations(where, place, layers):
    [result] = probe(where, place, "spy_on_implementations.py",
                     [["spy", ["{needles}", "{paths}"]]], layers)
    assert result["kind"] == "ok", (where.name, result["error"])
    assert result["value"] == {"found": [], "imported": [], "opened": []}, where.name
    assert result["log"] == []


def test_the_spy_finds_the_implementations_where_nothing_isolates_them(monkeypatch, tmp_path):
    """The same search run in this process (no sandbox): every channel it reports can fail."""
    secret = "served-secret-" + secrets.token_hex(8)
    holder = subprocess.Popen([shutil.which("sleep") or "/bin/sleep", "60"],
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
    assert {"gc", "environ of a process", "memory of a process", f"file {catalogue.__file__}",
            f"file {reference.plain.__file__}"} <= set(result["found"])
    assert {"reference", "grader.families.bpe.catalogue"} <= set(result["imported"])
    assert result["opened"] == paths


FORGERIES = ["forge_an_answer", "forge_a_request_with_its_answer", "forge_garbage",
             "forge_an_unknown_function", "forge_a_request_and_leave"]


def as_logged(corpus: list, num_merges: int) -> list:
    """The reference's answer, logged, as JSON has it."""
    answer = [list(pair) for pair in reference.plain.train_bpe(corpus, num_merges)]
    return ["train_bpe", [corpus, num_merges], answer, None]


@pytest.mark.parametrize("where", [THIS_USER, "host-root", "host-nobody", "container"],
                         indirect=True)
@pytest.mark.parametrize("layers", ["as-probed", "container-like"])
def test_what_a_test_forges_on_the_served_pipes_is_never_logged_as_an_answer(where, place,
                                                                            layers):
    forged, *malformed, by_hand = probe(where, place, "forge_served_frames.py",
                                        [[name, []] for name in FORGERIES], layers)
    # Whatever the test read back (its own forgery, where it has a /proc to reopen its answer
    # pipe for writing), the log holds the reference's answer to what it asked.
    assert forged["log"] == [as_logged(["low lower lowest"], 2)], (where.name, forged)
    for result in malformed:
        assert result["kind"] == "bad-answer", (where.name, result)
        assert result["error"].startswith("sent a malformed request to a served function")
        assert result["log"] == []
    # A well-formed request written by hand is a request: answered and logged as one.
    assert (by_hand["kind"], by_hand["value"]) == ("ok", "left")
    assert by_hand["log"] == [as_logged(["sent by hand"], 1)]
