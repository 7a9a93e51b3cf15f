"""``grade submit`` in every environment a grader meets: as root on the host, as ``nobody``,
in a default Docker container and in one on a cgroup-v2-only host (``tests/support``).

Every hostile submission under ``tests/hostile/`` is graded in a subprocess in each
environment but the host as root, where ``test_sandbox_hostile`` runs each of them against the
same sandbox and every other command-line test runs as well: the run must exit 0 with a
report, and leave no process (this test process is a subreaper, so anything orphaned by the
run becomes its child) and no file behind. Strict mode
must grade the correct example to full marks wherever its guarantees hold, and refuse, with
one line naming the guarantee, where one really does not.
"""

from __future__ import annotations

import csv
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
import yaml

from support.fixtures import PLATFORM_ENVS, platform_env  # noqa: F401 - the fixture
from support.delegated_caps import RUN_SPREAD, SPREAD, assert_caps_held, offers_pids_and_memory

REPOSITORY = Path(__file__).resolve().parents[2]
HOSTILE = REPOSITORY / "tests" / "hostile"
HOSTILE_CASES = sorted(path.name for path in HOSTILE.glob("*.py"))
CORRECT = REPOSITORY / "examples" / "bpe-train-encode" / "student_correct.py"
GRADE = str(Path(sys.executable).with_name("grade"))
# Containment is per call, so a few generated inputs exercise each hostile file enough.
QUICK_SPEC = (REPOSITORY / "tests" / "specs" / "valid-minimal.yaml").read_text() + (
    "limits:\n  call_seconds: 0.5\n  memory_mib: 192\n  total_seconds: 2\n"
    "properties:\n  examples: 4\n")
PR_SET_CHILD_SUBREAPER = 36
NOBODY = 65534


