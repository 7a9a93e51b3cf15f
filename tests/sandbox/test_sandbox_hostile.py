"""Hostile submissions against the sandbox: one file per trick under tests/hostile/.

For each trick the test checks, at the sandbox level, what the grading engine relies on:
the call (or load) fails with the expected kind, or returns only plain values (``Opaque``
for anything else); the grader process is alive; no process of the run survives; and no
file appears outside the run's temporary directory. Every fixture bounds itself (time,
memory, processes, loopback only) so a failing sandbox cannot harm the machine.
"""

from __future__ import annotations

import os
import signal
import socket
import time
from pathlib import Path

import pytest

import reference
from grader.sandbox import landlock as sandbox_landlock
from grader.sandbox.api import CALL_KINDS, CallOutcome, Opaque, Sandbox, SandboxLimits, probe_layers
from grader.sandbox.wire import Unreadable

HOSTILE = Path(__file__).parents[1] / "hostile"
LIMITS = SandboxLimits(call_seconds=1.0, memory_mib=192, total_seconds=30.0,
                       max_answer_bytes=1 << 20, max_output_bytes=16 << 10, max_processes=32)
CORPUS = ["low lower lowest", "newer wider new newest"]
LAYERS = probe_layers()
files_confined = pytest.mark.skipif(not (LAYERS["mount-isolation"] or LAYERS["landlock"]),
                                    reason="neither mount isolation nor Landlock here")
SIGNALS_SCOPED = LAYERS["landlock"] and sandbox_landlock.abi() >= 6


# ---------------------------------------------------------------------------------------------
# helpers


def assert_plain(value: object) -> None:
    """Only exact plain types (or the Opaque and Unreadable markers) may exist on the trusted
    side."""
    kind = type(value)
    if value is None or kind in (bool, int, float, str, bytes, Opaque, Unreadable):
        return
    if kind in (list, tuple):
        for item in value:
            assert_plain(item)
        return
    if kind is dict:
        for key, item in value.items():
            assert type(key) in (str, int)
            assert_plain(item)
        return
    raise AssertionError(f"a {kind.__name__} reached the trusted side")


def process_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (process group, pid-namespace link, command line) for every visible process."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace")
            namespace = os.readlink(f"/proc/{entry}/ns/pid")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(entry)] = (int(fields[2]), namespace, cmdline)
    return table


class Footprint:
    """What a run could leave behind: its processes, and files in plausible places."""

    def __init__(self, box: Sandbox, host_root: Path) -> None:
        self.box = box
        self.host_root = host_root
        self.pgid: int | None = None
        self.namespaces: set[str] = set()
        self.directory: str | None = None
        self.watched = [Path.cwd() / "results.json", Path("/tmp/results.json"),
                        Path("/autograder/results/results.json")]
        self.before = {path: _stamp(path) for path in self.watched}

    def remember_worker(self) -> None:
        """Note the worker's process group and PID namespace while it runs."""
        pid = self.box.worker_pid
        self.directory = self.box.directory
        if pid is None:
            return
        self.pgid = pid
        for member, (group, namespace, _) in process_table().items():
            if group == pid and member != pid:
                self.namespaces.add(namespace)
        self.namespaces.discard(os.readlink("/proc/self/ns/pid"))

    def assert_clean(self, markers: tuple[str, ...] = ()) -> None:
        deadline = time.monotonic() + 2.0
        while True:
            left = [
                (pid, cmdline)
                for pid, (group, namespace, cmdline) in process_table().items()
                if group == self.pgid or namespace in self.namespaces
                or any(marker in cmdline for marker in markers)
            ]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert not left, f"processes of the run survived: {left}"
        if self.directory is not None:
            assert not os.path.exists(self.directory), "the run's temporary directory remains"
        for path in self.watched:
            assert _stamp(path) == self.before[path], f"{path} was written"
        assert list(self.host_root.iterdir()) == [], "files appeared under the test's root"


