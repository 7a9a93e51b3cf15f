"""The sandbox API the grading engine uses: loading, calls and their outcomes, limits, the
overall budget, captured output, isolation layers, strict mode and clean-up."""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from grader.sandbox import api as sandbox_module
from grader.sandbox import cgroups as sandbox_cgroups
from grader.sandbox import guarantees
from grader.sandbox import uids as sandbox_uids
from grader.sandbox.api import (
    Opaque,
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
    layers_notice,
    probe_layers,
    remove_leftovers,
)
from grader.sandbox.layers import LAYER_NAMES

LAYERS = probe_layers()
IS_ROOT = os.geteuid() == 0
FAST = SandboxLimits(call_seconds=1.0, memory_mib=256, total_seconds=30.0,
                     max_answer_bytes=64 << 10, max_output_bytes=1 << 10)

COOPERATIVE = '''
import os
import sys
import time

print("imported")
counter = 0


def echo(*args):
    return args


def type_names(*args):
    def names(value):
        if type(value) in (list, tuple):
            return [type(value).__name__, [names(item) for item in value]]
        if type(value) is dict:
            return ["dict", {key: names(item) for key, item in value.items()}]
        return type(value).__name__
    return names(list(args))


def bump():
    global counter
    counter += 1
    return counter


def fail(key):
    return {}[key]


def big(size):
    return "x" * size


def deep(levels):
    value = []
    for _ in range(levels):
        value = [value]
    return value


def odd_values():
    return [float("nan"), {1.5: "a"}, {"k": {2, 3}}, bytearray(b"x")]


def sleep(seconds):
    time.sleep(seconds)
    return seconds


def spin(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


def shout(text):
    print(text)
    sys.stderr.write(text + "\\n")
    return len(text)


def where():
    return {"uid": os.getuid(), "cwd": os.getcwd(), "files": sorted(os.listdir(".")),
            "env": sorted(os.environ), "home": os.environ["HOME"],
            "tmpdir": os.environ["TMPDIR"]}


def die():
    os._exit(3)


def kernel_view():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    no_new_privs = libc.prctl(39, 0, 0, 0, 0)  # PR_GET_NO_NEW_PRIVS
    unshared = libc.unshare(0x10000000)  # CLONE_NEWUSER
    return {"no_new_privs": no_new_privs, "unshare": unshared, "errno": ctypes.get_errno()}
'''


@pytest.fixture
def submission(tmp_path: Path) -> Path:
    path = tmp_path / "student.py"
    path.write_text(textwrap.dedent(COOPERATIVE))
    return path


@pytest.fixture
def box(submission: Path):
    with Sandbox(submission, limits=FAST) as opened:
        assert opened.load().ok
        yield opened


def test_load_lists_the_public_functions(submission):
    with Sandbox(submission, limits=FAST) as opened:
        loaded = opened.load()
        assert loaded.ok and loaded.error is None
        assert {"echo", "bump", "fail", "where"} <= set(loaded.functions)
        assert opened.load() is loaded  # imported once


def test_values_keep_their_exact_types_both_ways(box):
    args = [[("l", "o"), ("lo", "w")], {"low": 5, "new": (1, 2.5, None, True)}, "é"]
    outcome = box.call("echo", args)
    assert (outcome.ok, outcome.kind, outcome.error) == (True, "ok", None)
    assert outcome.value == tuple(args)
    assert box.call("type_names", args).value == [
        "list",
        [["list", [["tuple", ["str", "str"]], ["tuple", ["str", "str"]]]],
         ["dict", {"low": "int", "new": ["tuple", ["int", "float", "NoneType", "bool"]]}],
         "str"],
    ]


def test_values_that_are_not_plain_come_back_opaque(box):
    assert box.call("odd_values", []).value == [
        Opaque("float(nan)"), Opaque("dict with float keys"), {"k": Opaque("set")},
        Opaque("bytearray")]


def test_each_call_starts_from_the_imported_state(box):
    assert [box.call("bump", []).value for _ in range(3)] == [1, 1, 1]


