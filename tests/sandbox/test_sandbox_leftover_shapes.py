"""A call leaves nothing, whatever shape the sandbox user gives what it writes: 1,200 nested
directories, a chain of directories with 200-character names, directories locked with mode
000, files in ``/dev/shm``. Each shape is planted by a call and must be gone for the next
call, when the sandbox closes, for the next lease of the same uid, and for the next student
graded on the same machine, whose report must equal a fresh machine's.

The sandbox-level tests run with the layers this host has, and again in the chroot-root tree
a root grader uses in a default container (no mount isolation); the command-level ones as
root on the host and in the container simulation (``tests/support``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from grader.sandbox import api as sandbox_api
from grader.sandbox import chroot_root
from grader.sandbox.api import Sandbox, SandboxLimits, SandboxUnavailable, probe_layers
from grader.sandbox.tree_removal import TreeNotRemoved, remove_tree

from support.fixtures import platform_env  # noqa: F401 - the fixture
from support.reports import without_durations

LAYERS = probe_layers()
LIMITS = SandboxLimits(call_seconds=20.0, memory_mib=256, total_seconds=120.0)
REPOSITORY = Path(__file__).resolve().parents[2]
HOSTILE = REPOSITORY / "tests" / "hostile" / "leave_every_shape.py"
HONEST = REPOSITORY / "tests" / "submissions" / "correct_counter.py"
GRADE = str(Path(sys.executable).with_name("grade"))
QUICK_SPEC = (REPOSITORY / "tests" / "specs" / "valid-minimal.yaml").read_text() + (
    "limits:\n  call_seconds: 0.5\n  memory_mib: 192\n  total_seconds: 4\n"
    "properties:\n  examples: 4\n")
MARK = "left-by-a-call"
SHAPES = ("deep", "long", "locked", "shm")
SUBMISSION = textwrap.dedent('''
    import os

    MARK = "left-by-a-call"
    # At import, any note an earlier holder of this uid left in /dev/shm becomes a function.
    try:
        for _name in os.listdir("/dev/shm"):
            if _name.startswith("left-by-a-killed-grader"):
                globals()["found_" + _name.replace("-", "_")] = len
    except OSError:
        pass


    def _scratch():
        return os.path.dirname(os.environ["TMPDIR"])


    def _chain(place, name, levels):
        os.chdir(place)
        os.mkdir(MARK + "-" + name)
        os.chdir(MARK + "-" + name)
        for level in range(levels):
            part = "d" if name == "deep" else str(level % 10) * 200
            os.mkdir(part)
            os.chdir(part)
        with open("note", "w") as handle:
            handle.write("left")


    def plant(shape):
        """Leave a tree of ``shape``; whether it could be written."""
        here = os.getcwd()
        try:
            if shape == "deep":
                _chain(_scratch(), "deep", 1200)
            elif shape == "long":
                _chain(_scratch(), "long", 24)
            elif shape == "locked":
                top = os.path.join(_scratch(), MARK + "-locked")
                os.makedirs(os.path.join(top, "inner", "innermost"))
                with open(os.path.join(top, "inner", "innermost", "note"), "w") as handle:
                    handle.write("left")
                for path in ("inner/innermost", "inner", ""):
                    os.chmod(os.path.join(top, path), 0)
            elif shape == "shm":  # a name of this uid's: other sandboxes share the place
                _chain("/dev/shm", "shm-%d" % os.getuid(), 300)
        except OSError as error:
            return repr(error)
        finally:
            os.chdir(here)
        return True


    def found(_):
        """What earlier calls of this sandbox left: marked entries of its uid in the scratch
        directory and /dev/shm (where other sandboxes, as other uids, may have theirs)."""
        names = []
        for place in (_scratch(), "/dev/shm"):
            try:
                names += [name for name in os.listdir(place) if name.startswith(MARK)
                          and os.lstat(os.path.join(place, name)).st_uid == os.getuid()]
            except OSError:
                pass
        return sorted(names)
''')


def _as_in_a_container(box: Sandbox) -> None:
    """The file-system view of a root grader in a default container: the chroot-root tree."""
    box.layers["mount-isolation"] = False
    box.layers["chroot-root"] = True


@pytest.fixture
def submission(tmp_path):
    os.chmod(tmp_path, 0o755)
    path = tmp_path / "student.py"
    path.write_text(SUBMISSION, encoding="utf-8")
    os.chmod(path, 0o644)
    return path


@pytest.fixture(params=["as-probed", "chroot-root"])
def view(request):
    if request.param == "chroot-root" and not LAYERS.get("uid-drop"):
        pytest.skip("the chroot-root tree is a root grader's")
    return request.param


def _open(submission: Path, view: str) -> Sandbox:
    box = Sandbox(submission, limits=LIMITS)
    if view == "chroot-root":
        _as_in_a_container(box)
    return box


# ---------------------------------------------------------------------------------------------
# one sandbox


@pytest.mark.parametrize("shape", SHAPES)
def test_a_call_leaves_no_tree_of_any_shape_for_the_next(submission, view, shape):
    with _open(submission, view) as box:
        planted = box.call("plant", [shape]).value
        if shape == "shm" and planted is not True:
            pytest.skip(f"/dev/shm is not writable in this view ({planted})")
        assert planted is True, planted
        assert box.call("found", [None]).value == []
        if view == "chroot-root":
            assert box.layers["chroot-root"], "the tree could not be built here"


@pytest.mark.parametrize("shape", SHAPES)
def test_a_tree_of_any_shape_is_gone_when_the_sandbox_closes(submission, shape):
    if not LAYERS.get("uid-drop"):
        pytest.skip("the chroot-root tree is a root grader's")
    with _open(submission, "chroot-root") as box:
        assert box.call("plant", [shape]).value is True
        directory, tree, uid = box.directory, box._tree, box.uid
    assert not os.path.lexists(directory)
    shared = tree + chroot_root.SHARED_MEMORY
    assert [name for name in os.listdir(shared)
            if os.lstat(os.path.join(shared, name)).st_uid == uid] == []


def test_what_an_earlier_holder_of_a_uid_left_in_shared_memory_is_gone_before_the_next_lease(
        submission, monkeypatch):
    if not LAYERS.get("uid-drop"):
        pytest.skip("the chroot-root tree is a root grader's")
    uid = 65431
    monkeypatch.setenv("GRADE_SANDBOX_UIDS", f"{uid}-{uid}")
    box = _open(submission, "chroot-root")
    tree = chroot_root.tree_for(box.interpreter)
    planted = Path(tree + chroot_root.SHARED_MEMORY) / "left-by-a-killed-grader"
    deepest = planted
    for depth in range(1200):
        deepest.mkdir()
        os.lchown(deepest, uid, uid)
        deepest = deepest / "d"
    deepest.write_text("left")
    try:
        with box:
            loaded = box.load()
            assert box.uid == uid
        assert loaded.ok, loaded.error
        assert not any(name.startswith("found_") for name in loaded.functions)
        assert not planted.exists()
    finally:
        if planted.exists():
            remove_tree(str(planted))


def test_a_removal_that_fails_stops_this_grading_with_a_plain_reason(submission, monkeypatch):
    box = _open(submission, "as-probed")
    assert box.call("found", [None]).value == []
    directory = box.directory

    def fails(path):
        raise TreeNotRemoved(f"cannot remove everything under {path}: Input/output error")

    monkeypatch.setattr(sandbox_api, "remove_tree", fails)
    with pytest.raises(SandboxUnavailable, match="could not remove what the submission left "
                                                 "in the sandbox, so it is not graded: cannot "
                                                 "remove everything under"):
        box.close()
    monkeypatch.undo()
    remove_tree(directory)
    assert box._uid is None, "the uid lease was not released"


# ---------------------------------------------------------------------------------------------
# the removal itself


def test_removal_needs_no_recursion_no_long_paths_and_no_permissions(tmp_path):
    top = tmp_path / "top"
    top.mkdir()
    os.chdir(top)
    try:
        for _ in range(3000):
            os.mkdir("d")
            os.chdir("d")
        os.chdir(top)
        for level in range(30):
            os.mkdir("x" * 250)
            os.chdir("x" * 250)
            Path("f" * 250).write_text("left")
            os.symlink("/etc/passwd", "link")
        os.chdir(top)
        os.makedirs("locked/inner")
        os.chmod("locked/inner", 0)
        os.chmod("locked", 0)
    finally:
        os.chdir(REPOSITORY)
    remove_tree(str(top))
    assert not top.exists()
    assert Path("/etc/passwd").exists()


def test_a_tree_that_cannot_be_removed_is_said(tmp_path, monkeypatch):
    (tmp_path / "top" / "inner").mkdir(parents=True)

    def refuse(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "rmdir", refuse)
    with pytest.raises(TreeNotRemoved, match="Input/output error"):
        remove_tree(str(tmp_path / "top"))


# ---------------------------------------------------------------------------------------------
# the next student on the same machine

COMMAND_ENVS = ["host-root", "container"]


@pytest.fixture
def place():
    """A directory ``nobody`` can read, with the files of the run and an empty TMPDIR."""
    directory = Path(tempfile.mkdtemp(prefix="bpe-shapes-test-"))
    os.chmod(directory, 0o755)
    (directory / "tmp").mkdir()
    os.chmod(directory / "tmp", 0o1777)
    spec = directory / "valid-minimal.yaml"
    spec.write_text(QUICK_SPEC)
    os.chmod(spec, 0o644)
    yield directory
    remove_tree(str(directory))


def _grade(platform_env, place: Path, submission: Path):  # noqa: F811
    target = place / submission.name
    shutil.copyfile(submission, target)
    os.chmod(target, 0o644)
    argv = platform_env([GRADE, "submit", "--exercise", str(place / "valid-minimal.yaml"),
                         "--format", "json", str(target)])
    environment = {**os.environ, "TMPDIR": str(place / "tmp")}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=place,
                          env=environment)
    assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
    return json.loads(done.stdout)


@pytest.mark.parametrize("platform_env", COMMAND_ENVS, indirect=True)
def test_after_a_hostile_grading_the_next_student_gets_a_fresh_machines_report(
        platform_env, place):  # noqa: F811
    fresh = _grade(platform_env, place, HONEST)
    hostile = _grade(platform_env, place, HOSTILE)
    assert 0 <= hostile["score"] <= hostile["max_score"]
    assert os.listdir(place / "tmp") == [], "the hostile grading left files in TMPDIR"
    after = _grade(platform_env, place, HONEST)
    assert without_durations(after) == without_durations(fresh)
    assert fresh["score"] == fresh["max_score"]


@pytest.mark.parametrize("platform_env", COMMAND_ENVS, indirect=True)
def test_a_deep_tree_a_killed_grader_left_does_not_stop_the_next_grading(
        platform_env, place):  # noqa: F811
    fresh = _grade(platform_env, place, HONEST)
    dead = subprocess.Popen(["true"])
    dead.wait()
    time.sleep(0.05)
    left = place / "tmp" / f"bpe-sandbox-{dead.pid}-killed"
    os.makedirs(left / "scratch")
    os.chdir(left / "scratch")
    try:
        for _ in range(1200):
            os.mkdir("d")
            os.chdir("d")
        Path("note").write_text("left")
    finally:
        os.chdir(REPOSITORY)
    after = _grade(platform_env, place, HONEST)
    assert without_durations(after) == without_durations(fresh)
    assert not left.exists()


LOCKS_ITS_SCRATCH = '''
import os


def lock_scratch():
    """Locks the scratch folder this call runs in, so the worker cannot clear it after."""
    os.chmod(os.path.dirname(os.getcwd()), 0)
    return 1


def answer():
    return 2
'''


def test_a_worker_that_cannot_clear_a_call_is_not_the_next_calls_failure(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(LOCKS_ITS_SCRATCH)
    with Sandbox(path, limits=SandboxLimits(call_seconds=2, total_seconds=30)) as box:
        for _ in range(3):
            assert box.call("lock_scratch").value == 1
            outcome = box.call("answer")
            assert (outcome.kind, outcome.value) == ("ok", 2), outcome.error