@pytest.fixture(scope="module", autouse=True)
def adopt_orphans():
    """Make this process adopt the orphans of the runs it starts (Linux)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the environments are Linux ones")
    ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    yield


@pytest.fixture
def place():
    """A directory ``nobody`` can read, with the files of the run and an empty TMPDIR."""
    directory = Path(tempfile.mkdtemp(prefix="bpe-platform-test-"))
    os.chmod(directory, 0o755)
    temp = directory / "tmp"
    temp.mkdir()
    os.chmod(temp, 0o1777)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def grade(platform_env, place: Path, submission: Path, *options: str, env=None):  # noqa: F811
    target = place / submission.name
    shutil.copyfile(submission, target)
    os.chmod(target, 0o644)
    argv = platform_env([GRADE, "submit", *options, "--format", "json", str(target)])
    environment = {**os.environ, "TMPDIR": str(place / "tmp"), **(env or {})}
    started = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=180, cwd=place,
                          env=environment)
    return done, time.monotonic() - started


def strays(patience: float = 3.0) -> list[str]:
    """Processes the runs left behind (now children of this subreaper): killed and reaped."""
    deadline = time.monotonic() + patience
    while True:
        left = [pid for pid in _children() if not _zombie(pid)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    described = [f"{pid}: {_cmdline(pid)}" for pid in left]
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _reap_all()
    return described


def _children() -> list[int]:
    found = []
    for task in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{task}/children") as handle:
                found += [int(part) for part in handle.read().split()]
        except OSError:
            continue
    return found


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "?"


def _reap_all() -> None:
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                time.sleep(0.02)
        except ChildProcessError:
            return


@pytest.mark.parametrize("platform_env", [name for name in PLATFORM_ENVS if name != "host-root"],
                         indirect=True)
@pytest.mark.parametrize("case", HOSTILE_CASES)
def test_hostile_submission_is_contained_everywhere(platform_env, place, case):  # noqa: F811
    spec = place / "valid-minimal.yaml"  # the id must match the file name
    spec.write_text(QUICK_SPEC)
    os.chmod(spec, 0o644)
    done, _ = grade(platform_env, place, HOSTILE / case, "--exercise", str(spec))
    assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
    report = json.loads(done.stdout)
    assert report["exercise"] == "valid-minimal" and 0 <= report["score"] <= report["max_score"]
    assert strays() == [], platform_env.name
    assert os.listdir(place / "tmp") == [], "the run left files in TMPDIR"
    assert sorted(os.listdir(place)) == sorted(["tmp", spec.name, case]), "files appeared"


STREAM_FORGERIES = ("forge_stream_counter.py", "forge_stream_builtins.py", "forge_stream_answer.py")


def streaming_spec(place: Path) -> Path:
    """byte-bpe cut down to one case, its encode and decode cases and the streaming milestone."""
    spec = yaml.safe_load((REPOSITORY / "exercises" / "byte-bpe.yaml").read_text())
    spec["id"] = "byte-stream"
    spec["milestones"] = [{**milestone, "checks": [{"kind": "cases"}]}
                          for milestone in spec["milestones"]
                          if milestone["id"] in ("encode", "decode", "encode-iterable")]
    spec.pop("efficiency")
    spec["cases"] = [case for case in spec["cases"] if case.get("encode")][:1]
    path = place / "byte-stream.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    os.chmod(path, 0o644)
    return path


@pytest.mark.parametrize("platform_env", [name for name in PLATFORM_ENVS if name != "host-root"],
                         indirect=True)
@pytest.mark.parametrize("forgery", STREAM_FORGERIES)
def test_an_eager_encode_iterable_cannot_forge_its_laziness_anywhere(platform_env, place,  # noqa: F811
                                                                     tmp_path, forgery):
    # As root on the host, tests/families/byte_level/test_byte_streaming.py grades the same.
    from grader.families.byte_level.students import student_source
    from grader.spec import load_exercise

    submission = tmp_path / "student.py"
    submission.write_text(student_source(load_exercise("byte-bpe")) + "\n\n"
                          + (HOSTILE / forgery).read_text())
    done, _ = grade(platform_env, place, submission, "--exercise", str(streaming_spec(place)))
    assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
    (milestone,) = [m for m in json.loads(done.stdout)["milestones"]
                    if m["id"] == "encode-iterable"]
    (lazy,) = [check for check in milestone["checks"]
               if "before reading every line" in check["title"]]
    assert not lazy["passed"], (platform_env.name, lazy)
    assert "read every one of them before yielding any id" in lazy["message"]
    assert strays() == [], platform_env.name


def test_strict_mode_grades_the_correct_example_to_full_marks(platform_env, place):  # noqa: F811
    done, seconds = grade(platform_env, place, CORRECT, "--strict-sandbox")
    if platform_env.name == "host-nobody":
        # No pids cgroup can be made and no uid can be dropped to: no process cap holds.
        assert done.returncode == 1
        [line] = done.stderr.strip().splitlines()
        assert "refusing to grade with --strict-sandbox" in line
        assert "processes and threads are capped as a whole" in line
        return
    assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
    report = json.loads(done.stdout)
    assert report["score"] == report["max_score"] == 100, platform_env.name
    assert strays() == []
    assert os.listdir(place / "tmp") == []


def test_strict_mode_refuses_when_a_mechanism_is_disabled(platform_env, place):  # noqa: F811
    if platform_env.name == "host-nobody":
        pytest.skip("strict mode refuses there anyway (see above)")
    # In a container Landlock and the chroot-root tree are the file-system layers: without them
    # the spec is readable.
    disabled = "landlock,chroot-root" if platform_env.name.startswith("container") else \
        "landlock,mount-isolation"
    done, _ = grade(platform_env, place, CORRECT, "--strict-sandbox",
                    env={"GRADE_SANDBOX_DISABLE": disabled})
    assert done.returncode == 1, platform_env.name
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("grade submit: refusing to grade with --strict-sandbox")
    assert "cannot read the spec, the reference or the grader's files" in line
    assert done.stdout == ""


def test_a_process_pool_trainer_grades_like_a_serial_one(platform_env, place, tmp_path):  # noqa: F811
    # CS336's starter code pre-tokenizes in a multiprocessing pool; its semaphores live in
    # /dev/shm: the private root's own, or in a default container the chroot-root tree's,
    # where each open sandbox writes as a uid of its own.
    source = CORRECT.read_text(encoding="utf-8").replace(
        "def train_bpe(corpus, num_merges):\n",
        "def train_bpe(corpus, num_merges):\n    import multiprocessing\n"
        "    with multiprocessing.Pool(2) as pool:\n"
        "        assert pool.map(len, ['ab', 'c']) == [2, 1]\n", 1)
    pooled = tmp_path / "pooled.py"
    pooled.write_text(source, encoding="utf-8")
    done, _ = grade(platform_env, place, pooled)
    assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
    report = json.loads(done.stdout)
    layers = report["sandbox_layers"]
    assert layers.get("mount-isolation") or layers.get("chroot-root"), (platform_env.name, layers)
    assert report["score"] == report["max_score"], platform_env.name
    assert strays() == [], platform_env.name
    assert os.listdir(place / "tmp") == []


LOOK_AROUND = '''
import os, socket

def look(secret, socket_path):
    seen = {}
    try:
        seen["processes"] = sum(name.isdigit() for name in os.listdir("/proc"))
    except OSError as error:
        seen["processes"] = type(error).__name__
    try:
        seen["secret"] = os.stat(secret).st_size
    except OSError as error:
        seen["secret"] = type(error).__name__
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(socket_path)
            seen["socket"] = client.recv(16).decode()
    except OSError as error:
        seen["socket"] = type(error).__name__
    return seen
'''
RUN_LOOK = '''
import json, sys
from grader.sandbox.api import Sandbox
with Sandbox(sys.argv[1]) as box:
    outcome = box.call("look", sys.argv[2:])
    print(json.dumps({"value": outcome.value, "error": outcome.error, "layers": box.layers}))
'''


def test_a_call_cannot_stat_host_files_list_processes_or_reach_host_sockets(platform_env,  # noqa: F811
                                                                            place):
    # Landlock refuses to open the host's files, but not stat, nor connecting to a UNIX
    # socket by its path: in every environment those must not be there to reach.
    secret = place / "secret.txt"
    secret.write_text("the reference's answers")
    os.chmod(secret, 0o600)
    socket_path = str(place / "grader.sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(socket_path)
    os.chmod(socket_path, 0o777)
    server.listen(4)
    server.settimeout(0.2)
    accepted = []

    def answer():
        while not stopping:
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            accepted.append(1)
            connection.sendall(b"reached")
            connection.close()

    stopping = False
    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    student = place / "look.py"
    student.write_text(LOOK_AROUND)
    os.chmod(student, 0o644)
    try:
        done = subprocess.run(platform_env([sys.executable, "-c", RUN_LOOK, str(student),
                                            str(secret), socket_path]),
                              capture_output=True, text=True, timeout=120, cwd=place,
                              env={**os.environ, "TMPDIR": str(place / "tmp")})
    finally:
        stopping = True
        thread.join(2)
        server.close()
    assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
    report = json.loads(done.stdout.splitlines()[-1])
    seen = report["value"]
    assert seen is not None, (platform_env.name, report["error"])
    assert seen["processes"] in ("FileNotFoundError", "PermissionError"), (platform_env.name, seen)
    assert seen["secret"] in ("FileNotFoundError", "PermissionError"), (platform_env.name, seen)
    assert seen["socket"] in ("FileNotFoundError", "PermissionError", "ConnectionRefusedError"), \
        (platform_env.name, seen)
    assert accepted == [], platform_env.name
    if platform_env.name.startswith("container"):
        assert report["layers"]["chroot-root"], report["layers"]
        assert seen["secret"] == seen["socket"] == "FileNotFoundError", seen


@pytest.mark.parametrize("platform_env", ["container", "container-cgroup-v2"], indirect=True)
def test_a_classmate_signalling_every_pid_changes_no_score_in_a_parallel_batch(platform_env,  # noqa: F811
                                                                                place):
    # No PID namespace in a container: the attacker can name every pid. Landlock's signal
    # scoping (ABI 6) would refuse the signals too; without it, as on older kernels, each
    # sandbox's own uid is what keeps them off the classmate graded beside it.
    spec = place / "valid-minimal.yaml"
    spec.write_text(QUICK_SPEC.replace("total_seconds: 2", "total_seconds: 4"))
    os.chmod(spec, 0o644)

    def batch(students: dict[str, Path], out: str) -> dict[str, str]:
        folder = place / f"class-{out}"
        folder.mkdir()
        os.chmod(folder, 0o755)
        for name, source in students.items():
            shutil.copyfile(source, folder / f"{name}.py")
            os.chmod(folder / f"{name}.py", 0o644)
        done = subprocess.run(platform_env([GRADE, "batch", str(folder), "-o", str(place / out),
                                            "--exercise", str(spec), "--jobs", "2",
                                            "--no-progress"]),
                              capture_output=True, text=True, timeout=300, cwd=place,
                              env={**os.environ, "TMPDIR": str(place / "tmp"),
                                   "GRADE_SANDBOX_DISABLE": "landlock"})
        assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
        with open(place / out / "grades.csv", newline="") as handle:
            return {row["student"]: row["total"] for row in csv.DictReader(handle)}

    alone = batch({"honest": CORRECT}, "alone")
    beside = batch({"honest": CORRECT, "mallory": HOSTILE / "signal_the_neighbours.py"},
                   "beside")
    assert beside["honest"] == alone["honest"], (platform_env.name, alone, beside)
    assert strays() == [], platform_env.name


@pytest.mark.parametrize("platform_env", ["container-cgroup-v2"], indirect=True)
def test_caps_hold_in_a_delegated_subtree(platform_env, place):  # noqa: F811
    # The simulation's /sys/fs/cgroup is writable and rooted at a cgroup of its own: a
    # delegated subtree. Where the host gives it pids and memory, the sandbox caps with them.
    student = place / "spread.py"
    student.write_text(SPREAD)
    os.chmod(student, 0o644)
    done = subprocess.run(platform_env([sys.executable, "-c", RUN_SPREAD, str(student)]),
                          capture_output=True, text=True, timeout=120, cwd=place,
                          env={**os.environ, "TMPDIR": str(place / "tmp")})
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.splitlines()[-1])
    if not offers_pids_and_memory(report):
        pytest.skip("this host keeps pids and memory on cgroup v1: the subtree offers only "
                    f"{report['offered'] or 'no controller'} (test_sandbox_cgroup_v2_vm.py "
                    "runs the same call on a cgroup-v2-only kernel)")
    assert_caps_held(report)
    assert strays() == []