def test_exception_is_reported_in_words(box):
    outcome = box.call("fail", ["x"])
    assert (outcome.ok, outcome.kind) == (False, "exception")
    # where in the submission it was raised, read from the traceback's own frames
    assert re.fullmatch(r"raised KeyError: 'x' \(at line \d+, in fail\)", outcome.error), outcome.error


def test_missing_function(box):
    outcome = box.call("train_bpe", [[], 1])
    assert (outcome.kind, outcome.error) == ("missing", "train_bpe is not defined in student.py")


def test_answer_over_the_size_bound_is_a_bad_answer_and_the_next_call_works(box):
    outcome = box.call("big", [FAST.max_answer_bytes * 2])
    assert outcome.kind == "bad-answer"
    assert outcome.error.startswith("returned an answer the grader cannot accept")
    assert box.call("big", [10]).value == "x" * 10


def test_answer_nested_too_deeply_is_a_bad_answer(box):
    assert box.call("deep", [10]).kind == "ok"
    assert box.call("deep", [500]).kind == "bad-answer"


def test_timeout_and_its_override(box):
    slow = box.call("sleep", [1.3])
    assert (slow.kind, slow.error) == ("timeout", "timed out after 1.0 s")
    assert 1.0 <= slow.seconds < 3.0
    allowed = box.call("sleep", [1.3], timeout=4)
    assert (allowed.kind, allowed.value) == ("ok", 1.3)


def test_a_call_made_without_measuring_cpu_reports_none(box):
    measured = box.call("spin", [0.05])
    unmeasured = box.call("spin", [0.05], measure_cpu=False)
    assert measured.ok and unmeasured.ok
    assert measured.cpu_seconds is not None and unmeasured.cpu_seconds is None


def test_cpu_seconds_measure_work_not_waiting(box):
    busy = box.call("spin", [0.3], timeout=5)
    idle = box.call("sleep", [0.3], timeout=5)
    assert busy.cpu_seconds is not None and idle.cpu_seconds is not None
    assert busy.cpu_seconds >= 0.25
    assert idle.cpu_seconds < 0.15 <= idle.seconds


def test_exit_in_a_call_fails_only_that_call(box):
    died = box.call("die", [])
    assert (died.kind, died.error) == ("exit", "exited with status 3 during the call")
    assert box.call("echo", [1]).value == (1,)


def test_a_dead_worker_is_replaced_for_the_next_call(box):
    first_worker = box.worker_pid
    os.killpg(first_worker, signal.SIGKILL)
    time.sleep(0.1)
    assert box.call("echo", [1]).value == (1,)
    assert box.worker_pid not in (None, first_worker)


def test_overall_budget(submission):
    limits = SandboxLimits(call_seconds=4.0, total_seconds=1.5)
    with Sandbox(submission, limits=limits) as opened:
        opened.load()
        fits = opened.call("sleep", [0.1])
        over = opened.call("sleep", [3.0])
        spent = opened.call("echo", [1])
    assert fits.kind == "ok"
    assert (over.kind, over.error) == ("budget", "the submission's time budget ran out")
    assert (spent.kind, spent.error) == ("budget", "the submission's time budget ran out")


def test_output_is_captured_and_capped(box):
    box.call("shout", ["hello"])
    assert box.output.startswith("imported\n")
    assert "hello\nhello\n" in box.output
    box.call("shout", ["y" * 5000])
    text = box.output
    assert "bytes of output omitted" in text
    assert len(text.encode()) < FAST.max_output_bytes + 100


def test_each_call_works_in_an_empty_private_directory_with_a_scrubbed_environment(box):
    seen = box.call("where", []).value
    again = box.call("where", []).value
    assert seen["files"] == [] and again["files"] == []
    assert seen["home"] == seen["tmpdir"] == seen["cwd"]
    assert again["cwd"] != seen["cwd"]
    assert seen["env"] == ["HOME", "LANG", "LC_ALL", "PATH", "TMPDIR"]
    if LAYERS["uid-drop"]:
        assert seen["uid"] == box.uid and seen["uid"] in sandbox_uids.pool()
    if LAYERS["mount-isolation"]:
        assert seen["cwd"].startswith("/tmp/")


