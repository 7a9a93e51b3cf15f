"""The sandbox worker: the untrusted side of the grader, run as a script by its own interpreter.

Standard library only, and never imported by the grader: the trusted side starts it as
``python -I -S worker.py REQUEST_FD REPLY_FD SUBMISSION [--init | --subreaper]`` inside
whatever isolation the host allows. It speaks length-prefixed JSON frames (4-byte big-endian
length, then UTF-8 JSON) over the two pipes it is given; stdout and stderr belong to the
student and are never used for the protocol.

It is a fork server: ``load`` imports the submission once; each ``call`` forks a fresh child
that runs one function under resource limits and writes its tagged answer to a private pipe;
this process relays it, then kills and reaps the child and all it started. ``--init`` first
forks into the new PID namespace, making the server its process 1, able to remove every stray
process after each call; else ``--subreaper`` (Linux) adopts orphans so it can remove them.
"""

# Builtins the server relies on, bound as module globals so a submission that replaces them in
# ``builtins`` at import time does not change how answers are encoded. Start-up time matters (a
# worker is started per submission and after every crash), so the low-level modules stand in for
# ``json``, ``signal`` and ``types``, which pull in ``re``, ``enum`` and ``functools``.
import _json
import _signal as signal
import math
import os
import resource
import select
import struct
import sys
import time
from builtins import (
    BaseException,
    Exception,
    callable,
    dict,
    getattr,
    int,
    len,
    list,
    max,
    min,
    range,
    set,
    str,
    tuple,
    type,
)

HEADER = struct.Struct(">I")
BYTES = type(b"")  # not the name ``bytes``: a submission may rebind it in ``builtins``
MAX_REQUEST_BYTES = 256 << 20
MAX_DEPTH = 64
MAX_TYPE_NAME = 200
MAX_MESSAGE_CHARS = 2000
MODULE_NAME = "student"
ModuleType = type(sys)
SUBMISSION_LABEL = ["student.py"]  # the file name shown in tracebacks and syntax errors
LOADED = [None]  # the imported submission, once loaded
SUBREAPER = [False]  # whether orphans of calls are re-parented to this server
PR_SET_CHILD_SUBREAPER = 36

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


class _StrictJson:
    """Settings for the C JSON scanner: plain types only, no NaN or Infinity."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name):
        raise ValueError("%s is not allowed in a request" % name)


_scan_json = _json.make_scanner(_StrictJson())
_encoder = _json.make_encoder(None, None, _json.encode_basestring_ascii, None, ":", ",",
                              False, False, False)


def _dumps(value):
    return "".join(_encoder(value, 0))


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
    if kind is BYTES:
        return {"B": value.hex()}
    if kind is list:
        return [to_tagged(item, budget, depth + 1) for item in list.__iter__(value)]
    if kind is tuple:
        return {"T": [to_tagged(item, budget, depth + 1) for item in tuple.__iter__(value)]}
    if kind is dict:
        pairs = []
        for key, item in dict.items(value):
            if type(key) is not str and type(key) is not int:
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
        if tag == "B":
            return BYTES.fromhex(body)
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
    module = ModuleType(MODULE_NAME)
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
        if type(name) is str and callable(value) and not name.startswith("_"):
            names.append(name[:MAX_TYPE_NAME])
    return names[:1000]


def flush_output():
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.flush()
        except BaseException:
            pass


# ---------------------------------------------------------------------------------------------
# running one call


def run_call(request):
    """Run the requested function in this process and describe what happened."""
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
        answer = {"status": "ok", "value": to_tagged(value, [request["max_items"]])}
        if request.get("echo_args") is True:
            # The arguments as the function left them, so the grader can tell a mutation.
            answer["args"] = to_tagged(list(request["args"]), [request["max_items"]])
        return answer
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
        payload, how = collect_answer(read_fd, pid, started + request["timeout"],
                                      request["max_bytes"], channel_fds[0])
    finally:
        _close(read_fd)
    if how == "answer":
        # The child has answered and has nothing left to do: kill it and anything it started,
        # reply, and only then wait for them to die.
        kill_group(pid)
        kill_strays(is_init)
        send_call_reply(reply_fd, request["id"], payload, {})
        reap(pid, is_init)
        return
    if how != "no-answer" or not exits_soon(pid):
        kill_group(pid)  # a child that closed its answer pipe but runs on is killed too
    status, usage = reap(pid, is_init)
    if how == "abandoned":
        _exit(0)
    reply = {"cpu": usage.ru_utime + usage.ru_stime}
    if how == "timeout":
        reply["status"] = "timeout"
    elif how == "too-large":
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
    """Wait for the call's child, then remove and reap whatever it left running."""
    _, status, usage = _wait4(pid, 0)
    kill_group(pid)
    for _ in range(1000):
        kill_strays(is_init)
        try:
            stray, _ = _waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if stray == 0:
            time.sleep(0.001)
    return status, usage


