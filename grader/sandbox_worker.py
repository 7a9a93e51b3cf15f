"""The sandbox worker: the untrusted side of the grader, run as a script by its own interpreter.

Standard library only, and never imported by the grader: the trusted side starts it as
``python -I -S sandbox_worker.py REQUEST_FD REPLY_FD SUBMISSION [--init] [--no-fork]`` inside
whatever isolation the host allows. It speaks length-prefixed JSON frames (4-byte big-endian
length, then UTF-8 JSON) over the two pipes it is given; stdout and stderr belong to the
student and are never used for the protocol.

It is a fork server: ``load`` imports the submission once; every ``call`` forks a fresh child
that runs one function under resource limits and writes its tagged answer to a private pipe,
which this process relays after the child has been reaped. With ``--init`` it first forks
into the new PID namespace it was started in, so the server is the namespace's process 1 and
can remove every stray process after each call. With ``--no-fork`` (hosts without fork) the
call runs in this process and the trusted side starts a fresh worker for the next one.
"""

# Builtins the server relies on, bound as module globals so a submission that replaces them
# in ``builtins`` at import time does not change how answers are encoded.
from builtins import (  # noqa: A004
    BaseException, Exception, callable, dict, getattr, int, isinstance, len, list, max, min,
    range, set, str, tuple, type,
)
import json
import math
import os
import resource
import select
import signal
import struct
import sys
import time
import types

HEADER = struct.Struct(">I")
MAX_REQUEST_BYTES = 256 << 20
MAX_DEPTH = 64
MAX_TYPE_NAME = 200
MAX_MESSAGE_CHARS = 2000
MODULE_NAME = "student"

# Bound once, before any student code runs, so a submission that patches these modules at
# import time cannot change how the server forks, waits or frames its replies.
_fork = os.fork
_wait4 = os.wait4
_waitpid = os.waitpid
_kill = os.kill
_killpg = os.killpg
_pipe = os.pipe
_read = os.read
_write = os.write
_close = os.close
_exit = os._exit
_scan_json = json.decoder.JSONDecoder().scan_once


