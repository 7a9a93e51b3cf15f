"""The worker's replies as the trusted side reads them: the outcome types, and strict readers
of the reply fields (exact types, bounded sizes, printable words) shared by the sandbox."""

from __future__ import annotations

import json
import signal
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from grader.sandbox import wire
from grader.sandbox.wire import WireError

ENVELOPE_BYTES = 64 << 10  # room for a reply's envelope around the answer itself
MAX_ERROR_CHARS = 500
CALL_KINDS = ("ok", "exception", "timeout", "memory", "crash", "exit", "bad-answer", "missing",
              "budget")


@dataclass(frozen=True)
class LoadOutcome:
    """Whether the submission imported; if not, why in words; its public function names."""

    ok: bool
    error: str | None
    functions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CallOutcome:
    """One call: its plain value when ``ok``, else ``error`` in words; ``kind`` is one of
    :data:`CALL_KINDS`. ``seconds`` is wall time measured here; ``cpu_seconds`` comes from the
    worker's cpuacct cgroup when there is one, else from the fork server's ``wait4`` on every
    process of the call (the server never runs student code); never from the call's report."""

    ok: bool
    value: Any
    error: str | None
    kind: str
    seconds: float
    cpu_seconds: float | None = None
    args_after: list | None = None


def to_json(message: dict | list) -> bytes:
    return json.dumps(message, ensure_ascii=True, separators=(",", ":"),
                      allow_nan=False).encode("ascii")


def envelope(raw: bytes, request_id: int, max_bytes: int = ENVELOPE_BYTES) -> dict:
    reply = wire.parse_json(raw, wire.WireBounds(max_bytes=max_bytes))
    if type(reply) is not dict:
        raise WireError("the reply is not an object")
    if type(reply.get("id")) is not int or reply["id"] != request_id:
        raise WireError("the reply does not answer this request")
    if "answer" not in reply and type(reply.get("status")) is not str:
        raise WireError("the reply has no status")
    return reply


def text_field(reply: dict, key: str) -> str:
    value = reply.get(key)
    if type(value) is not str:
        raise WireError(f"{key} is not a string")
    return value


def int_field(reply: dict, key: str) -> int:
    value = reply.get(key)
    if type(value) is not int or not -(1 << 31) <= value < (1 << 31):
        raise WireError(f"{key} is not a small integer")
    return value


def exception_text(reply: dict, where: Callable[[int], str] = lambda line: f"line {line}") -> str:
    """``raised NAME: MESSAGE``, and where in the submission it was raised when the worker
    found a frame of it: ``(at line 42, in get_stats)``; ``where`` names a line as the student
    knows it (a notebook's cell and line)."""
    exception = reply.get("exception")
    if type(exception) is not dict:
        raise WireError("exception details are missing")
    name = clip(text_field(exception, "type"), 100)
    message = clip(text_field(exception, "message"))
    text = f"raised {name}: {message}" if message else f"raised {name}"
    if "line" in exception:
        function = clip(text_field(exception, "function"), 100)
        inside = "" if function == "<module>" else f", in {function}"
        text += f" (at {where(int_field(exception, 'line'))}{inside})"
    if exception.get("needs_shared_memory") is True:
        text += (". Process pools need shared memory (/dev/shm), which this grader cannot "
                 "provide here: pre-tokenize in a plain loop instead")
    return text


def load_error_text(reply: dict, where: Callable[[int], str] | None = None) -> str:
    """Why the submission did not load; a syntax error's line named by ``where`` if given
    (``SyntaxError in cell 4, line 2: ...``)."""
    error = text_field(reply, "error")
    if "line" in reply and where is not None:
        line = int_field(reply, "line")
        error = error.replace(f" on line {line}:", f" in {where(line)}:", 1)
    return error


def clip(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    text = "".join(ch if ch.isprintable() or ch in "\n\t" else "\ufffd" for ch in text[: limit + 1])
    return text if len(text) <= limit else text[:limit] + "..."


def seconds_text(value: float) -> str:
    return f"{value:.1f}" if abs(value * 10 - round(value * 10)) < 1e-9 else f"{value:g}"


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def failed(kind: str, error: str, seconds: float = 0.0) -> CallOutcome:
    return CallOutcome(False, None, error, kind, seconds, None)


def timed_out(limit: float, seconds: float, budget_bound: bool) -> CallOutcome:
    if budget_bound:
        return failed("budget", "the submission's time budget ran out", seconds)
    return failed("timeout", f"timed out after {seconds_text(limit)} s", seconds)


def with_cpu(outcome: CallOutcome, cpu_seconds: float | None) -> CallOutcome:
    return replace(outcome, cpu_seconds=cpu_seconds)
