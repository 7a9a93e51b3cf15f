"""The trusted side's handle on one running sandbox worker: its process, the three pipes
(requests, replies, student output), framed exchanges under a deadline, the output cap, and
killing every process of the worker.

The grader never blocks on the worker: requests are written and replies read through one
selector loop that also drains student output, so a worker that stops reading or floods its
output cannot stall the grader past the deadline.
"""

from __future__ import annotations

import fcntl
import os
import selectors
import signal
import struct
import subprocess
import time
from collections.abc import Callable

from grader.sandbox import cgroups as sandbox_cgroups
from grader.sandbox import wire
from grader.sandbox.served import Served
from grader.sandbox.streams import Feed

HEADER = struct.Struct(">I")
WATCH_SECONDS = 0.05  # how often a memory watch is asked while waiting


class OutputCapture:
    """Keeps the first and last half of ``limit`` bytes of a stream, and counts the rest."""

    def __init__(self, limit: int) -> None:
        self.half = max(1, limit // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.half:
                del self.tail[: len(self.tail) - self.half]

    @property
    def text(self) -> str:
        omitted = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if omitted <= 0:
            return head + tail
        return f"{head}\n[... {omitted} bytes of output omitted ...]\n{tail}"


class WorkerGone(Exception):
    """The worker closed its reply pipe (it exited or was killed)."""


class Overdue(Exception):
    """The deadline passed before the worker answered."""


class Oversized(Exception):
    """The worker announced a frame over the bound."""


class OverMemory(Exception):
    """The memory watch saw the call's processes pass the memory cap."""


class WorkerProcess:
    """A running worker: its process, pipes and cgroups."""

    def __init__(self, proc: subprocess.Popen, request_fd: int, reply_fd: int, output_fd: int,
                 groups: sandbox_cgroups.CgroupSet, output: OutputCapture,
                 namespace_init: bool, stream_fds: tuple[int, int, int] | None = None) -> None:
        self.proc = proc
        self.namespace_init = namespace_init  # its child is process 1 of a PID namespace
        self.request_fd = request_fd
        self.reply_fd = reply_fd
        self.output_fd: int | None = output_fd
        self.groups = groups
        self.output = output
        self.memory_watch: Callable[[], bool] | None = None  # True: the call is over its memory
        self.selector = selectors.DefaultSelector()
        self.selector.register(reply_fd, selectors.EVENT_READ, "reply")
        self.selector.register(output_fd, selectors.EVENT_READ, "output")
        # A streamed call's pipes: the read end of its feed (kept to empty it between calls),
        # the write end of the feed, the read end of its trace.
        self.stream_fds = stream_fds or ()
        self._feed: Feed | Served | None = None
        self._feeding = memoryview(b"")
        for fd in (request_fd, reply_fd, output_fd, *self.stream_fds):
            os.set_blocking(fd, False)

    def exchange(self, request: bytes | list[bytes], deadline: float, max_reply: int,
                 feed: Feed | Served | None = None) -> bytes:
        """Send one frame (or several in a row) and wait for one reply frame, draining student
        output meanwhile; with ``feed``, serve a streamed call's requests for items (or a
        served call's requests to its functions) too."""
        frames = [request] if isinstance(request, bytes) else request
        pending = memoryview(b"".join(HEADER.pack(len(frame)) + frame for frame in frames))
        if self.memory_watch is not None:
            self.memory_watch.restart()
        self.selector.register(self.request_fd, selectors.EVENT_WRITE, "request")
        self._feed, self._feeding = feed, memoryview(b"")
        if feed is not None:
            for fd in (self.stream_fds[0], self.stream_fds[2]):  # what an earlier call left
                while _read_nonblocking(fd, 1 << 20):
                    pass
            self.selector.register(self.stream_fds[2], selectors.EVENT_READ, "trace")
        try:
            reply = self._pump(pending, deadline, max_reply)
            if feed is not None:  # the trace was written before the answer: all of it is here
                while chunk := _read_nonblocking(self.stream_fds[2], 1 << 20):
                    self._take_trace(chunk, max_reply)
            return reply
        finally:
            for fd in (self.request_fd, *self.stream_fds[1:]):
                if fd in self.selector.get_map():
                    self.selector.unregister(fd)
            self._feed = None

    def _take_trace(self, chunk: bytes, max_reply: int) -> None:
        answers = self._feed.received(chunk, wire.WireBounds(max_bytes=max_reply))
        if answers:
            if not self._feeding:
                self.selector.register(self.stream_fds[1], selectors.EVENT_WRITE, "feed")
            self._feeding = memoryview(bytes(self._feeding) + answers)

    def _pump(self, pending: memoryview, deadline: float, max_reply: int) -> bytes:
        buffer = bytearray()
        needed: int | None = None
        while True:
            if needed is not None and len(buffer) >= needed:
                return bytes(buffer[HEADER.size:needed])
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Overdue()
            if self.memory_watch is not None:
                if self.memory_watch():
                    raise OverMemory()
                remaining = min(remaining, WATCH_SECONDS)
            for key, _ in self.selector.select(remaining):
                if key.data == "output":
                    self._read_output()
                elif key.data == "request":
                    pending = self._write_some(pending)
                elif key.data == "trace":
                    chunk = _read_nonblocking(self.stream_fds[2], 1 << 20)
                    if chunk:
                        self._take_trace(chunk, max_reply)
                elif key.data == "feed":
                    self._feeding = self._write_some(self._feeding, self.stream_fds[1])
                else:
                    chunk = _read_nonblocking(self.reply_fd, 1 << 20)
                    if chunk == b"":
                        raise WorkerGone()
                    buffer += chunk or b""
            if needed is None and len(buffer) >= HEADER.size:
                (size,) = HEADER.unpack(bytes(buffer[: HEADER.size]))
                if size > max_reply:
                    raise Oversized()
                needed = HEADER.size + size

    def _write_some(self, pending: memoryview, fd: int | None = None) -> memoryview:
        fd = self.request_fd if fd is None else fd
        try:
            written = os.write(fd, pending)
        except BlockingIOError:
            return pending
        except (BrokenPipeError, OSError):
            raise WorkerGone() from None
        rest = pending[written:]
        if not rest:
            self.selector.unregister(fd)
        return rest

    def _read_output(self) -> bool:
        """Read one chunk of student output; False when there was none waiting."""
        if self.output_fd is None:
            return False
        chunk = _read_nonblocking(self.output_fd, 1 << 16)
        if chunk == b"":
            self.selector.unregister(self.output_fd)
            os.close(self.output_fd)
            self.output_fd = None
            return False
        if chunk is None:
            return False
        self.output.feed(chunk)
        return True

    def drain_output(self, rounds: int = 256) -> None:
        """Read the output already waiting in the pipe, without blocking."""
        for _ in range(rounds):
            if not self._read_output():
                return

    def exit_status(self, wait_seconds: float = 0.5) -> int | None:
        try:
            return self.proc.wait(timeout=wait_seconds)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Kill every process of this worker and release its pipes and cgroups."""
        pid = self.proc.pid
        # Kill the server's children (in a PID namespace: its process 1, which takes the whole
        # namespace with it) before the worker process itself, so that it reaps them and no
        # orphaned zombie is left for the host's init to collect.
        if self.namespace_init:
            for child in _children_of(pid):
                _kill_quietly(child)
            try:
                self.proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        self.groups.kill_all()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.drain_output()
        self.selector.close()
        for fd in (self.request_fd, self.reply_fd, self.output_fd, *self.stream_fds):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.output_fd = None
        self.groups.remove()

    def sweep_strays(self) -> None:
        """Outside a PID namespace: kill cgroup members other than the server itself."""
        if not self.groups.pids:
            return
        for pid in self.groups.members() - {self.proc.pid}:
            _kill_quietly(pid)


def _read_nonblocking(fd: int, size: int) -> bytes | None:
    try:
        return os.read(fd, size)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def _children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(part) for part in handle.read().split()]
    except (OSError, ValueError):
        return []


def roomy_pipe() -> tuple[int, int]:
    """A pipe with a 1 MiB buffer where Linux allows it: a large corpus then crosses in a few
    writes instead of sixteen 64 KiB round trips."""
    read_fd, write_fd = os.pipe()
    if hasattr(fcntl, "F_SETPIPE_SZ"):  # Linux only
        try:
            fcntl.fcntl(write_fd, fcntl.F_SETPIPE_SZ, 1 << 20)
        except OSError:
            pass
    return read_fd, write_fd


def read_all(fd: int) -> str:
    data = b""
    try:
        while chunk := os.read(fd, 4096):
            data += chunk
    finally:
        os.close(fd)
    return data.decode("utf-8", "replace")