def _make_dumps():
    """A JSON encoder built from the C accelerator, immune to later patches of ``json``."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    encoder = make(None, None, json.encoder.c_encode_basestring, None, ":", ",", False, False,
                   True)
    return lambda value: "".join(encoder(value, 0))


_dumps = _make_dumps()


def _loads(text):
    value, end = _scan_json(text, 0)
    if end != len(text):
        raise ValueError("trailing data after a request")
    return value


_setrlimit = resource.setrlimit
_monotonic = time.monotonic
_poll = select.poll


# ---------------------------------------------------------------------------------------------
# framing


def write_frame(fd, payload):
    data = HEADER.pack(len(payload)) + payload
    view = memoryview(data)
    while view:
        written = _write(fd, view)
        view = view[written:]


def read_exact(fd, size):
    chunks = []
    while size:
        chunk = _read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def read_frame(fd, limit):
    header = read_exact(fd, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > limit:
        raise ValueError("request too large")
    return read_exact(fd, size)


def send(fd, message):
    write_frame(fd, _dumps(message).encode("utf-8"))


# ---------------------------------------------------------------------------------------------
# tagged values (the same encoding as grader/wire.py)


class TooLarge(Exception):
    pass


def type_name(value):
    name = getattr(type(value), "__name__", None)
    if type(name) is not str or not name:
        return "object"
    return name[:MAX_TYPE_NAME]


def to_tagged(value, budget, depth=0):
    """Encode by exact type; anything else becomes an opaque marker naming its type."""
    budget[0] -= 1
    if budget[0] < 0:
        raise TooLarge("the answer has too many items")
    if depth > MAX_DEPTH:
        raise TooLarge("the answer is nested more than %d levels deep" % MAX_DEPTH)
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return value
    if kind is float:
        return value if math.isfinite(value) else {"O": "float(%r)" % value}
    if kind is list:
        return [to_tagged(item, budget, depth + 1) for item in list.__iter__(value)]
    if kind is tuple:
        return {"T": [to_tagged(item, budget, depth + 1) for item in tuple.__iter__(value)]}
    if kind is dict:
        pairs = []
        for key, item in dict.items(value):
            if type(key) is not str:
                return {"O": "dict with %s keys" % type_name(key)}
            pairs.append([key, to_tagged(item, budget, depth + 1)])
        return {"D": pairs}
    return {"O": type_name(value)}


def from_tagged(node):
    kind = type(node)
    if kind is list:
        return [from_tagged(item) for item in node]
    if kind is dict:
        ((tag, body),) = node.items()
        if tag == "T":
            return tuple(from_tagged(item) for item in body)
        if tag == "D":
            return {key: from_tagged(item) for key, item in body}
        raise ValueError("unexpected tag %r in a request" % tag)
    return node


# ---------------------------------------------------------------------------------------------
# describing failures in words


def safe_text(thunk, fallback):
    try:
        text = thunk()
    except BaseException:
        return fallback
    if type(text) is not str:
        return fallback
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "..."


def describe_exception(error):
    return {
        "type": safe_text(lambda: type_name(error), "Exception"),
        "message": safe_text(lambda: str.__str__(str(error)), "(its message could not be shown)"),
    }


SUBMISSION_LABEL = ["student.py"]


# ---------------------------------------------------------------------------------------------
# loading the submission


def load(path):
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        return {"status": "load-error", "error": "could not be read: %s" % error.strerror}
    if not raw.strip():
        return {"status": "load-error", "error": "the file is empty"}
    try:
        source = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        return {
            "status": "load-error",
            "error": "not valid UTF-8 (byte 0x%02x on line %d); save the file as UTF-8"
            % (raw[error.start], line),
        }
    label = SUBMISSION_LABEL[0]
    try:
        code = compile(source, label, "exec", dont_inherit=True)
    except SyntaxError as error:
        return {
            "status": "load-error",
            "error": "%s on line %s: %s" % (type(error).__name__, error.lineno, error.msg),
        }
    except (ValueError, MemoryError, RecursionError) as error:
        return {"status": "load-error", "error": "could not be compiled: %s" % type(error).__name__}
    module = types.ModuleType(MODULE_NAME)
    module.__file__ = os.path.abspath(path)
    sys.modules[MODULE_NAME] = module
    try:
        exec(code, module.__dict__)
    except SystemExit as error:
        code_value = error.code if type(error.code) is int else (0 if error.code is None else 1)
        return {"status": "load-exit", "code": code_value}
    except MemoryError:
        return {"status": "load-memory"}
    except BaseException as error:
        return {"status": "load-exception", "exception": describe_exception(error)}
    finally:
        flush_output()
    LOADED[0] = module
    return {"status": "loaded", "functions": function_names(module)}


def function_names(module):
    names = []
    for name, value in list(dict.items(module.__dict__)):
        if type(name) is str and isinstance(value, types.FunctionType) and not name.startswith("_"):
            names.append(name[:MAX_TYPE_NAME])
    return names[:1000]


LOADED = [None]


def flush_output():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass


# ---------------------------------------------------------------------------------------------
# running one call


def run_call(request):
    """Run the requested function in this process; return the reply message (no status codes)."""
    module = LOADED[0]
    name = request["function"]
    function = None if module is None else dict.get(module.__dict__, name)
    if function is None or not callable(function):
        return {"status": "missing"}
    try:
        value = function(*request["args"])
    except MemoryError:
        return {"status": "memory"}
    except SystemExit as error:
        code = error.code if type(error.code) is int else (0 if error.code is None else 1)
        return {"status": "exit", "code": code}
    except BaseException as error:
        return {"status": "exception", "exception": describe_exception(error)}
    try:
        return {"status": "ok", "value": to_tagged(value, [request["max_items"]])}
    except TooLarge as error:
        return {"status": "bad-answer", "error": str(error)}
    except MemoryError:
        return {"status": "memory"}
    except RecursionError:
        return {"status": "bad-answer", "error": "the answer is nested too deeply"}


def child_main(request, answer_fd, inherited_fds):
    """Body of the forked child: never returns."""
    try:
        for fd in inherited_fds:
            _close(fd)
        os.setpgid(0, 0)
        seconds = max(1, int(math.ceil(request["timeout"])) + 1)
        _setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
        reply = run_call(request)
        flush_output()
        reply["cpu"] = own_cpu_seconds()
        try:
            payload = _dumps(reply).encode("utf-8")
        except MemoryError:
            payload = b'{"status":"memory"}'
        except BaseException:
            payload = b'{"status":"bad-answer","error":"the answer could not be encoded"}'
        write_frame(answer_fd, payload)
    except MemoryError:
        try:
            write_frame(answer_fd, b'{"status":"memory"}')
        except BaseException:
            pass
    except BaseException:
        pass
    _exit(0)


def serve_call(request, reply_fd, channel_fds, is_init):
    """Fork a child for one call, relay its answer, reap it and anything it left behind."""
    flush_output()
    read_fd, write_fd = _pipe()
    started = _monotonic()
    pid = _fork()
    if pid == 0:
        _close(read_fd)
        child_main(request, write_fd, channel_fds)
    _close(write_fd)
    try:
        payload, timed_out, too_large = collect_answer(read_fd, pid, started + request["timeout"],
                                                       request["max_bytes"])
    finally:
        _close(read_fd)
    if payload is not None:
        # The child has answered and has nothing left to do: reply first, reap afterwards.
        kill_group(pid)
        send_call_reply(reply_fd, request["id"], payload, {})
        reap(pid, is_init)
        return
    if timed_out or too_large:
        kill_group(pid)
    status, usage = reap(pid, is_init)
    reply = {"cpu": usage.ru_utime + usage.ru_stime}
    if timed_out:
        reply["status"] = "timeout"
    elif too_large:
        reply["status"] = "bad-answer"
        reply["error"] = "the answer is over %d bytes" % request["max_bytes"]
    elif os.WIFSIGNALED(status):
        reply["status"] = "signal"
        reply["signal"] = os.WTERMSIG(status)
    else:
        reply["status"] = "exit"
        reply["code"] = os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1
    send_call_reply(reply_fd, request["id"], None, reply)


def reap(pid, is_init):
    """Wait for the call's child, then remove whatever it left running."""
    _, status, usage = _wait4(pid, 0)
    kill_group(pid)
    if is_init:
        sweep_namespace()
    return status, usage


