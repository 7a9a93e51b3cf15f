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
    # The parts run one by one (a notebook's cells) that did not compile or raised, as
    # (index of the part, what happened in words), in the order they ran; the rest still ran.
    failed_parts: list[tuple[int, str]] = field(default_factory=list)


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
    # A streamed call's trace (what it read and yielded, seen here), else None.
    stream: Any = None


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


MAX_FAILED_PARTS = 20


def failed_parts_field(reply: dict, parts: int, where: Callable[[int], str]) -> list[tuple[int, str]]:
    """The ``failed_parts`` of a load reply, read strictly: each ``(index, words)``, a part
    that did not compile (``SyntaxError in cell 4, line 2: ...``) or that raised
    (``raised NameError: ... (at cell 5, line 3)``), in the order of the parts."""
    items = reply.get("failed_parts", [])
    if type(items) is not list or len(items) > MAX_FAILED_PARTS:
        raise WireError("failed_parts is not a short list")
    failed = []
    for item in items:
        if type(item) is not dict:
            raise WireError("a failed part is not an object")
        index = int_field(item, "part")
        if not 0 <= index < parts:
            raise WireError("a failed part out of range")
        words = exception_text(item, where) if "exception" in item else load_error_text(item, where)
        failed.append((index, clip(words)))
    return sorted(failed, key=lambda pair: pair[0])


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


def timed_out(limit: float, seconds: float, budget_bound: bool,
              why: str = "the submission's time budget ran out") -> CallOutcome:
    if budget_bound:
        return failed("budget", why, seconds)
    return failed("timeout", f"timed out after {seconds_text(limit)} s", seconds)


def with_cpu(outcome: CallOutcome, cpu_seconds: float | None) -> CallOutcome:
    return replace(outcome, cpu_seconds=cpu_seconds)


# --------------------------------------------------------------------------- a call's answer

MAX_BATCH = 512
"""The most inputs one batched call may carry."""


@dataclass(frozen=True)
class AnswerReading:
    """What reading one answer needs to know about the call it answers."""

    function: str
    limit: float
    max_bytes: int
    file_name: str
    where: Callable[[int], str]
    memory_text: Callable[[], str]
    sent: list | None = None
    """The call's arguments as sent (a batch's: each input's), for an answer that says they
    were left as they came instead of echoing them."""


def answer_outcome(answer: Any, reading: AnswerReading, seconds: float,
                   cpu_seconds: float | None) -> CallOutcome:
    """The outcome of one call from its answer (a dict the call's child wrote: read strictly)."""
    if type(answer) is not dict or type(answer.get("status")) is not str:
        raise WireError("the answer has no status")
    status, function, limit = answer["status"], reading.function, reading.limit
    if status == "ok":
        if "value" not in answer:
            raise WireError("an ok answer without a value")
        bounds = wire.WireBounds(max_bytes=reading.max_bytes)
        value = wire.from_tagged(answer["value"], bounds)
        args_after = None
        if "args" in answer:
            args_after = wire.from_tagged(answer["args"], bounds)
            if type(args_after) is not list:
                raise WireError("the echoed arguments are not a list")
        elif answer.get("args_same") is True and reading.sent is not None:
            args_after = list(reading.sent)  # left as they came: the values sent
        return CallOutcome(True, value, None, "ok", seconds, cpu_seconds, args_after)
    if status == "exception":
        return CallOutcome(False, None, exception_text(answer, reading.where), "exception",
                           seconds, cpu_seconds)
    if status == "missing":
        return CallOutcome(False, None, f"{function} is not defined in {reading.file_name}",
                           "missing", seconds, cpu_seconds)
    if status == "memory":
        return CallOutcome(False, None, reading.memory_text(), "memory", seconds, cpu_seconds)
    if status == "timeout":
        return with_cpu(timed_out(limit, seconds, False), cpu_seconds)
    if status == "exit":
        code = int_field(answer, "code")
        return CallOutcome(False, None, f"exited with status {code} during the call", "exit",
                           seconds, cpu_seconds)
    if status == "signal":
        number = int_field(answer, "signal")
        if number == signal.SIGXCPU or (number == signal.SIGKILL and seconds >= limit):
            return with_cpu(timed_out(limit, seconds, False), cpu_seconds)
        return CallOutcome(False, None, f"crashed with {signal_name(number)}", "crash",
                           seconds, cpu_seconds)
    if status == "bad-answer":
        return CallOutcome(False, None, "returned an answer the grader cannot accept: "
                           + clip(text_field(answer, "error")), "bad-answer", seconds,
                           cpu_seconds)
    raise WireError(f"unexpected status {status[:40]!r}")


