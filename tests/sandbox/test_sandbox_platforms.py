"""``grade submit`` in every environment a grader meets: as root on the host, as ``nobody``,
in a default Docker container and in one on a cgroup-v2-only host (``tests/support``).

Every hostile submission under ``tests/hostile/``, and each stream forgery inside a correct
byte-bpe submission, is graded in each environment but the host as root (where
``test_sandbox_hostile`` and ``test_byte_streaming`` grade them, and every other command-line
test runs). In each environment one process (``support/grade_in_sequence.py``) grades them all
one after another, as ``grade submit --format json`` grades one, and lists after each grading
the processes it left (that process is a child subreaper, so anything orphaned by the grading
becomes its child) and the files: each grading must give a report and leave no process and no
file behind, and the process must survive them all. ``grade submit`` itself grades one of them
in each environment, this test process adopting what the command orphans for that test only.
Strict mode must grade the correct example to full marks wherever its guarantees hold, and
refuse, with one line naming the guarantee, where one really does not.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from support.fixtures import PLATFORM_ENVS, platform_env  # noqa: F401 - the fixture
from support.delegated_caps import RUN_SPREAD, SPREAD, assert_caps_held, offers_pids_and_memory
from support.grade_in_sequence import read as read_in_sequence
from support.strays import adopting

REPOSITORY = Path(__file__).resolve().parents[2]
HOSTILE = REPOSITORY / "tests" / "hostile"
HOSTILE_CASES = sorted(path.name for path in HOSTILE.glob("*.py"))
CORRECT = REPOSITORY / "examples" / "bpe-train-encode" / "student_correct.py"
GRADE = str(Path(sys.executable).with_name("grade"))
# Containment is per call, so a few generated inputs exercise each hostile file enough.
QUICK_SPEC = (REPOSITORY / "tests" / "specs" / "valid-minimal.yaml").read_text() + (
    "limits:\n  call_seconds: 0.5\n  memory_mib: 192\n  total_seconds: 2\n"
    "properties:\n  examples: 4\n")
NOBODY = 65534
ENVIRONMENTS_BUT_ROOT = [name for name in PLATFORM_ENVS if name != "host-root"]
DRIVER = REPOSITORY / "tests" / "support" / "grade_in_sequence.py"
SEQUENCE_SECONDS = 900


@pytest.fixture(autouse=True)
def adopted():
    """This process adopts the orphans of the runs a test starts, for that test only (Linux)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the environments are Linux ones")
    with adopting() as adopted:
        yield adopted


def a_place(directory: Path) -> Path:
    """``directory`` made readable by ``nobody``, with an empty TMPDIR folder in it."""
    directory.mkdir()
    os.chmod(directory, 0o755)
    temp = directory / "tmp"
    temp.mkdir()
    os.chmod(temp, 0o1777)
    return directory


@pytest.fixture
def place():
    """A directory ``nobody`` can read, with the files of the run and an empty TMPDIR."""
    parent = Path(tempfile.mkdtemp(prefix="bpe-platform-test-"))
    os.chmod(parent, 0o755)
    directory = a_place(parent / "place")
    yield directory
    shutil.rmtree(directory.parent, ignore_errors=True)


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


def quick_spec(place: Path) -> Path:
    spec = place / "valid-minimal.yaml"  # the id must match the file name
    spec.write_text(QUICK_SPEC)
    os.chmod(spec, 0o644)
    return spec


@dataclass
class InSequence:
    """One ``grade_in_sequence.py`` run in an environment: what it printed for each job (by
    the name of the job's place), how it ended, and the processes it left."""

    environment: str
    done: subprocess.CompletedProcess
    graded: dict[str, dict]
    strays: list[str]

    def job(self, name: str) -> dict:
        if name not in self.graded:
            pytest.fail(f"{self.environment}: the run stopped before grading {name} (exit "
                        f"{self.done.returncode}): {self.done.stderr[-2000:]}")
        return self.graded[name]

    def ended_well(self) -> None:
        assert self.done.returncode == 0, (self.environment, self.done.stderr[-2000:])
        assert self.strays == [], self.environment


def run_in_sequence(platform_env, folder: Path, cases: list[str],  # noqa: F811
                    forgeries: list[str]) -> InSequence:
    """The hostile ``cases`` (spec: the quick one) and the stream ``forgeries`` (spec: a
    cut-down byte-bpe), each in a place of its own under ``folder``, graded by one process."""
    from grader.families.byte_level.students import student_source
    from grader.spec import load_exercise

    jobs = []
    for case in cases:
        place = a_place(folder / case)
        shutil.copyfile(HOSTILE / case, place / case)
        os.chmod(place / case, 0o644)
        jobs.append([str(place / case), str(quick_spec(place))])
    correct = student_source(load_exercise("byte-bpe")) if forgeries else ""
    for forgery in forgeries:
        place = a_place(folder / f"stream-{forgery}")
        (place / "student.py").write_text(correct + "\n\n" + (HOSTILE / forgery).read_text())
        os.chmod(place / "student.py", 0o644)
        jobs.append([str(place / "student.py"), str(streaming_spec(place))])
    argv = platform_env([sys.executable, "-I", DRIVER, json.dumps(jobs)])
    with adopting() as adopted:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=SEQUENCE_SECONDS,
                                  cwd=folder, env={**os.environ, "TMPDIR": str(folder / "tmp")})
        except subprocess.TimeoutExpired as expired:  # every later test reads what it printed
            printed = [text.decode(errors="replace") if isinstance(text, bytes) else text or ""
                       for text in (expired.stdout, expired.stderr)]
            done = subprocess.CompletedProcess(argv, -9, printed[0], printed[1] + (
                f"\nkilled: still grading after {SEQUENCE_SECONDS} s"))
        left = adopted.strays()
    return InSequence(platform_env.name, done, read_in_sequence(done.stdout), left)


