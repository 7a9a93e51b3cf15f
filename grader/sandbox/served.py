"""Served functions: trusted implementations a submission calls by name, answered here.

    with Sandbox("test_student.py", serves={"bpe": ("train_bpe", "encode")}) as box:
        served = Served({"train_bpe": impl.train_bpe, "encode": impl.encode})
        outcome = box.call("test_ties", [], served=served)
        served.log()  # [ServedCall("train_bpe", [["ab ab"], 1], [("a", "b")], None, 0.0004)...]

A submission that is a test file (``from bpe import train_bpe``) imports a proxy module the
worker installs before the submission runs. Inside a call given ``served``, each proxy function
sends its name and arguments (plain values only: anything else is refused in the sandbox with
a ``TypeError``) on the call's two stream pipes, which bypass the fork server, and waits; the
grader runs the trusted callable on a plain copy of them and answers with its plain value, or
with its exception (re-raised in the sandbox as ``ValueError``, ``TypeError``, ``KeyError`` or
``IndexError`` when it is one of those, else as ``RuntimeError``, with the message). Outside
such a call (at import time, or in a call without ``served``) a proxy raises ``RuntimeError``
saying that served functions answer only inside a test. The implementations, their code and
the objects they hold never enter the sandbox: only the answers do.

The grader protects itself from the requests (the student picks the inputs): at most
``max_calls`` requests and ``max_request_bytes`` per request; the time spent answering counts
against the call's own time limit (and ``max_seconds`` per call, when given), and a served
function still running when that time is out is interrupted where a timer signal can do so
(the main thread); elsewhere it runs to its end and the call then ends. Any of these ends the
call, with an outcome whose words say which limit (:attr:`Served.ended`): kind "timeout" for
the time ("timed out: the served functions' time ran out ...", read after the test's name),
"budget" for the requests and their size (a sentence of its own). A frame on those
pipes that is not a request (the call's code can write there) ends the call as a bad answer;
a well-formed one is a request like any other and is answered and logged as one, so the log
holds only answers computed here. An implementation's bug (an exception, an answer that is not
plain) is the answer to that request; it never stops the grader.

The answers' timing is not a secret: a test can time its calls and so may tell two
implementations apart by their speed. Grading must rest on what the answers are (the log),
not on whether a test failed. An exception's message is an answer too: an implementation must
not name itself in one.
"""

from __future__ import annotations

import copy
import json
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from grader.sandbox import wire
from grader.sandbox.limits import SandboxError
from grader.sandbox.wire import Opaque, Unreadable, WireError

HEADER = struct.Struct(">I")
RAISED_AS = (KeyError, IndexError, ValueError, TypeError)  # as themselves, else RuntimeError
MAX_ERROR_CHARS = 500
MAX_CALLS = 1000
MAX_REQUEST_BYTES = 1 << 20
RESERVED_MODULES = ("student", "__main__")  # the worker's names for the submission and itself


@dataclass(frozen=True)
class ServedCall:
    """One request a call made, in order: the function's name, its arguments as received
    (plain values), what it answered (None when it raised) or ``error`` (``"ValueError: ..."``),
    and the seconds spent answering here. ``kwargs``: the arguments passed by name."""

    function: str
    args: list
    answer: Any
    error: str | None
    seconds: float
    kwargs: dict = field(default_factory=dict)