def _stamp(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def run(fixture: str, function: str = "train_bpe", args: list | None = None,
        host_root: Path | None = None, limits: SandboxLimits = LIMITS, markers=(),
        timeout: float | None = None, calls: int = 1):
    """Load a hostile fixture, call it, close the box; check the run left nothing behind."""
    with Sandbox(HOSTILE / fixture, limits=limits) as box:
        footprint = Footprint(box, host_root) if host_root else None
        loaded = box.load()
        if footprint:
            footprint.remember_worker()
        outcomes: list[CallOutcome] = []
        if loaded.ok:
            for _ in range(calls):
                outcomes.append(box.call(function, args if args is not None else [CORPUS, 5],
                                         timeout=timeout))
                if footprint and footprint.pgid is None:
                    footprint.remember_worker()
        output = box.output
    for outcome in outcomes:
        assert_plain(outcome.value)
        assert outcome.kind in CALL_KINDS and outcome.ok == (outcome.kind == "ok")
        assert outcome.seconds >= 0
    if footprint:
        footprint.assert_clean(markers)
    return loaded, outcomes, output


@pytest.fixture
def host_root(tmp_path: Path) -> Path:
    root = tmp_path / "host-root"
    root.mkdir()
    return root


# ---------------------------------------------------------------------------------------------
# answers that are not plain data


@pytest.mark.parametrize(
    ("fixture", "marker"),
    [
        ("lying_eq.py", Opaque("AlwaysEqual")),
        ("lying_len.py", Unreadable("LyingList", "list", "redefines", ("__eq__", "__len__"))),
        ("lying_iter.py", Unreadable("LyingTuple", "tuple", "redefines", ("__iter__",))),
        ("generator_answer.py", Opaque("generator")),
        ("endless_iterator.py", Opaque("repeat")),
    ],
)
def test_a_non_plain_or_lying_answer_arrives_as_a_marker(fixture, marker, host_root):
    _, [outcome], _ = run(fixture, host_root=host_root)
    assert outcome.kind == "ok"
    assert outcome.value == marker
    assert outcome.value != reference.train_bpe(CORPUS, 5)


def test_str_subclass_with_lying_eq_does_not_pass_as_str(host_root):
    _, [outcome], _ = run("lying_str.py", host_root=host_root)
    assert type(outcome.value) is list and len(outcome.value) == 5
    lying = Unreadable("LyingStr", "str", "redefines", ("__eq__",))
    assert all(pair == (lying, lying) for pair in outcome.value)
    assert outcome.value != reference.train_bpe(CORPUS, 5)


def test_pickled_payload_is_never_unpickled(host_root):
    marker = host_root / "unpickled"
    _, [as_bytes], _ = run("pickled_payload.py", args=[str(marker), 1])
    assert type(as_bytes.value) is bytes and as_bytes.value.startswith(b"\x80")  # plain data
    _, [as_object], _ = run("pickled_payload.py", function="encode", args=[str(marker), []],
                            host_root=host_root)
    assert as_object.value == Opaque("Payload")
    assert not marker.exists()


def test_monkeypatched_builtins_cannot_disguise_the_answer(host_root):
    loaded, [outcome], _ = run("monkeypatch_builtins.py", host_root=host_root)
    assert loaded.ok
    assert outcome.value == Unreadable("Liar", "list", "redefines", ("__eq__",))


# ---------------------------------------------------------------------------------------------
# exits, crashes, hangs, resources


@pytest.mark.parametrize("fixture", ["exit_at_import.py", "os_exit_at_import.py"])
def test_exit_while_importing_is_a_failed_load(fixture, host_root):
    loaded, outcomes, _ = run(fixture, host_root=host_root)
    assert not loaded.ok and outcomes == []
    assert loaded.error == "exited with status 0 while importing"


@pytest.mark.parametrize("fixture", ["exit_during_call.py", "os_exit_during_call.py"])
def test_exit_during_a_call_fails_that_call(fixture, host_root):
    _, [outcome], _ = run(fixture, host_root=host_root)
    assert (outcome.ok, outcome.kind) == (False, "exit")
    assert outcome.error == "exited with status 0 during the call"


def test_loop_ignoring_signals_times_out_and_the_next_call_gets_a_fresh_worker(host_root):
    started = time.monotonic()
    _, outcomes, _ = run("infinite_loop.py", host_root=host_root, timeout=0.5, calls=2)
    assert [o.kind for o in outcomes] == ["timeout", "timeout"]
    assert outcomes[0].error == "timed out after 0.5 s"
    assert time.monotonic() - started < 10


def test_hang_while_importing_times_out(host_root):
    loaded, _, _ = run("import_hang.py", host_root=host_root)
    assert not loaded.ok
    assert loaded.error == "timed out after 1.0 s while importing"


def test_deep_recursion_is_an_exception(host_root):
    _, [outcome], _ = run("deep_recursion.py", host_root=host_root)
    assert outcome.kind == "exception"
    assert outcome.error.startswith("raised RecursionError: maximum recursion depth exceeded")


def test_c_stack_overflow_is_a_crash(host_root):
    _, [outcome], _ = run("stack_overflow.py", host_root=host_root, timeout=15)
    assert (outcome.kind, outcome.error) == ("crash", "crashed with SIGSEGV")


def test_segfault_is_a_crash(host_root):
    _, [outcome], _ = run("segfault.py", host_root=host_root)
    assert (outcome.kind, outcome.error) == ("crash", "crashed with SIGSEGV")


def test_memory_bomb_runs_out_of_memory(host_root):
    _, [outcome], _ = run("memory_bomb.py", host_root=host_root, timeout=10)
    assert outcome.kind == "memory"
    assert outcome.error == "ran out of memory (limit 192 MiB)"


def test_fork_bomb_is_capped_and_leaves_nothing(host_root):
    _, [outcome], _ = run("fork_bomb.py", host_root=host_root, markers=("3.14159",), timeout=5)
    if LAYERS["pids-cgroup"]:
        assert outcome.kind == "ok" and outcome.value < LIMITS.max_processes
    else:
        assert outcome.kind in ("ok", "exception", "timeout")


def test_daemon_does_not_outlive_the_call(host_root):
    with Sandbox(HOSTILE / "daemon.py", limits=LIMITS) as box:
        footprint = Footprint(box, host_root)
        box.load()
        footprint.remember_worker()
        outcome = box.call("train_bpe", [CORPUS, 1])
        assert outcome.value == [("a", "b")]
        deadline = time.monotonic() + 2.0  # SIGKILL is sent before the reply; death follows
        while (during := [cmd for _, _, cmd in process_table().values() if "42.2718" in cmd]) \
                and time.monotonic() < deadline:
            time.sleep(0.02)
        if LAYERS["pid-namespace"] or LAYERS["pids-cgroup"]:
            assert during == [], "the daemon survived the call"
    footprint.assert_clean(markers=("42.2718",))


def test_killing_the_parent_leaves_the_grader_serving(host_root):
    with Sandbox(HOSTILE / "kill_parent.py", limits=LIMITS) as box:
        footprint = Footprint(box, host_root)
        box.load()
        footprint.remember_worker()
        outcome = box.call("train_bpe", [CORPUS, 1])
        if LAYERS["pid-namespace"] or SIGNALS_SCOPED:
            # The server is the namespace's init, immune to SIGKILL, or outside the call's
            # Landlock domain, which may not signal out of it.
            assert outcome.value == [("still", "here")]
        else:
            assert outcome.kind == "crash"
        assert box.call("ping", []).value == "pong"
    footprint.assert_clean()


# ---------------------------------------------------------------------------------------------
# the channel and the output


def test_output_flood_is_capped_and_the_answer_still_arrives(host_root):
    _, [outcome], output = run("output_flood.py", host_root=host_root, timeout=15)
    assert outcome.value == [("flood", "ed")]
    assert len(output.encode()) < LIMITS.max_output_bytes + 200
    assert "bytes of output omitted" in output
    assert output.startswith("flood") and output.rstrip().endswith("flood")


def test_fake_score_in_output_changes_nothing(host_root):
    _, [outcome], output = run("fake_score.py", host_root=host_root)
    assert '"score": 100.0' in output
    assert outcome.value == [("x", "y")]
    assert outcome.value != reference.train_bpe(CORPUS, 5)


def test_correct_solution_that_prints_megabytes_gets_the_right_answer(host_root):
    _, [outcome], output = run("correct_noisy.py", host_root=host_root, timeout=15)
    assert outcome.kind == "ok"
    assert outcome.value == reference.train_bpe(CORPUS, 5)
    assert "bytes of output omitted" in output


def test_forged_answer_frames_cannot_reach_the_grader(host_root):
    with Sandbox(HOSTILE / "fd_tampering.py", limits=LIMITS) as box:
        footprint = Footprint(box, host_root)
        box.load()
        footprint.remember_worker()
        first = box.call("train_bpe", [CORPUS, 1])
        # The answer pipe is the child's own: what it writes there is only ever its own answer.
        assert first.value in ([("honest", "answer")], [["forged", "answer"]])
        second = box.call("train_bpe", [CORPUS, 2])
        assert second.kind == first.kind and second.value == first.value
    footprint.assert_clean()


def test_replies_forged_at_import_reach_only_the_submissions_own_answer_pipe(host_root):
    # Import-time code runs in the load child and again in each call's child, where the only
    # pipe it can write is that child's own answer pipe: a forged frame is at most an answer
    # the submission could have given itself, and the envelope (request id, CPU time) is the
    # server's.
    loaded, outcomes, _ = run("fd_tampering_at_import.py", host_root=host_root, calls=2)
    assert loaded.ok and loaded.functions == ["train_bpe"]
    for outcome in outcomes:
        assert outcome.kind == "bad-answer" or outcome.value == [("honest", "answer")]
        assert outcome.error is None or "unexpected status 'loaded'" in outcome.error
    assert outcomes[0].kind == outcomes[1].kind


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("exception_str_raises.py", "raised Sneaky: (its message could not be shown)"),
        ("exception_huge.py", "raised ValueError: " + "x" * 500 + "..."),
    ],
)
def test_hostile_exceptions_are_reported_in_bounded_words(fixture, expected, host_root):
    _, [outcome], _ = run(fixture, host_root=host_root)
    assert outcome.kind == "exception"
    assert outcome.error.split(" (at line ")[0] == expected


