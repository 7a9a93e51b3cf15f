"""The only way student code runs: a sandboxed worker process behind a data-only pipe.

    with Sandbox("student.py", limits=SandboxLimits(call_seconds=2.0)) as box:
        loaded = box.load()                        # LoadOutcome
        outcome = box.call("train_bpe", [corpus, 5])  # CallOutcome

The worker (``worker.py``, standard library only) is a pristine fork server: it compiles the
submission once and never executes it; every call runs in a fresh child that executes the
module and then the one function in an empty private directory, and is gone, with all it
started and wrote, before the next call begins. Requests and answers are length-prefixed
JSON frames on two dedicated pipes; student stdout/stderr go to a third pipe that is
drained, capped and never parsed. Every answer is validated by exact shape
(:mod:`grader.sandbox.wire`, :mod:`grader.sandbox.replies`) before it becomes a plain value
here. The trusted side enforces wall-clock timeouts and the overall budget by killing the
worker's whole process group, PID namespace and cgroups, and starts a fresh worker for the
next call. Isolation layers come from :mod:`grader.sandbox.layers`; what they guarantee, and
so what ``strict`` demands, from :mod:`grader.sandbox.guarantees`.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from grader.sandbox import cgroups as sandbox_cgroups
from grader.sandbox import chroot_root, guarantees, wire, worker_code
from grader.sandbox import imports as sandbox_imports
from grader.sandbox import layers as sandbox_layers
from grader.sandbox import uids as sandbox_uids
from grader.sandbox.layers import (
    IsolationPlan,
    ResourceCaps,
    layers_notice,
    probe_layers,
)
from grader.sandbox.leftovers import TEMP_PREFIX, remove_leftovers, remove_leftovers_once
from grader.sandbox.limits import SandboxError, SandboxLimits, SandboxUnavailable
from grader.sandbox.memory_watch import MemoryWatch
from grader.sandbox.process import (
    OutputCapture,
    Overdue,
    OverMemory,
    Oversized,
    WorkerGone,
    WorkerProcess,
    read_all,
    roomy_pipe,
)
from grader.sandbox.replies import (
    CALL_KINDS,
    ENVELOPE_BYTES,
    CallOutcome,
    LoadOutcome,
)
from grader.sandbox.replies import (
    MAX_BATCH, AnswerReading, answer_outcome, batch_outcome, death, load_outcome)
from grader.sandbox.replies import clip as _clip
from grader.sandbox.replies import envelope as _envelope
from grader.sandbox.replies import failed as _failed
from grader.sandbox.replies import seconds_text as _seconds
from grader.sandbox.replies import timed_out as _timeout
from grader.sandbox.replies import to_json as _json
from grader.sandbox.replies import with_cpu as _with_cpu
from grader.sandbox.served import Served, ServedEnded, check_call, served_modules
from grader.sandbox.streams import Feed
from grader.sandbox.tree_removal import TreeNotRemoved, remove_tree
from grader.sandbox.wire import Opaque, WireError

__all__ = [
    "CALL_KINDS", "CallOutcome", "LoadOutcome", "Opaque", "Sandbox",
    "SandboxError", "SandboxLimits", "SandboxUnavailable", "layers_notice", "probe_layers",
    "remove_leftovers",
]

WORKER_SCRIPT = Path(__file__).with_name("worker.py")
# The worker stops an overdue call itself and says so; the grader kills the whole worker only
# when no reply has come this long after the call's limit.
GRACE_SECONDS = 0.5
BUDGET_MARGIN_SECONDS = 1.0  # at most this beyond total_seconds: the grace and a worker stopped
INSIDE_WORKER = "/sandbox/worker.py"  # paths inside the private root (mount isolation)
INSIDE_HOME = "/home/student"
INSIDE_SCRATCH = "/tmp"  # a tmpfs of its own, the only writable place in the private root


# ---------------------------------------------------------------------------------------------
# the sandbox


class Sandbox:
    """Runs one submission's functions in an isolated worker; see the module docstring."""

    def __init__(self, submission: str | os.PathLike, limits: SandboxLimits | None = None,
                 strict: bool = False, allowed_imports: Sequence[str] = (),
                 where: Callable[[int], str] | None = None,
                 parts: Sequence[tuple[int, int]] | None = None,
                 serves: Mapping[str, Sequence[str]] | None = None) -> None:
        if os.name != "posix":
            raise SandboxUnavailable("the sandbox needs a POSIX host (Linux or macOS); "
                                     "on Windows, grade inside WSL")
        self.submission = Path(submission)
        if not self.submission.is_file():
            raise SandboxError(f"submission not found: {self.submission} (expected a .py file)")
        self.limits = limits or SandboxLimits()
        try:  # the exercise's allowed third-party modules, copied beside the worker
            self._imports = tuple(sandbox_imports.module_files(allowed_imports))
        except sandbox_imports.ImportNotInstalled as error:
            raise SandboxError(str(error)) from None
        if not isinstance(self.limits, SandboxLimits):
            raise SandboxError("limits must be a SandboxLimits")
        self.layers = dict(probe_layers())
        remove_leftovers_once()
        missing = guarantees.missing(self.layers)
        if strict and missing:
            raise SandboxUnavailable(guarantees.refusal(missing))
        self.interpreter = sandbox_layers.choose_interpreter(self.layers)
        self.file_name = _safe_file_name(self.submission.name)
        # How a line of the submission is named in messages (a notebook's cell and line).
        self.where = where or (lambda line: f"line {line}")
        self._named_lines = where
        # Line ranges run in turn, one that raises not stopping the next (a notebook's cells)
        self.parts = [list(part) for part in parts] if parts is not None else None
        # Modules of served functions the submission imports (grader.sandbox.served)
        self.serves = served_modules(serves)
        self._output = OutputCapture(self.limits.max_output_bytes)
        self._worker: WorkerProcess | None = None
        self._load: LoadOutcome | None = None
        self._temp: str | None = None
        self._tree: str | None = None  # the chroot-root tree the temporary directory is in
        self._spent = 0.0
        self.deadline: float | None = None  # time.monotonic() past which no call runs
        self._process_rlimit = 0
        self._uid: sandbox_uids.UidLease | None = None

    # context management ----------------------------------------------------------------------

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every process of the run and remove the temporary directory."""
        self._stop_worker()
        try:
            if self._temp is not None:
                temp, self._temp = self._temp, None
                _remove_or_stop(temp)
            if self._tree is not None and self._uid is not None and self._uid.own:
                _remove_or_stop(self._tree, self._uid.uid)
        finally:
            if self._uid is not None:
                self._uid.release()
                self._uid = None

    @property
    def output(self) -> str:
        """Captured student stdout and stderr: the first and last KiB, with a marker between."""
        if self._worker is not None:
            self._worker.drain_output()
        return self._output.text

    @property
    def worker_pid(self) -> int | None:
        """Process id of the running worker (its process group id too), if one is running."""
        return self._worker.proc.pid if self._worker is not None else None

    @property
    def directory(self) -> str | None:
        """The run's temporary directory on the host, while the sandbox is open."""
        return self._temp

    @property
    def seconds_left(self) -> float:
        left = self.limits.total_seconds - self._spent
        if self.deadline is not None:
            left = min(left, self.deadline - time.monotonic())
        return max(0.0, left)

    # loading -----------------------------------------------------------------------------------

    def load(self) -> LoadOutcome:
        """Import the submission in a worker (once); later calls reuse the outcome."""
        if self._load is None:
            self._load = self._start_and_load()
        return self._load

    def _start_and_load(self) -> LoadOutcome:
        timeout = min(self.limits.call_seconds, self.seconds_left)
        if timeout <= 0:
            return LoadOutcome(False, self._out_of_time())
        started = time.monotonic()
        try:
            worker = self._start_worker()
            request = {"op": "load", "id": self._next_id(),
                       "memory_bytes": self.limits.memory_mib << 20, "timeout": timeout,
                       "nproc": self._process_rlimit,
                       "landlock": bool(self.layers.get("landlock")), "parts": self.parts,
                       "serves": self.serves}
            raw = worker.exchange(_json(request), started + timeout + GRACE_SECONDS,
                                  ENVELOPE_BYTES)
            outcome = load_outcome(_envelope(raw, request["id"]), len(self.parts or ()),
                                   self.where, self._named_lines, self.limits.memory_mib)
        except (Overdue, TimeoutError):
            outcome = LoadOutcome(False, f"timed out after {_seconds(timeout)} s while importing")
        except OverMemory:
            outcome = LoadOutcome(False, f"{self._memory_text()} while importing")
        except WorkerGone:
            outcome = LoadOutcome(False, self._death(during_call=False)[1])
        except (Oversized, WireError) as error:
            outcome = LoadOutcome(False, f"the worker sent a malformed reply while importing "
                                         f"({_clip(str(error))})")
        finally:
            self._spent += time.monotonic() - started
        if not outcome.ok:
            self._stop_worker()
        return outcome

    # calling -----------------------------------------------------------------------------------

    def call(self, function: str, args: list | tuple = (), timeout: float | None = None,
             *, echo_args: bool = False, measure_cpu: bool = True,
             feed: Feed | None = None, served: Served | None = None) -> CallOutcome:
        """Run ``function(*args)`` in a fresh child of the worker and return its outcome.

        ``echo_args``: an ``ok`` outcome also carries the arguments as the function left them
        (``args_after``, to tell a modified one). ``measure_cpu=False``: no ``cpu_seconds``, so
        without a cgroup the answer need not wait for the call's processes to be reaped.
        ``feed``: a streamed call (:mod:`grader.sandbox.streams`): the argument at its position
        is its items, handed over as asked for; ``stream`` of the outcome says what was read
        and yielded; its value is only the result's type. ``served``: the trusted functions
        this call's proxies are answered by (:mod:`grader.sandbox.served`; ``served.log()``
        after the call)."""
        if type(function) is not str or not function.isidentifier():
            raise SandboxError(f"function name must be an identifier, got {function!r}")
        if timeout is not None and (isinstance(timeout, bool) or not timeout > 0):
            raise SandboxError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if feed is not None and not feed.position < len(args):
            raise SandboxError(f"the stream's position {feed.position} is not an argument")
        check_call(served, self.serves, feed is not None)
        try:
            tagged_args = [wire.to_tagged(arg) for arg in args]
        except WireError as error:
            raise SandboxError(f"cannot send the arguments of {function}: {error}") from None
        loaded = self.load()
        if not loaded.ok:
            return _failed("missing", f"{function} cannot run: the submission did not load "
                                      f"({loaded.error})")
        if self._worker is not None and self._worker.proc.poll() is not None:
            self._stop_worker()  # died between calls (killed from outside, out of memory...)
        if self._worker is None:
            restarted = self._start_and_load()
            if not restarted.ok:
                return _failed("crash", f"a fresh worker could not re-import the submission "
                                        f"({restarted.error})")
        limit = timeout if timeout is not None else self.limits.call_seconds
        if self.seconds_left <= 0:
            return _failed("budget", self._out_of_time())
        outcome = self._call(function, tagged_args, limit, echo_args, measure_cpu, feed=feed,
                             served=served, sent=list(args))
        if outcome.kind == "not-cleared":  # cleared on the restart, or a SandboxUnavailable
            if not self._start_and_load().ok:
                return _failed("crash", "a fresh worker could not re-import the submission")
            outcome = self._call(function, tagged_args, limit, echo_args, measure_cpu,
                                 feed=feed, served=served, sent=list(args))
        if outcome.kind == "not-cleared":
            raise SandboxUnavailable(f"{outcome.error}, so the submission is not graded")
        return outcome

    def call_many(self, function: str, arg_lists: list, *, echo_args: bool = False) -> list[CallOutcome]:
        """``function`` on each of ``arg_lists`` in one fresh child, one after the other, within
        one call's time limit: the outcome of each input, up to and including the first one
        that neither returned nor raised (an exception is an answer like a value; a
        ``SystemExit``, running out of memory or an answer that cannot be sent stop the
        batch). Fewer outcomes than inputs (none at all when the child ran out of time, crashed
        or did not load) leave the rest to be called one by one."""
        if type(function) is not str or not function.isidentifier():
            raise SandboxError(f"function name must be an identifier, got {function!r}")
        arg_lists = list(arg_lists)[:MAX_BATCH]
        try:
            tagged = [[wire.to_tagged(arg) for arg in args] for args in arg_lists]
        except WireError as error:
            raise SandboxError(f"cannot send the arguments of {function}: {error}") from None
        if not arg_lists or not self.load().ok or self.seconds_left <= 0:
            return []
        if self._worker is not None and self._worker.proc.poll() is not None:
            self._stop_worker()
        if self._worker is None and not self._start_and_load().ok:
            return []
        outcome = self._call(function, tagged, self.limits.call_seconds, echo_args, False,
                             batch=True, sent=arg_lists)
        return list(outcome.value) if outcome.kind == "batch" else []

    def _call(self, function: str, tagged_args: list, limit: float, echo_args: bool,
              measure_cpu: bool, *, batch: bool = False, feed: Feed | None = None,
              served: Served | None = None, sent: list | None = None) -> CallOutcome:
        budget_bound = self.seconds_left < limit
        allowed = min(limit, self.seconds_left)
        worker = self._worker
        assert worker is not None
        # The arguments travel in a frame of their own, read by the call's child directly.
        request = {"op": "call", "id": self._next_id(), "function": function,
                   "timeout": allowed, "max_bytes": self.limits.max_answer_bytes,
                   "max_items": 2_000_000, "echo_args": echo_args, "batch": batch,
                   "early_reply": worker.groups.cpuacct is not None or not measure_cpu}
        if feed is not None:
            request["stream"] = feed.request_field()
        if served is not None:
            request["served"] = True
        cpu_before = worker.groups.cpu_seconds() if measure_cpu else None
        oom_before = worker.groups.oom_kills()
        started = time.monotonic()
        if served is not None:
            served.start(started + allowed, limit)
        try:
            raw = worker.exchange([_json(request), _json(tagged_args)],
                                  started + allowed + GRACE_SECONDS,
                                  self.limits.max_answer_bytes + ENVELOPE_BYTES, feed or served)
            seconds = time.monotonic() - started
            outcome = self._call_outcome(raw, request["id"], function, limit, seconds, batch,
                                         sent)
        except Overdue:
            seconds = time.monotonic() - started
            self._stop_worker()
            outcome = _timeout(limit, seconds, budget_bound, self._out_of_time())
        except ServedEnded as ended:  # a served-function limit, or a malformed request
            seconds = time.monotonic() - started
            self._stop_worker()
            outcome = _failed(ended.kind, str(ended), seconds)
        except OverMemory:  # the watch of a call without a memory cgroup
            seconds = time.monotonic() - started
            self._stop_worker()
            outcome = _failed("memory", self._memory_text(), seconds)
        except WorkerGone:
            seconds = time.monotonic() - started
            kind, reason = self._death(during_call=True)
            self._stop_worker()
            outcome = _failed(kind, reason, seconds)
        except (Oversized, WireError) as error:
            seconds = time.monotonic() - started
            self._stop_worker()
            outcome = _failed("bad-answer", "returned an answer the grader cannot accept: "
                                            + _clip(str(error) or "it is over the size limit"),
                              seconds)
        self._spent += time.monotonic() - started  # stopping a worker is the call's time too
        if outcome.kind == "timeout" and budget_bound:
            outcome = _failed("budget", self._out_of_time(), seconds)
        if outcome.kind not in ("timeout", "budget") and worker.groups.oom_kills() > oom_before:
            # The kernel killed a process of the call over the cap: the call ran out of memory,
            # also when the process killed was one it started and the call itself answered.
            outcome = _failed("memory", self._memory_text(), seconds)
        if self._worker is not None and not self.layers.get("pid-namespace"):
            self._worker.sweep_strays()
        cpu_after = worker.groups.cpu_seconds() if measure_cpu else None
        if cpu_before is not None and cpu_after is not None:
            outcome = _with_cpu(outcome, cpu_after - cpu_before)
        return outcome if feed is None else replace(outcome, stream=feed.trace())

    def _call_outcome(self, raw: bytes, request_id: int, function: str, limit: float,
                      seconds: float, batch: bool = False, sent: list | None = None) -> CallOutcome:
        reply = _envelope(raw, request_id, self.limits.max_answer_bytes + ENVELOPE_BYTES)
        cpu = reply.get("cpu")  # the server's wait4 figure, never the call's own report
        if cpu is not None and (type(cpu) not in (int, float) or not 0 <= cpu < 1e9):
            raise WireError("cpu is not a non-negative number")
        answer = reply.get("answer", reply)
        reading = AnswerReading(function, limit, self.limits.max_answer_bytes, self.file_name,
                                self.where, self._memory_text, sent)
        cpu_seconds = float(cpu) if cpu is not None else None
        if batch and type(answer) is dict and answer.get("status") == "batch":
            return batch_outcome(answer, reading, seconds, cpu_seconds)
        return answer_outcome(answer, reading, seconds, cpu_seconds)

    def _out_of_time(self) -> str:
        if self.limits.total_seconds - self._spent > 0:  # the grading's deadline came first
            return "the grading reached its time limit"
        return "the submission's time budget ran out"

    def _memory_cap_bytes(self) -> int:
        return (self.limits.memory_mib + 128) << 20  # the server and the call's tmpfs as well

    def _memory_text(self) -> str:
        return f"ran out of memory (limit {self.limits.memory_mib} MiB)"

    # worker lifecycle --------------------------------------------------------------------------

    def _next_id(self) -> int:
        # Unpredictable, so a frame forged by import-time code cannot pass for a later reply.
        return int.from_bytes(os.urandom(8), "big") >> 2  # os.urandom: secrets costs an import

    @property
    def uid(self) -> int:
        """The uid student code runs as (when root): this sandbox's own while it is open."""
        if self._uid is None:
            self._uid = sandbox_uids.lease()
        return self._uid.uid

    def _prepare_temp(self) -> str:
        if self._temp is None:
            self._temp = self._chroot_directory() or tempfile.mkdtemp(
                prefix=f"{TEMP_PREFIX}{os.getpid()}-")
            uid = self.uid if self._tree is not None else None
            if uid is not None and self._uid.own:  # what a killed earlier holder left there
                _remove_or_stop(self._tree, uid)
            home = os.path.join(self._temp, "home")
            os.mkdir(home)
            shutil.copyfile(self.submission, os.path.join(home, self.file_name))
            worker_code.place(WORKER_SCRIPT, self.interpreter,
                              os.path.join(self._temp, "worker.py"), INSIDE_WORKER)
            os.mkdir(os.path.join(self._temp, "root"))
            sandbox_imports.copy_files(self._imports, self._temp)
            if self.layers.get("uid-drop"):
                # The worker's uid may read the submission and write only its scratch directory.
                os.chmod(self._temp, 0o755)
                os.chmod(home, 0o755)
                os.chmod(os.path.join(home, self.file_name), 0o644)
        self._fresh_scratch(self._temp)
        return self._temp

    def _chroot_directory(self) -> str | None:
        """This sandbox's directory in the chroot-root tree, when that layer is in use."""
        if not self.layers.get("chroot-root") or self.layers.get("mount-isolation"):
            return None
        placed = chroot_root.open_directory(self.interpreter, self._imports)
        self.layers["chroot-root"] = placed is not None  # the report says it was not used
        self._tree, directory = placed or (None, None)
        return directory

    def _fresh_scratch(self, temp: str) -> None:
        """An empty scratch directory for each worker: one that died mid-call (killed by the
        call itself, say) could not empty it, and the next worker must not see its files."""
        scratch = os.path.join(temp, "scratch")
        _remove_or_stop(scratch)
        os.mkdir(scratch, 0o700)
        if self.layers.get("uid-drop"):
            os.chown(scratch, self.uid, self.uid)

    def _start_worker(self) -> WorkerProcess:
        temp = self._prepare_temp()
        groups = self._create_cgroups()
        self._process_rlimit = 0
        if self.layers.get("process-rlimit") and not self.layers.get("pids-cgroup"):
            # RLIMIT_NPROC counts every task of the uid: allow the cap above what runs now.
            self._process_rlimit = (sandbox_layers.tasks_of_uid(self.uid)
                                    + self.limits.max_processes + 2)
        plan = self._plan(temp, groups)
        mounted = self.layers.get("mount-isolation")
        seen = (lambda path: chroot_root.inside(self._tree, path)) if self._tree else str
        worker_path = INSIDE_WORKER if mounted else seen(os.path.join(temp, "worker.py"))
        home = INSIDE_HOME if mounted else seen(os.path.join(temp, "home"))
        argv = [self._exec_path(), "-I", "-S", "-B", worker_path]
        request_r, request_w = roomy_pipe()
        reply_r, reply_w = roomy_pipe()
        output_r, output_w = os.pipe()
        error_r, error_w = os.pipe()
        feed_r, feed_w = roomy_pipe()  # a streamed call's items, straight to its child
        trace_r, trace_w = roomy_pipe()  # and its requests and yielded items, back here
        scratch = INSIDE_SCRATCH if mounted else seen(os.path.join(temp, "scratch"))
        argv += [str(request_r), str(reply_w), self.file_name, scratch,
                 f"--stream={feed_r},{trace_w}"]
        if mounted:
            argv.append("--private-shm")  # the private root has a /dev/shm of its own
        elif self._tree:
            argv.append("--shared-shm")  # the tree's, kept apart by each sandbox's uid
        if self.layers.get("uid-drop") and self._uid is not None and self._uid.own:
            argv.append("--own-uid")  # every other process of this uid is the call's
        if any(self.layers.get(name) for name in ("uid-drop", "landlock", "mount-isolation")):
            argv.append("--preload-allowed")  # no call can rewrite the allowed modules' files
        if self.layers.get("pid-namespace"):
            argv.append("--init")
        elif sys.platform.startswith("linux"):
            argv.append("--subreaper")
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=output_w,
                stderr=output_w,
                pass_fds=(request_r, reply_w, feed_r, trace_w),
                cwd=os.path.join(temp, "home"),
                env=_scrubbed_environment(home),
                start_new_session=True,
                preexec_fn=lambda: sandbox_layers.enter_isolation(plan, error_w),
            )
        except (OSError, subprocess.SubprocessError) as error:
            os.close(error_w)
            detail = read_all(error_r) or str(error)
            for fd in (request_r, request_w, reply_r, reply_w, output_r, output_w, feed_r, feed_w,
                       trace_r, trace_w):
                os.close(fd)
            groups.remove()
            raise SandboxUnavailable(f"could not start the sandbox worker: {detail}") from None
        for fd in (request_r, reply_w, output_w, error_w, error_r, trace_w):
            os.close(fd)
        self._worker = WorkerProcess(proc, request_w, reply_r, output_r, groups, self._output,
                                     namespace_init=bool(self.layers.get("pid-namespace")),
                                     stream_fds=(feed_r, feed_w, trace_r))
        if groups.memory is None and self._uid is not None and self._uid.own:
            # No cgroup sums the call's memory: the uid, the call's alone, is watched instead.
            self._worker.memory_watch = MemoryWatch(self._uid.uid, self._memory_cap_bytes())
        return self._worker

    def _create_cgroups(self) -> sandbox_cgroups.CgroupSet:
        if not (self.layers.get("pids-cgroup") or self.layers.get("memory-cgroup")):
            return sandbox_cgroups.CgroupSet()
        groups = sandbox_cgroups.CgroupSet.create(
            pids_max=self.limits.max_processes,
            memory_bytes=self._memory_cap_bytes(),
        )
        # Report only what was really set up for this worker.
        self.layers["pids-cgroup"] = self.layers["pids-cgroup"] and groups.pids is not None
        self.layers["memory-cgroup"] = self.layers["memory-cgroup"] and groups.memory is not None
        if not self.layers["pids-cgroup"]:
            groups.pids = None
        if not self.layers["memory-cgroup"]:
            groups.memory = None
        return groups

    def _plan(self, temp: str, groups: sandbox_cgroups.CgroupSet) -> IsolationPlan:
        caps = ResourceCaps(
            file_bytes=self.limits.max_file_bytes,
            open_files=self.limits.max_open_files,
            cpu_seconds=int(self.limits.total_seconds) + 10,
        )
        return IsolationPlan(
            layers=self.layers,
            caps=caps,
            new_root=os.path.join(temp, "root"),
            root_binds=sandbox_layers.interpreter_binds(self.interpreter),
            copies=(
                (os.path.join(temp, "worker.py"), INSIDE_WORKER, False),
                (os.path.join(temp, "home", self.file_name),
                 f"{INSIDE_HOME}/{self.file_name}", False),
                *sandbox_imports.root_copies(self._imports, temp, os.path.dirname(INSIDE_WORKER)),
            ),
            workdir=chroot_root.inside(self._tree, os.path.join(temp, "home"))
            if self._tree else INSIDE_HOME,
            chroot=self._tree,
            cgroup_procs=groups.procs_files(),
            uid=self.uid if self.layers.get("uid-drop") else os.getuid(),
        )

    def _exec_path(self) -> str:
        if self.layers.get("mount-isolation") or self._tree:
            return os.path.realpath(self.interpreter)
        return self.interpreter

    def _death(self, during_call: bool) -> tuple[str, str]:
        """The kind and wording of the worker's death, from its exit status."""
        worker = self._worker
        return death(worker.exit_status() if worker is not None else None, during_call)

    def _stop_worker(self) -> None:
        if self._worker is not None:
            self._worker.kill()
            self._worker = None
            if self._uid is not None:  # what left the worker's reach (its server killed)
                sandbox_uids.kill_processes_of(self._uid)


# ---------------------------------------------------------------------------------------------
# helpers


def _remove_or_stop(path: str, uid: int | None = None) -> None:
    """Remove ``path`` (or, with ``uid``, what that uid left in the chroot-root tree ``path``'s
    shared memory); where that fails, stop grading this submission: what is left could reach
    a later call."""
    try:
        remove_tree(path) if uid is None else chroot_root.remove_shared_memory_of(path, uid)
    except TreeNotRemoved as error:
        raise SandboxUnavailable(f"could not remove what the submission left in the sandbox, "
                                 f"so it is not graded: {error}") from None


def _scrubbed_environment(home: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": home,
            "TMPDIR": "/tmp"}


def _safe_file_name(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}\.py", name) else "student.py"