class ServedEnded(Exception):
    """A served-function limit, or a malformed request, ended the call: ``kind`` is the call
    outcome's kind, the message its words."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class Served:
    """One call's served functions: name -> trusted callable, answered on the grader's side
    (see the module docstring); :meth:`log` after the call. Give each call its own: the log is
    that of the last call it answered."""

    def __init__(self, functions: Mapping[str, Callable[..., Any]], *,
                 max_calls: int = MAX_CALLS, max_request_bytes: int = MAX_REQUEST_BYTES,
                 max_seconds: float | None = None) -> None:
        if not functions or not all(type(name) is str and name.isidentifier() and callable(value)
                                    for name, value in functions.items()):
            raise ValueError("served functions must map identifiers to callables")
        for name, value in (("max_calls", max_calls), ("max_request_bytes", max_request_bytes),
                            ("max_seconds", max_seconds)):
            if value is not None and (isinstance(value, bool) or not value > 0):
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        self.functions = dict(functions)
        self.max_calls = max_calls
        self.max_request_bytes = max_request_bytes
        self.max_seconds = max_seconds
        self.ended: str | None = None  # the words of the limit that ended the call, if one did
        self._log: list[ServedCall] = []
        self._pending = bytearray()
        self._deadline: float | None = None
        self._call_seconds = 0.0

    def log(self) -> list[ServedCall]:
        """Every request of the call, in the order it came, with its answer."""
        return list(self._log)

    def answered(self, name: str, args: list | tuple,
                 kwargs: Mapping[str, Any] | None = None) -> tuple[Any, str | None]:
        """``(answer, error)`` as the log would record the request ``name(*args, **kwargs)``,
        answered here outside any call and without its time limit (for the grader's own
        requests of bounded size): the answer as a call receives it, or the error's words."""
        own_args, own_kwargs = copy.deepcopy((list(args), dict(kwargs or {})))
        try:
            return copy.deepcopy(wire.from_tagged(wire.to_tagged(
                self.functions[name](*own_args, **own_kwargs)))), None
        except WireError as problem:
            return None, _unsendable(problem)
        except Exception as raised:  # noqa: BLE001 - the implementation refusing is its answer
            return None, _error_words(raised)

    @property
    def seconds(self) -> float:
        """Time spent answering, in all."""
        return sum(call.seconds for call in self._log)

    def start(self, deadline: float, call_seconds: float) -> None:
        """Called by the sandbox as its call begins (again when it runs the call again, the
        log then starting afresh): answering must end by ``deadline`` (``time.monotonic()``),
        the end of a call of ``call_seconds``."""
        self._log, self._pending, self.ended = [], bytearray(), None
        self._deadline = deadline
        self._call_seconds = call_seconds

    # the stream protocol (grader.sandbox.process.WorkerProcess.exchange) ----------------------

    def received(self, chunk: bytes, bounds: wire.WireBounds) -> bytes:
        """Take bytes read from the call's request pipe; return the answers to write back."""
        self._pending += chunk
        answers = bytearray()
        while len(self._pending) >= HEADER.size:
            (size,) = HEADER.unpack_from(self._pending, 0)
            if size > self.max_request_bytes + 64:
                self._end("budget", f"the test called a served function with arguments of "
                                    f"{size} bytes, over the limit of {self.max_request_bytes}")
            if len(self._pending) < HEADER.size + size:
                break
            payload = bytes(self._pending[HEADER.size:HEADER.size + size])
            del self._pending[:HEADER.size + size]
            answers += self._answer(*self._request(payload))
        return bytes(answers)

    def _request(self, payload: bytes) -> tuple[str, list, dict]:
        """The function's name and its arguments, still tagged."""
        bounds = wire.WireBounds(max_bytes=self.max_request_bytes + 64)
        try:
            message = wire.parse_json(payload, bounds)
            if (type(message) is not list or len(message) != 4 or message[0] != "serve"
                    or type(message[1]) is not str or message[1] not in self.functions
                    or type(message[2]) is not list or type(message[3]) is not dict):
                raise WireError("it is not a request to a served function")
            named = {"D": [[key, value] for key, value in message[3].items()]}
            decoded = wire.from_tagged([message[2], named], bounds)
            if not all(key.isidentifier() for key in message[3]) or not _plain(decoded):
                raise WireError("its arguments are not plain values")
        except WireError as error:
            self._end("bad-answer", f"sent a malformed request to a served function "
                                    f"({_clip(str(error))})")
        if len(self._log) >= self.max_calls:
            self._end("budget", f"the test called the served functions more than "
                                f"{self.max_calls} times")
        return message[1], message[2], message[3]

    def _answer(self, name: str, tagged_args: list, tagged_kwargs: dict) -> bytes:
        # The implementation gets a copy of its own: what it does to its arguments is not logged.
        args = wire.from_tagged(tagged_args)
        kwargs = {key: wire.from_tagged(value) for key, value in tagged_kwargs.items()}
        own_args, own_kwargs = copy.deepcopy((args, kwargs))  # plain values: a plain copy
        left = self._time_left()
        started = time.perf_counter()
        answer, error, frame = None, None, None
        try:
            with _interrupted_after(left):
                value = self.functions[name](*own_args, **own_kwargs)
                tagged = wire.to_tagged(value)
        except _OutOfTime:
            error = "TimeoutError: interrupted when the served functions' time ran out"
        except WireError as problem:
            error = _unsendable(problem)
            frame = ["raise", "RuntimeError", error]
        except (Exception, SystemExit) as raised:  # the implementation's own bug or refusal
            error = _error_words(raised)
            kind = next((base.__name__ for base in RAISED_AS if isinstance(raised, base)),
                        "RuntimeError")
            # A KeyError's message is the repr of its key: the key itself makes the same one.
            keyed = kind == "KeyError" and len(raised.args) == 1 and type(raised.args[0]) is str
            frame = ["raise", kind, _clip(raised.args[0] if keyed else _text(raised))]
        else:
            answer, frame = copy.deepcopy(wire.from_tagged(tagged)), ["ok", tagged]
        seconds = time.perf_counter() - started
        self._log.append(ServedCall(name, args, answer, error, seconds, kwargs))
        if frame is None or seconds > left:
            self._out_of_time()
        payload = json.dumps(frame, ensure_ascii=True, allow_nan=False,
                             separators=(",", ":")).encode("ascii")
        return HEADER.pack(len(payload)) + payload

    def _time_left(self) -> float:
        left = float("inf")
        if self._deadline is not None:
            left = self._deadline - time.monotonic()
        if self.max_seconds is not None:
            left = min(left, self.max_seconds - self.seconds)
        return max(left, 0.0)

    def _out_of_time(self) -> None:
        spent = f"{self.seconds:.2f}".rstrip("0").rstrip(".")
        if self.max_seconds is not None and self.seconds >= self.max_seconds:
            limit = f"the {self.max_seconds:g} s they may take in one test"
        else:
            limit = f"the test's time limit of {self._call_seconds:g} s"
        calls = f"{len(self._log)} call" + ("" if len(self._log) == 1 else "s")
        self._end("timeout", f"timed out: the served functions' time ran out after answering "
                             f"{calls} in {spent} s, reaching {limit}")

    def _end(self, kind: str, message: str) -> None:
        self.ended = message
        raise ServedEnded(kind, message)