# ---------------------------------------------------------------------------------------------
# submissions that do not load


@pytest.mark.parametrize(
    ("fixture", "error"),
    [
        ("syntax_error.py", "SyntaxError on line 1: '(' was never closed"),
        ("non_utf8.py", "not valid UTF-8 (byte 0xe9 on line 1); save the file as UTF-8"),
        ("empty.py", "the file is empty"),
    ],
)
def test_broken_files_fail_to_load_with_a_clear_reason(fixture, error, host_root):
    loaded, _, _ = run(fixture, host_root=host_root)
    assert (loaded.ok, loaded.error) == (False, error)


# ---------------------------------------------------------------------------------------------
# privilege and visibility


@files_confined  # without either the worker shares the host's file system
def test_results_forged_in_plausible_places_stay_inside_the_sandbox(host_root):
    _, [outcome], _ = run("forge_results.py", args=[str(host_root), 1], host_root=host_root)
    assert outcome.kind == "ok"
    assert not (host_root / "results.json").exists()
    assert not (host_root / "autograder").exists()


@files_confined
def test_reference_grader_and_specs_are_out_of_view(host_root):
    repository = Path(__file__).resolve().parents[2]
    specs = sorted((repository / "exercises").glob("*.yaml"))[:1]
    paths = [str(repository / "reference" / "plain.py"),
             str(repository / "grader" / "sandbox.py"),
             str(repository / "pyproject.toml"),
             *map(str, specs),
             "/etc/shadow"]
    _, [outcome], _ = run("spy_on_grader.py", args=[paths, 1], host_root=host_root)
    assert outcome.kind == "ok"
    assert outcome.value == dict.fromkeys(["reference", "grader", "grader.sandbox", *paths], False)


@pytest.mark.skipif(not (LAYERS["network-namespace"] or LAYERS["seccomp"]),
                    reason="neither a network namespace nor the socket filter here")
def test_no_network_even_to_loopback(host_root):
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        _, [outcome], _ = run("network.py", args=[port, 1], host_root=host_root)
    assert (outcome.kind, outcome.value) == ("ok", False)


@pytest.mark.skipif(not (LAYERS["uid-drop"] or LAYERS["pid-namespace"]),
                    reason="without uid drop or a PID namespace the worker may signal the grader")
def test_worker_cannot_signal_the_grader(host_root):
    received = []
    previous = signal.signal(signal.SIGUSR1, lambda *_: received.append(True))
    try:
        _, [outcome], _ = run("signal_grader.py", args=[os.getpid(), 1], host_root=host_root)
        time.sleep(0.1)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert (outcome.value, received) == (False, [])