def batch_outcome(answer: dict, reading: AnswerReading, seconds: float,
                  cpu_seconds: float | None) -> CallOutcome:
    """A batched call's outcome: kind ``batch``, its value the outcome of each input answered,
    in order (the child goes on after a value or a raised exception, and stops after any other
    answer)."""
    items = answer.get("answers")
    if type(items) is not list or len(items) > MAX_BATCH:
        raise WireError("a batched answer without its list of answers")
    outcomes = []
    for index, item in enumerate(items):
        took = item.get("seconds") if type(item) is dict else None
        if type(took) not in (int, float) or not 0 <= took <= seconds + 1:
            raise WireError("an answer of a batch without its duration")
        sent = reading.sent[index] if reading.sent is not None and index < len(reading.sent) else None
        outcomes.append(answer_outcome(item, replace(reading, sent=sent), float(took), None))
    return CallOutcome(True, outcomes, None, "batch", seconds, cpu_seconds)


def load_outcome(reply: dict, parts: int, where: Callable[[int], str],
                 named_lines: Callable[[int], str] | None, memory_mib: int) -> LoadOutcome:
    """The outcome of a load from the worker's reply (its envelope already checked); a
    ``load-timeout`` raises :class:`TimeoutError`, for the caller to word as its time-out."""
    status = reply["status"]
    if status == "loaded":
        functions = reply.get("functions")
        if type(functions) is not list or not all(type(f) is str for f in functions):
            raise WireError("functions is not a list of names")
        failed = failed_parts_field(reply, parts, where)
        return LoadOutcome(True, None, [clip(f, 200) for f in functions], failed)
    if status == "load-error":
        return LoadOutcome(False, clip(load_error_text(reply, named_lines)))
    if status == "load-exit":
        return LoadOutcome(False, f"exited with status {int_field(reply, 'code')} "
                                  "while importing")
    if status == "load-timeout":
        raise TimeoutError()
    if status == "load-signal":
        return LoadOutcome(False, f"crashed with {signal_name(int_field(reply, 'signal'))} "
                                  "while importing")
    if status == "load-memory":
        return LoadOutcome(False, f"ran out of memory (limit {memory_mib} MiB) while importing")
    if status == "load-exception":
        return LoadOutcome(False, exception_text(reply, where) + " while importing")
    raise WireError(f"unexpected status {status!r}")


NOT_CLEARED = 86  # worker.py's exit status when it could not clear what a call left


def death(status: int | None, during_call: bool) -> tuple[str, str]:
    """The kind and wording of a worker's death from its exit status (None: not known).
    ``not-cleared`` is the worker stopping because it could not clear what a call left: the
    grader's to clear, never the student's doing."""
    when = "during the call" if during_call else "while importing"
    if status is None:
        return "crash", f"the worker stopped answering {when}"
    if status < 0:
        suffix = "" if during_call else f" {when}"
        return "crash", f"crashed with {signal_name(-status)}{suffix}"
    if status == NOT_CLEARED:
        return "not-cleared", "the sandbox could not clear what an earlier call left"
    return "exit", f"exited with status {status} {when}"