def served_modules(serves: Mapping[str, Any] | None) -> dict[str, list[str]]:
    """A sandbox's ``serves`` checked: module name -> its function names, every name an
    identifier, no module of the standard library, no function name in two modules."""
    if serves is None:
        return {}
    if not isinstance(serves, Mapping):
        raise SandboxError("serves must map module names to function names")
    modules: dict[str, list[str]] = {}
    seen: set[str] = set()
    for module, functions in serves.items():
        if (type(module) is not str or not module.isidentifier()
                or module in sys.stdlib_module_names or module in RESERVED_MODULES):
            raise SandboxError(f"a served module needs a name of its own, got {module!r}")
        names = [functions] if isinstance(functions, str) else list(functions)
        if not names or not all(type(name) is str and name.isidentifier() and not
                                name.startswith("_") for name in names) or seen & set(names):
            raise SandboxError(f"served module {module!r}: its functions must be public "
                               f"names, each served by one module only, got {functions!r}")
        seen.update(names)
        modules[module] = names
    return modules


def check_call(served: Served | None, modules: dict[str, list[str]], streamed: bool) -> None:
    """Refuse a call's ``served`` that does not answer every function the sandbox serves."""
    if served is None:
        return
    if not isinstance(served, Served):
        raise SandboxError("served must be a Served")
    if streamed:
        raise SandboxError("a call cannot be both streamed and served")
    if not modules:
        raise SandboxError("this sandbox serves no functions (open it with serves=...)")
    wanted = {name for names in modules.values() for name in names}
    missing = sorted(wanted - set(served.functions))
    if missing:
        raise SandboxError(f"the call's Served does not answer {', '.join(missing)}")


def _plain(value: Any) -> bool:
    """Whether a decoded value holds no opaque or refused marker anywhere."""
    if isinstance(value, (Opaque, Unreadable)):
        return False
    if type(value) in (list, tuple):
        return all(_plain(item) for item in value)
    if type(value) is dict:
        return all(_plain(item) for item in value.values())
    return True


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # noqa: BLE001 - a message that cannot be shown
        return "(its message could not be shown)"


def _error_words(raised: BaseException) -> str:
    """An implementation's exception as the log records it: ``"Type: message"``, clipped."""
    return _clip(f"{type(raised).__name__}: {_text(raised)}")


def _unsendable(problem: WireError) -> str:
    return _clip(f"TypeError: the served function's answer cannot be sent: {problem}")


def _clip(text: str) -> str:
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "..."


class _OutOfTime(BaseException):
    """Raised into a served function whose time ran out (a BaseException: not its to catch)."""


@contextmanager
def _interrupted_after(seconds: float) -> Iterator[None]:
    """Interrupt the body after ``seconds`` where a timer signal can be used: the main thread,
    with no interval timer of someone else's running. Elsewhere the body runs to its end."""
    if seconds == float("inf") or not _can_interrupt():
        yield
        return
    if seconds <= 0:
        raise _OutOfTime()
    armed = [True]

    def expire(signum: int, frame: object) -> None:
        if armed[0]:
            raise _OutOfTime()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))  # a zero would disarm it
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _can_interrupt() -> bool:
    return (hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread()
            and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))