def own_cpu_seconds():
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def collect_answer(fd, pid, deadline, max_bytes, request_fd):
    """Read one framed answer from the child.

    Returns (payload, how) where how is "answer", "timeout", "too-large", "no-answer" (the
    child is gone without a complete answer) or "abandoned" (the grader closed the request
    pipe or wrote to it mid-call: it is gone or misbehaving, so stop serving).
    """
    buffer = bytearray()
    needed = None
    poller = _poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    poller.register(request_fd, select.POLLIN | select.POLLHUP)
    child_gone = False
    while True:
        if needed is not None and len(buffer) >= needed:
            return bytes(buffer[HEADER.size:needed]), "answer"
        remaining = deadline - _monotonic()
        if remaining <= 0:
            return None, "timeout"
        events = poller.poll(min(remaining, 0.05 if child_gone else 0.25) * 1000)
        if not events:
            if child_gone:
                return None, "no-answer"
            child_gone = child_exited(pid)
            continue
        if any(ready == request_fd for ready, _ in events):
            return None, "abandoned"
        chunk = _read(fd, 1 << 20)
        if not chunk:
            return None, "no-answer"
        buffer += chunk
        if needed is None and len(buffer) >= HEADER.size:
            (size,) = HEADER.unpack(bytes(buffer[: HEADER.size]))
            if size > max_bytes + 4096:
                return None, "too-large"
            needed = HEADER.size + size


def exits_soon(pid, seconds=0.1):
    end = _monotonic() + seconds
    while not child_exited(pid):
        if _monotonic() > end:
            return False
        time.sleep(0.002)
    return True


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


def kill_strays(is_init):
    """SIGKILL every process a call left behind, wherever it moved (never the server)."""
    if is_init:
        try:
            _kill(-1, signal.SIGKILL)  # from process 1: everyone else in the namespace
        except OSError:
            pass
    elif SUBREAPER[0]:
        for pid in adopted_children():
            try:
                _kill(pid, signal.SIGKILL)
            except OSError:
                pass


def become_subreaper():
    """Outside a PID namespace (Linux): adopt orphans, so a detached process stays findable."""
    try:
        import ctypes

        SUBREAPER[0] = ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (ImportError, OSError, AttributeError):
        SUBREAPER[0] = False


def adopted_children():
    pids = []
    try:
        for task in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/children" % task) as handle:
                pids.extend(int(part) for part in handle.read().split())
    except (OSError, ValueError):
        return []
    return pids


# ---------------------------------------------------------------------------------------------
# the server loop


def serve(request_fd, reply_fd, submission, is_init):
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
            serve_call(request, reply_fd, channel_fds, is_init)
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
        try:
            signal.signal(number, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL and SIGSTOP keep their default anyway
            pass
        _kill(os.getpid(), number)
    _exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def main(argv):
    request_fd, reply_fd, submission = int(argv[1]), int(argv[2]), argv[3]
    flags = set(argv[4:])
    SUBMISSION_LABEL[0] = os.path.basename(submission)
    is_init = False
    if "--init" in flags:
        become_namespace_init()
        is_init = os.getpid() == 1
    elif "--subreaper" in flags:
        become_subreaper()
    serve(request_fd, reply_fd, submission, is_init)


if __name__ == "__main__":
    main(sys.argv)