def test_reported_kernel_layers_are_really_in_force(box):
    seen = box.call("kernel_view", []).value
    if LAYERS["no-new-privs"]:
        assert seen["no_new_privs"] == 1
    if LAYERS["seccomp"]:
        assert (seen["unshare"], seen["errno"]) == (-1, errno.EPERM)
    if not (LAYERS["no-new-privs"] or LAYERS["seccomp"]):
        pytest.skip("neither no-new-privs nor seccomp is available here")


def test_close_kills_the_worker_and_removes_the_directory(submission):
    with Sandbox(submission, limits=FAST) as opened:
        opened.load()
        pid, directory = opened.worker_pid, opened.directory
        assert pid is not None and os.path.isdir(directory)
    assert not os.path.exists(directory)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_close_after_an_error_in_the_with_block_still_cleans_up(submission):
    with pytest.raises(RuntimeError):
        with Sandbox(submission, limits=FAST) as opened:
            opened.load()
            directory = opened.directory
            raise RuntimeError("grader bug")
    assert not os.path.exists(directory)


def test_a_submission_that_did_not_load_cannot_be_called(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    with Sandbox(broken, limits=FAST) as opened:
        outcome = opened.call("f", [])
    assert outcome.kind == "missing"
    assert outcome.error.startswith("f cannot run: the submission did not load (SyntaxError")


def test_bad_usage_gets_clear_errors(submission, tmp_path):
    with pytest.raises(SandboxError, match="submission not found"):
        Sandbox(tmp_path / "nope.py")
    with pytest.raises(SandboxError, match="memory_mib must be a positive number"):
        SandboxLimits(memory_mib=0)
    with Sandbox(submission, limits=FAST) as opened:
        with pytest.raises(SandboxError, match="cannot send the arguments of echo"):
            opened.call("echo", [{1, 2}])
        with pytest.raises(SandboxError, match="function name must be an identifier"):
            opened.call("os.system", [])
        with pytest.raises(SandboxError, match="timeout must be a positive number"):
            opened.call("echo", [], timeout=0)


def test_layers_report_names_every_layer_and_never_claims_more_than_probed(box):
    assert tuple(box.layers) == LAYER_NAMES
    assert box.layers["process"] is True
    assert box.layers == LAYERS
    if not IS_ROOT:
        assert box.layers["uid-drop"] is False


def test_layers_notice_names_what_is_missing():
    everything = dict.fromkeys(LAYER_NAMES, True)
    assert layers_notice(everything) is None
    notice = layers_notice(everything | {"seccomp": False, "pid-namespace": False})
    assert notice is not None and "\n" not in notice
    assert notice.endswith("pid-namespace, seccomp")


@pytest.mark.skipif(not LAYERS["seccomp"], reason="needs the seccomp layer to disable it")
def test_strict_mode_refuses_when_a_guarantee_is_really_missing(submission, monkeypatch):
    monkeypatch.setenv("GRADE_SANDBOX_DISABLE", "seccomp")
    with pytest.raises(SandboxUnavailable) as refused:
        Sandbox(submission, strict=True)
    reason = str(refused.value)
    assert "\n" not in reason
    assert reason.startswith("refusing to grade with --strict-sandbox: on this host it cannot "
                             "be guaranteed that student code can open no socket but AF_UNIX")
    assert "memory" not in reason  # only what is missing is named
    with Sandbox(submission, limits=FAST, strict=False) as lenient:
        assert lenient.layers["seccomp"] is False
        assert lenient.call("echo", [1]).value == (1,)


def test_strict_mode_names_each_missing_guarantee(submission, monkeypatch):
    monkeypatch.setenv("GRADE_SANDBOX_DISABLE", "pids-cgroup,process-rlimit,landlock,"
                                               "mount-isolation")
    with pytest.raises(SandboxUnavailable) as refused:
        Sandbox(submission, strict=True)
    reason = str(refused.value)
    for words in ("cannot read the spec", "processes and threads are capped",
                  "memory is capped" if not LAYERS["memory-cgroup"] else "cannot see",
                  "nothing one call writes"):
        assert words in reason, words


def test_strict_mode_accepts_this_host_when_the_guarantees_hold(submission):
    if guarantees.missing(LAYERS):
        pytest.skip("this host lacks " + ", ".join(g.name for g in guarantees.missing(LAYERS)))
    with Sandbox(submission, limits=FAST, strict=True) as strict:
        assert strict.load().ok
        assert strict.call("echo", [1]).value == (1,)


def test_worker_start_is_quick_enough_to_restart_per_failure(submission):
    started = time.monotonic()
    with Sandbox(submission, limits=FAST) as opened:
        assert opened.load().ok
    assert time.monotonic() - started < 5.0


GRADER_THAT_DIES = """
import sys
from grader.sandbox import Sandbox, SandboxLimits
box = Sandbox(sys.argv[1], limits=SandboxLimits(call_seconds=60, total_seconds=120))
box.load()
print(box.worker_pid, box.directory, flush=True)
box.call("sleep", [50])
"""


def descendants(root: int) -> set[int]:
    parents = {}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
        except OSError:
            continue
        if entry.isdigit():
            parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc to follow processes")
def test_no_process_outlives_a_grader_that_is_killed_mid_call(submission):
    grader = subprocess.Popen([sys.executable, "-c", GRADER_THAT_DIES, str(submission)],
                              stdout=subprocess.PIPE, cwd=Path(__file__).parents[2])
    try:
        worker_pid, directory = grader.stdout.readline().split()
        assert worker_pid.isdigit() and os.path.isdir(directory)
        time.sleep(0.3)  # the call is running now
        spawned = descendants(grader.pid)
        assert spawned, "the grader started no worker"
    finally:
        grader.kill()
        grader.wait()
    deadline = time.monotonic() + 5
    while (alive := [pid for pid in spawned if _running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive == []
    # What the dead grader could not clean up is removed by the next grader.
    remove_leftovers()
    assert not os.path.exists(directory)
    assert [path for path in sandbox_cgroups.stale_groups() if f"-{grader.pid}-" in path] == []


def test_what_a_probe_of_a_killed_grader_leaves_is_removed_by_the_next(tmp_path):
    script = ("import os, time; from grader.sandbox import layers; layers.start_probe(); "
              "print(os.getpid(), flush=True); time.sleep(60)")
    grader = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              cwd=Path(__file__).parents[2])
    try:
        pid = int(grader.stdout.readline())
        pattern = f"{sandbox_module.TEMP_PREFIX}{pid}-probe-*"
        assert list(Path(tempfile.gettempdir()).glob(pattern)), "the probe made no directory"
    finally:
        grader.kill()
        grader.wait()
    time.sleep(0.2)  # the probe child, orphaned, ends on its own
    remove_leftovers()
    assert list(Path(tempfile.gettempdir()).glob(pattern)) == []
    assert [path for path in sandbox_cgroups.stale_groups() if f"-{pid}-" in path] == []


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


PROBE_SCRIPT = """
import os, sys
from grader.sandbox import layers
layers.start_probe()
print(os.getpid())
if sys.argv[1] == "probe":
    early = layers.probe_layers()
    layers._working_steps.cache_clear()
    print(early == layers.probe_layers())
"""


def _probe_leftovers(tmp_path: Path, pid: int) -> list[str]:
    parents = {sandbox_cgroups._own_group_dir(name) for name in sandbox_cgroups.CONTROLLERS}
    groups = [os.path.join(parent, name) for parent in parents - {None}
              for name in os.listdir(parent)
              if name.startswith(f"{sandbox_cgroups.PREFIX}{pid}-")]
    return [str(path) for path in tmp_path.iterdir()] + groups


@pytest.mark.parametrize("then", ["probe", "exit"])
def test_a_probe_started_early_answers_like_one_started_late_and_leaves_nothing(tmp_path, then):
    done = subprocess.run([sys.executable, "-c", PROBE_SCRIPT, then], capture_output=True,
                          text=True, timeout=60, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    if then == "probe":
        assert lines[1] == "True", "the early probe found other layers"
    assert _probe_leftovers(tmp_path, int(lines[0])) == [], "the probe left files or cgroups"