def own_cpu_seconds():
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def collect_answer(fd, pid, deadline, max_bytes):
    """Read one framed answer from the child; stop at the deadline or when the child is gone."""
    buffer = bytearray()
    needed = None
    poller = _poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    child_gone = False
    while True:
        if needed is not None and len(buffer) >= needed:
            return bytes(buffer[HEADER.size:needed]), False, False
        remaining = deadline - _monotonic()
        if remaining <= 0:
            return None, True, False
        events = poller.poll(min(remaining, 0.05 if child_gone else 0.25) * 1000)
        if not events:
            if child_gone:
                return None, False, False
            child_gone = child_exited(pid)
            continue
        chunk = _read(fd, 1 << 20)
        if not chunk:
            return None, False, False
        buffer += chunk
        if needed is None and len(buffer) >= HEADER.size:
            (size,) = HEADER.unpack(bytes(buffer[: HEADER.size]))
            if size > max_bytes + 4096:
                return None, False, True
            needed = HEADER.size + size


def child_exited(pid):
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except (ChildProcessError, AttributeError):
        return True
    return info is not None


def kill_group(pid):
    try:
        _killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def sweep_namespace():
    """As process 1 of a PID namespace: kill every other process in it, then reap them."""
    try:
        _kill(-1, signal.SIGKILL)
    except OSError:
        pass
    while True:
        try:
            pid, _ = _waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.001)


# ---------------------------------------------------------------------------------------------
# the server loop


def serve(request_fd, reply_fd, submission, forking, is_init):
    channel_fds = (request_fd, reply_fd)
    while True:
        raw = read_frame(request_fd, MAX_REQUEST_BYTES)
        if raw is None:
            return
        request = _loads(raw.decode("utf-8"))
        op = request["op"]
        if op == "load":
            apply_memory_limit(request["memory_bytes"])
            reply = load(submission)
            reply["id"] = request["id"]
            send(reply_fd, reply)
        elif op == "call":
            request["args"] = [from_tagged(arg) for arg in request["args"]]
            if forking:
                serve_call(request, reply_fd, channel_fds, is_init)
            else:
                reply = run_call(request)
                flush_output()
                send_call_reply(reply_fd, request["id"], None, reply)
        else:
            send(reply_fd, {"id": request["id"], "status": "unknown-op"})


def send_call_reply(reply_fd, request_id, payload, reply):
    """Splice the child's answer (already JSON) into the envelope without decoding it here."""
    reply["id"] = request_id
    if payload is None:
        send(reply_fd, reply)
        return
    envelope = _dumps(reply).encode("utf-8")
    write_frame(reply_fd, envelope[:-1] + b',"answer":' + payload + b"}")


def apply_memory_limit(limit):
    if limit and hasattr(resource, "RLIMIT_AS"):
        try:
            _setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass


def become_namespace_init():
    """Fork so the server runs as process 1 of the new PID namespace; the parent waits."""
    pid = _fork()
    if pid == 0:
        return
    for fd in range(0, 64):
        try:
            _close(fd)
        except OSError:
            pass
    while True:
        try:
            _, status = _waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        _kill(os.getpid(), number)
    _exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def main(argv):
    request_fd, reply_fd, submission = int(argv[1]), int(argv[2]), argv[3]
    flags = set(argv[4:])
    SUBMISSION_LABEL[0] = os.path.basename(submission)
    forking = "--no-fork" not in flags and hasattr(os, "fork")
    is_init = False
    if "--init" in flags and forking:
        become_namespace_init()
        is_init = os.getpid() == 1
    serve(request_fd, reply_fd, submission, forking, is_init)


if __name__ == "__main__":
    main(sys.argv)