def selected(request, environment: str, parameter: str, everything: Sequence[str]) -> list[str]:
    """The values of ``parameter`` that this session's tests of this module run with in
    ``environment`` (all of them in a whole run, fewer with ``-k`` or a node id)."""
    chosen = set()
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if item.module is request.module and params.get("platform_env") == environment:
            chosen.add(params.get(parameter))
    return [value for value in everything if value in chosen]


@pytest.fixture(scope="module")
def in_sequence(request):
    """``in_sequence(platform_env)``: the :class:`InSequence` run in that environment, made
    when a test first asks for it, of the cases and forgeries this session's tests grade
    there (each environment's tests share an xdist group, so one process runs them)."""
    root = Path(tempfile.mkdtemp(prefix="bpe-platform-sequence-"))
    os.chmod(root, 0o755)
    runs: dict[str, InSequence] = {}

    def of(platform_env) -> InSequence:  # noqa: F811
        name = platform_env.name
        if name not in runs:
            runs[name] = run_in_sequence(
                platform_env, a_place(root / name),
                selected(request, name, "case", HOSTILE_CASES),
                selected(request, name, "forgery", STREAM_FORGERIES))
        return runs[name]

    yield of
    shutil.rmtree(root, ignore_errors=True)


def each_environment_in_one_process(names):
    """The environments as parameters, each in an xdist group of its own."""
    return [pytest.param(name, marks=pytest.mark.xdist_group(f"platforms-in-sequence-{name}"))
            for name in names]


@pytest.mark.parametrize("platform_env", each_environment_in_one_process(ENVIRONMENTS_BUT_ROOT),
                         indirect=True)
@pytest.mark.parametrize("case", HOSTILE_CASES)
def test_hostile_submission_is_contained_everywhere(platform_env, in_sequence, case):  # noqa: F811
    run = in_sequence(platform_env)
    graded = run.job(case)
    assert graded["error"] is None, (platform_env.name, graded["error"])
    report = graded["report"]
    assert report["exercise"] == "valid-minimal" and 0 <= report["score"] <= report["max_score"]
    assert graded["strays"] == [], platform_env.name
    assert graded["tmp"] == [], "the grading left files in TMPDIR"
    assert graded["place"] == sorted(["tmp", "valid-minimal.yaml", case]), "files appeared"
    run.ended_well()


@pytest.mark.parametrize("platform_env", ENVIRONMENTS_BUT_ROOT, indirect=True)
def test_grade_submit_leaves_no_daemon_behind_anywhere(platform_env, place, adopted):  # noqa: F811
    case = "daemon.py"
    spec = quick_spec(place)
    done, _ = grade(platform_env, place, HOSTILE / case, "--exercise", str(spec))
    assert done.returncode == 0, (platform_env.name, done.stderr[-2000:])
    report = json.loads(done.stdout)
    assert report["exercise"] == "valid-minimal" and 0 <= report["score"] <= report["max_score"]
    assert adopted.strays() == [], platform_env.name
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


@pytest.mark.parametrize("platform_env", each_environment_in_one_process(ENVIRONMENTS_BUT_ROOT),
                         indirect=True)
@pytest.mark.parametrize("forgery", STREAM_FORGERIES)
def test_an_eager_encode_iterable_cannot_forge_its_laziness_anywhere(platform_env,  # noqa: F811
                                                                     in_sequence, forgery):
    # As root on the host, tests/families/byte_level/test_byte_streaming.py grades the same.
    run = in_sequence(platform_env)
    graded = run.job(f"stream-{forgery}")
    assert graded["error"] is None, (platform_env.name, graded["error"])
    (milestone,) = [m for m in graded["report"]["milestones"] if m["id"] == "encode-iterable"]
    (lazy,) = [check for check in milestone["checks"]
               if "before reading every line" in check["title"]]
    assert not lazy["passed"], (platform_env.name, lazy)
    assert "read every one of them before yielding any id" in lazy["message"]
    assert graded["strays"] == [], platform_env.name
    run.ended_well()


def test_strict_mode_grades_the_correct_example_to_full_marks(platform_env, place,  # noqa: F811
                                                             adopted):
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
    assert adopted.strays() == []
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


def test_a_process_pool_trainer_grades_like_a_serial_one(platform_env, place, tmp_path,  # noqa: F811
                                                       adopted):
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
    assert adopted.strays() == [], platform_env.name
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
                                                                                place, adopted):
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
    assert adopted.strays() == [], platform_env.name


@pytest.mark.parametrize("platform_env", ["container-cgroup-v2"], indirect=True)
def test_caps_hold_in_a_delegated_subtree(platform_env, place, adopted):  # noqa: F811
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
    assert adopted.strays() == []
