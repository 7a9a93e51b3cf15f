"""The sandbox worker: the untrusted side of the grader, run as a script by its own interpreter.

Standard library only, and never imported by the grader: the trusted side starts it as
``python -I -S worker.py REQUEST_FD REPLY_FD SUBMISSION SCRATCH [--init | --subreaper]
[--stream=FEED_FD,TRACE_FD]`` inside whatever isolation the host allows. It speaks
length-prefixed JSON frames (4-byte big-endian length, then UTF-8 JSON) over the two pipes it
is given; stdout and stderr belong to the student and are never used for the protocol.

It is a pristine fork server: it never executes student code itself. ``load`` compiles the
submission once and forks a child that executes it, to report its functions (and which
common standard-library modules it imports, so the server can import them ahead of later
calls). A notebook comes with its cells' line ranges in the load request: each is compiled on
its own (keeping its lines in the file, so a traceback names the cell) and every execution runs
them in turn, a cell that raises an ``Exception`` noted by this loader and the next still run,
as Jupyter runs a notebook with errors allowed; the load reply lists the cells that did not
compile or raised. Every ``call`` forks a fresh child from the server that executes the compiled module
and then the one function, in an empty private directory under SCRATCH, under resource
limits and the Landlock rules built once at load. The call's arguments never pass through
the server: the child reads them straight from the request pipe, before any student code
runs; its answer is relayed through a buffer mapped for that call only and unmapped after.
When the call is over the server kills and reaps every process the call started (adding
their CPU time, measured by ``wait4``, to the call's: the server never ran student code, so
the figure is trusted), then empties SCRATCH, so nothing a call wrote, started or kept in
memory is there for the next one. With ``--init`` it first forks into the new PID namespace
it was started in, so the server is the namespace's process 1 and can remove every stray
process; without one, ``--subreaper`` (Linux) makes orphans its children so it can still find
and remove them.

A streamed call's child (and only it: every other child closes them before student code runs)
keeps the two stream pipes, which bypass the server: one argument is an iterator whose items
come from the grader one request at a time, and what the function yields goes back on the
other pipe between those requests (:class:`FedItems`), so the grader itself counts how much
was read before each item came.

Served functions (``grader/sandbox/served.py``): the load request may name modules of served
functions (``{"bpe": ["train_bpe", "encode"]}``), installed in ``sys.modules`` before the
submission runs, every time it runs. Each of their functions is a proxy that, in a call whose
request says ``served`` (which keeps the stream pipes as a streamed call does), sends its name
and plain arguments on the stream pipe and returns the grader's answer (or raises its
exception); anywhere else (at import time, in another call) it raises ``RuntimeError``. The
implementations stay with the grader: nothing of them is here.
"""

# Builtins the server relies on, bound as module globals so a submission that replaces them in
# ``builtins`` at import time does not change how answers are encoded. Start-up time matters (a
# worker is started per submission and after every crash), so the low-level modules stand in for
# ``json``, ``signal`` and ``types``, which pull in ``re``, ``enum`` and ``functools``.
import _json
import _thread
import _signal as signal
import math
import mmap
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
    iter,
    len,
    list,
    max,
    min,
    next,
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
try:  # the type of a traceback, without importing types
    raise ValueError
except ValueError:
    TracebackType = type(sys.exc_info()[2])
SUBMISSION_LABEL = ["student.py"]  # the file name shown in tracebacks and syntax errors
CODE = [None]  # the compiled submission, once loaded (never executed by the server)
# A notebook's cells: the compiled code of each part of the file run on its own (None for a
# part that did not compile), and the parts that did not compile, as the load reports them.
PARTS = [None]
PARTS_UNCOMPILED = []
MAX_PARTS = 10000
MAX_FAILED_PARTS = 10  # the cells that raised, as many as the load reply has room for
CONFIG = {}  # per-submission settings from the load request
RULESET = [None]  # the Landlock ruleset fd every child restricts itself with
SERIAL = [0]
# The server's exit status when it cannot clear what a call left (its processes or files):
# the grader then clears it itself or stops grading the submission; never the student's status.
NOT_CLEARED = 86
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
_dup2 = os.dup2


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
# tagged values (the same encoding as grader/sandbox/wire.py)


class TooLarge(Exception):
    pass


def type_name(value):
    name = getattr(type(value), "__name__", None)
    if type(name) is not str or not name:
        return "object"
    return name[:MAX_TYPE_NAME]


def to_tagged(value, budget, depth=0):
    """Encode by type: a plain value as it is, an ordinary subclass of a plain type as its plain
    value (see ``reading_refusal``), anything else as an opaque marker naming its type."""
    budget[0] -= 1
    if budget[0] < 0:
        raise TooLarge("the answer has too many items")
    if depth > MAX_DEPTH:
        raise TooLarge("the answer is nested more than %d levels deep" % MAX_DEPTH)
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int and int.bit_length(value) <= MAX_INT_BITS:
        return value
    base = plain_base(kind)
    if base is None:
        return {"O": type_name(value)}
    if base is not kind:
        try:
            refused = reading_refusal(value, kind, base)
        except Exception:
            refused = [type_name(value), BASE_NAMES[base], "unreadable"]
        if refused is not None:
            return {"U": refused}
    if base is int:
        plain = _int_value(value)
        bits = int.bit_length(plain)
        if bits > MAX_INT_BITS:
            return {"U": [type_name(value), "int", "too-large", "%d" % bits]}
        return plain
    if base is str:
        return _str_value(value)
    if base is float:
        value = _float_value(value)
        return value if math.isfinite(value) else {"O": "float(%r)" % value}
    if base is BYTES:
        return {"B": BYTES.hex(value)}
    if base is list:
        return [to_tagged(item, budget, depth + 1) for item in list.__iter__(value)]
    if base is tuple:
        return {"T": [to_tagged(item, budget, depth + 1) for item in tuple.__iter__(value)]}
    pairs = []
    for key, item in dict.items(value):
        tagged = tagged_key(key, budget)
        if tagged is None:
            return {"O": "dict with %s keys" % type_name(key)}
        pairs.append([tagged, to_tagged(item, budget, depth + 1)])
    return {"D": pairs}


def tagged_key(key, budget):
    """A dict key as it travels (a str, an int, or a tuple of them, each read as a plain
    value as ``to_tagged`` reads it), or None for any other key."""
    kind = type(key)
    if kind is str:
        return key
    base = None if kind is bool else plain_base(kind)
    try:
        if base is None or (base is not kind and reading_refusal(key, kind, base) is not None):
            return None
    except Exception:
        return None
    if base is str:
        return _str_value(key)
    if base is int:
        key = _int_value(key)
        return key if int.bit_length(key) <= MAX_INT_BITS else None
    if base is not tuple:
        return None
    budget[0] -= tuple.__len__(key)
    parts = []
    for part in tuple.__iter__(key):
        plain = tagged_key(part, budget) if type(part) is not tuple else None
        if type(plain) is not str and type(plain) is not int:
            return None
        parts.append(plain)
    return {"T": parts}


# ---------------------------------------------------------------------------------------------
# reading an ordinary subclass of a plain type (a defaultdict, a Counter, a namedtuple, a str
# subclass...) as its plain value
#
# The value is read only through the C-level methods of its plain base (``dict.items``,
# ``list.__iter__``, ``tuple.__iter__``, ``str.__str__``, ``int.__int__``, ``float.__float__``,
# ``bytes.hex``), which read what the object holds and never run a method of its class. A
# subclass is read so only when no class of its own (those before the base in its MRO)
# redefines what its value means to Python: equality, hashing, truth, length, iteration,
# membership, indexing, order, and the base's reading methods (``keys``, ``items``,
# ``values`` and ``get`` of a dict, ``__str__`` of a str...), nor does the instance itself
# hold a reading method. Otherwise it is refused, naming what it redefines: the grader would
# read a value other than the one the student's own code sees. The standard library's
# ``defaultdict``, ``OrderedDict`` and ``Counter`` redefine some of these honestly and are
# read as dicts, as long as their classes are the ones the server imported (before any
# submission ran) with those methods unchanged.

PLAIN_BASES = (int, list, tuple, dict, float, str, BYTES)  # the commonest first
BASE_NAMES = {dict: "dict", list: "list", tuple: "tuple", str: "str", BYTES: "bytes",
              int: "int", float: "float"}
_mro_of = type.__dict__["__mro__"].__get__
_namespace_of = type.__dict__["__dict__"].__get__
_GETSET = type(type.__dict__["__dict__"])
_int_value = int.__int__
_float_value = float.__float__
_str_value = str.__str__
MAX_INT_BITS = 4096
MAX_REDEFINED_SHOWN = 12
_ABSENT = object()

SAME_VALUE = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__",
              "__bool__")
SAME_ITEMS = ("__len__", "__iter__", "__reversed__", "__contains__", "__getitem__")
READ_AS = {
    dict: SAME_VALUE + SAME_ITEMS + ("keys", "items", "values", "get"),
    list: SAME_VALUE + SAME_ITEMS + ("index", "count"),
    tuple: SAME_VALUE + SAME_ITEMS + ("index", "count"),
    str: SAME_VALUE + SAME_ITEMS + ("__str__", "index", "count"),
    BYTES: SAME_VALUE + SAME_ITEMS + ("__bytes__", "hex", "index", "count"),
    int: SAME_VALUE + ("__int__", "__index__", "__float__"),
    float: SAME_VALUE + ("__float__", "__int__"),
}


def plain_base(kind):
    """The plain type ``kind`` is or derives from (by identity along its MRO), or None."""
    for base in PLAIN_BASES:
        if kind is base:
            return base
    for ancestor in _mro_of(kind):
        for base in PLAIN_BASES:
            if ancestor is base:
                return base
    return None


def watched_names(base):
    for known, names in dict.items(READ_AS):
        if known is base:
            return names
    return ()


def snapshot(cls, base):
    """What ``cls`` itself holds under each name a reading relies on."""
    namespace = _namespace_of(cls)
    return cls, base, [namespace.get(name, _ABSENT) for name in watched_names(base)]


def standard_classes():
    """The standard library's dict subclasses read as dicts, as the server imported them."""
    import collections
    return [snapshot(cls, dict) for cls in (collections.defaultdict, collections.OrderedDict,
                                            collections.Counter)]


TRUSTED = standard_classes()


def every_start_method_forks():
    """multiprocessing's ``spawn`` and ``forkserver`` start methods start forked processes.

    A spawned or forkserver process is a fresh interpreter that must import the submission by
    name to unpickle its functions, and here the submission is no file it may read (the
    server compiles it, a child executes it as ``student``): its workers would die at start
    and a pool would wait for them for ever. A forked worker has the module already, so a
    pool of any start method runs, under the same limits as a ``fork`` pool (the default on
    Linux before Python 3.14, ``forkserver`` after it). Done once in the server (about 7 ms),
    so that every child inherits it."""
    import multiprocessing.context as contexts
    fork = contexts._concrete_contexts.get("fork")
    if fork is None:  # no fork on this platform: nothing to map onto
        return
    for method in ("spawn", "forkserver"):
        contexts._concrete_contexts[method] = fork
    contexts._default_context._default_context = fork
    contexts._default_context._actual_context = None


every_start_method_forks()


def redefined_by(cls, base, names):
    """The names ``cls`` itself redefines among ``names`` (holding anything but the base's own
    attribute, as ``__str__ = str.__str__`` does not); for a standard class, those whose
    methods differ from the server's snapshot."""
    namespace = _namespace_of(cls)
    for trusted, trusted_base, held in TRUSTED:
        if trusted is cls and trusted_base is base:
            return [names[index] for index in range(len(names))
                    if namespace.get(names[index], _ABSENT) is not held[index]]
    own = _namespace_of(base)
    return [name for name in names
            if name in namespace and namespace.get(name) is not own.get(name, _ABSENT)]


def reading_refusal(value, kind, base):
    """None when ``value`` (of a proper subclass ``kind`` of ``base``) can be read as its
    plain value; else the refusal marker's fields: its type, the base, and what it redefines."""
    names = watched_names(base)
    redefined = []
    for cls in _mro_of(kind):
        if cls is base:
            break
        for name in redefined_by(cls, base, names):
            if name not in redefined:
                redefined.append(name)
        holder = _namespace_of(cls).get("__dict__")
        if holder is not None and type(holder) is not _GETSET:
            redefined.append("__dict__")
        elif holder is not None:
            own = holder.__get__(value, kind)
            if type(own) is dict:
                redefined.extend(name for name in names
                                 if name[0] != "_" and dict.get(own, name, _ABSENT) is not _ABSENT
                                 and name not in redefined)
    if not redefined:
        return None
    return [type_name(value), BASE_NAMES[base], "redefines"] + redefined[:MAX_REDEFINED_SHOWN]


def from_tagged(node):
    kind = type(node)
    if kind is list:
        return [from_tagged(item) for item in node]
    if kind is dict:
        ((tag, body),) = node.items()
        if tag == "T":
            return tuple(from_tagged(item) for item in body)
        if tag == "D":
            return {(tuple(key["T"]) if type(key) is dict else key): from_tagged(item)
                    for key, item in body}
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


MAX_FRAMES = 100000  # a traceback of a deep recursion is long; never walk more than this


def describe_exception(error):
    described = {
        "type": safe_text(lambda: type_name(error), "Exception"),
        "message": safe_text(lambda: str.__str__(str(error)), "(its message could not be shown)"),
    }
    where = submission_frame(error)
    if where is not None:
        described["line"], described["function"] = where
    if isinstance(error, OSError) and raised_in(error, SHARED_MEMORY_MODULES):
        described["needs_shared_memory"] = True
    return described


# Where multiprocessing makes its semaphores and shared memory, in /dev/shm.
SHARED_MEMORY_MODULES = ("multiprocessing/synchronize.py", "multiprocessing/shared_memory.py")


def raised_in(error, endings):
    """Whether a frame of ``error``'s traceback is in a file whose path ends with one of
    ``endings`` (read from the interpreter's objects, as :func:`submission_frame`)."""
    try:
        tb = BaseException.__traceback__.__get__(error)
    except BaseException:
        return False
    steps = 0
    while type(tb) is TracebackType and steps < MAX_FRAMES:
        name = tb.tb_frame.f_code.co_filename
        if type(name) is str and name.endswith(endings):
            return True
        tb = tb.tb_next
        steps += 1
    return False


def submission_frame(error):
    """(line, function) of the innermost frame of the submission's own file in ``error``'s
    traceback, or None. Read from the interpreter's own objects: no code of the error runs."""
    try:
        tb = BaseException.__traceback__.__get__(error)
    except BaseException:
        return None
    where, steps = None, 0
    while type(tb) is TracebackType and steps < MAX_FRAMES:
        code = tb.tb_frame.f_code
        if code.co_filename == SUBMISSION_LABEL[0]:
            where = (tb.tb_lineno, code.co_name[:100])
        tb = tb.tb_next
        steps += 1
    return where


# ---------------------------------------------------------------------------------------------
# loading the submission (the server compiles; a child executes)

# Standard-library modules a BPE submission commonly imports. The load child reports which of
# these the submission imported, and the server imports them too, so that no call child pays
# for them again. Only names from this list are ever imported by the server.
ALLOWED_MODULES = set()  # the exercise's allowed modules the server may import (see main)
PRELOADABLE = frozenset((
    "abc", "array", "bisect", "collections", "copy", "dataclasses", "decimal", "enum",
    "fractions", "functools", "heapq", "itertools", "json", "math", "numbers", "operator",
    "random", "re", "statistics", "string", "struct", "time", "types", "typing",
    "unicodedata",
))


def compile_submission(path):
    """Compile the submission in the server (nothing of it runs); an error reply or None."""
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
    parts = CONFIG.get("parts")
    if parts is not None:
        return compile_parts(source, parts)
    try:
        CODE[0] = compile(source, SUBMISSION_LABEL[0], "exec", dont_inherit=True)
    except SyntaxError as error:
        reply = {
            "status": "load-error",
            "error": "%s on line %s: %s" % (type(error).__name__, error.lineno, error.msg),
        }
        if type(error.lineno) is int:
            reply["line"] = error.lineno
        return reply
    except (ValueError, MemoryError, RecursionError) as error:
        return {"status": "load-error", "error": "could not be compiled: %s" % type(error).__name__}
    return None


def compile_parts(source, parts):
    """Compile each part (lines ``first`` to ``last`` of the file, a notebook's cell) on its
    own, keeping its line numbers in the file: a part that does not compile is noted and left
    out, as Jupyter runs the next cell after one with a syntax error."""
    lines = source.split("\n")
    compiled = []
    del PARTS_UNCOMPILED[:]
    for index, (first, last) in enumerate(parts):
        text = "\n" * (first - 1) + "\n".join(lines[first - 1:last]) + "\n"
        try:
            compiled.append(compile(text, SUBMISSION_LABEL[0], "exec", dont_inherit=True))
        except SyntaxError as error:
            compiled.append(None)
            failure = {"part": index, "error": "%s on line %s: %s"
                       % (type(error).__name__, error.lineno, error.msg)}
            if type(error.lineno) is int:
                failure["line"] = error.lineno
            PARTS_UNCOMPILED.append(failure)
        except (ValueError, MemoryError, RecursionError) as error:
            compiled.append(None)
            PARTS_UNCOMPILED.append({"part": index, "error": "could not be compiled: %s"
                                     % type(error).__name__})
    PARTS[0] = compiled
    CODE[0] = compiled  # something was loaded: calls run the parts that compiled
    return None


def execute_module(path, failures=None):
    """In a child: execute the compiled submission as module ``student``; return it. A
    notebook's cells run one after the other; one that raises an ``Exception`` is noted in
    ``failures`` (its index and the exception) and the next cells still run."""
    install_served()
    module = ModuleType(MODULE_NAME)
    module.__file__ = path
    sys.modules[MODULE_NAME] = module
    if PARTS[0] is None:
        exec(CODE[0], module.__dict__)
        return module
    compiled = PARTS[0]
    for index in range(len(compiled)):  # bound names: a cell may replace builtins
        code = compiled[index]
        if code is None:
            continue
        try:
            exec(code, module.__dict__)
        except Exception as error:  # noqa: BLE001 - as Jupyter, the next cell still runs
            if failures is not None and len(failures) < MAX_FAILED_PARTS:
                failures.append({"part": index, "exception": describe_exception(error)})
    return module


def load_in_child(path):
    """Body of the load child: the import's outcome, its functions and preloadable modules."""
    before = set(sys.modules)
    failures = []
    try:
        module = execute_module(path, failures)
    except SystemExit as error:
        code_value = error.code if type(error.code) is int else (0 if error.code is None else 1)
        return {"status": "load-exit", "code": code_value}
    except MemoryError:
        return {"status": "load-memory"}
    except BaseException as error:
        return {"status": "load-exception", "exception": describe_exception(error)}
    finally:
        flush_output()
    imported = set()
    for name in list(sys.modules):
        if type(name) is str and name not in before:
            top = name.split(".")[0]
            if top in PRELOADABLE or top in ALLOWED_MODULES:
                imported.add(top)
    reply = {"status": "loaded", "functions": function_names(module),
             "modules": sorted(imported)}
    if PARTS[0] is not None:
        reply["failed_parts"] = failures
    return reply


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


def preload(names):
    """Import the reported standard-library modules in the server (only known names), and
    the exercise's allowed modules when nothing a call runs could have changed their files."""
    if type(names) is not list:
        return
    for name in names:
        if type(name) is str and (name in PRELOADABLE or name in ALLOWED_MODULES):
            try:
                __import__(name)
            except BaseException:
                pass


# ---------------------------------------------------------------------------------------------
# Landlock: the files a call may touch (Linux 5.13+; built once, applied in every child)

SYS_LANDLOCK_CREATE_RULESET = 444  # the same number on every architecture
SYS_LANDLOCK_ADD_RULE = 445
SYS_LANDLOCK_RESTRICT_SELF = 446
LANDLOCK_CREATE_RULESET_VERSION = 1
LANDLOCK_RULE_PATH_BENEATH = 1
FS_EXECUTE, FS_WRITE_FILE, FS_READ_FILE, FS_READ_DIR = 1, 2, 4, 8
FS_TRUNCATE, FS_IOCTL_DEV = 1 << 14, 1 << 15
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
READ_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1, 2
PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4
PACKAGE_DIRS = ("site-packages", "dist-packages")  # where a grader and its specs may be installed
LIBC = [None]


def libc():
    if LIBC[0] is None:
        import ctypes

        LIBC[0] = ctypes.CDLL(None, use_errno=True)
        LIBC[0].syscall.restype = ctypes.c_long
    return LIBC[0]


def landlock_rules(scratch):
    """(path, rights) pairs: the standard library (not its installed packages), system
    binaries and libraries, a few devices read-only; the scratch directory read-write."""
    rules = []
    for entry in sys.path:
        if not entry or not os.path.exists(entry):
            continue
        if not os.path.isdir(entry):
            rules.append((entry, FS_READ_FILE))
            continue
        rules.append((entry, FS_READ_DIR))
        for name in os.listdir(entry):
            if name not in PACKAGE_DIRS:
                rules.append((os.path.join(entry, name), READ_RIGHTS))
    multiarch = getattr(sys.implementation, "_multiarch", "")
    system = ["/usr/bin", "/bin", "/lib64", "/usr/lib64", "/etc/ld.so.cache", "/etc/localtime"]
    if multiarch:
        system += ["/lib/" + multiarch, "/usr/lib/" + multiarch]
    rules += [(path, READ_RIGHTS) for path in system]
    rules += [("/dev/null", FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE)]
    rules += [("/dev/" + name, FS_READ_FILE) for name in ("zero", "random", "urandom")]
    rules.append((scratch, -1))
    if CONFIG.get("shm"):  # a private tmpfs, or a chroot tree's, where each sandbox has a uid
        rules.append((CONFIG["shm"], -1))
    return rules


def build_ruleset(scratch):
    """A Landlock ruleset fd for every call child, or None when the kernel has no Landlock."""
    import ctypes

    lib = libc()
    abi = lib.syscall(SYS_LANDLOCK_CREATE_RULESET, None, 0, LANDLOCK_CREATE_RULESET_VERSION)
    if abi < 1:
        return None
    # Restricting itself needs no_new_privs: set once here, every call child inherits it.
    if lib.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return None
    handled = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1}
    fs_rights = handled.get(abi, (1 << 16) - 1)
    net = NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
    size = 8 if abi < 4 else (16 if abi < 6 else 24)
    attr = ctypes.create_string_buffer(struct.pack("=QQQ", fs_rights, net, scoped)[:size], size)
    ruleset = lib.syscall(SYS_LANDLOCK_CREATE_RULESET, attr, size, 0)
    if ruleset < 0:
        return None
    import stat

    rule = ctypes.create_string_buffer(12)
    add_rule = lib.syscall
    for path, rights in landlock_rules(scratch):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            is_dir = stat.S_ISDIR(os.fstat(fd).st_mode)
            allowed = fs_rights if rights == -1 else rights
            allowed &= fs_rights if is_dir else (fs_rights & FILE_RIGHTS)
            struct.pack_into("=Qi", rule, 0, allowed, fd)
            if add_rule(SYS_LANDLOCK_ADD_RULE, ruleset, LANDLOCK_RULE_PATH_BENEATH, rule, 0):
                _close(ruleset)
                return None
        finally:
            _close(fd)
    return ruleset


def restrict_self(ruleset):
    """Apply the ruleset to this child (no_new_privs is inherited from the server)."""
    if libc().syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0:
        raise OSError("landlock_restrict_self failed")
    _close(ruleset)


# ---------------------------------------------------------------------------------------------
# the child of one call (or of the load)


def run_call(module, request, args, sent):
    """Run the requested function in this process and describe what happened. ``sent``: the
    arguments as they arrived (tagged) when the grader asked for them back (``echo_args``)."""
    name = request["function"]
    function = dict.get(module.__dict__, name)
    if function is None or not callable(function):
        return {"status": "missing"}
    try:
        value = function(*args)
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
            # The arguments as the function left them, so the grader can tell a mutation; when
            # they are as they came, only that is said (the grader holds them already).
            after = to_tagged(list(args), [request["max_items"]])
            if after == sent:
                answer["args_same"] = True
            else:
                answer["args"] = after
        return answer
    except TooLarge as error:
        return {"status": "bad-answer", "error": str(error)}
    except MemoryError:
        return {"status": "memory"}
    except RecursionError:
        return {"status": "bad-answer", "error": "the answer is nested too deeply"}
    except Exception:
        return {"status": "bad-answer", "error": "the answer could not be read"}


BATCH_GOES_ON = ("ok", "exception")
"""Answers after which a batch goes on to its next input: a value, or an exception the
function raised (an answer too; this process is as able to run the next input as after a
value). After any other (out of memory, a ``SystemExit``, an answer that cannot be sent) it
stops, and the grader calls the rest one by one, each in a fresh child."""


def run_batch(module, request, arg_lists, sent):
    """Run the requested function on each input in turn, each answer with its duration;
    stop after the first input whose answer is not in ``BATCH_GOES_ON``."""
    answers = []
    for index, args in enumerate(arg_lists):
        started = _monotonic()
        answer = run_call(module, request, args, None if sent is None else sent[index])
        answer["seconds"] = _monotonic() - started
        answers.append(answer)
        if answer["status"] not in BATCH_GOES_ON:
            break
    return {"status": "batch", "answers": answers}


class FedItems:
    """The lazy argument of a streamed call: an iterator whose items the grader hands over only
    when this call asks for more, so it is the grader that counts how many were read. Before
    each request, whatever the function yielded since the last one is sent, so the grader sees
    every yielded item after the items that had been handed over when it came."""

    def __init__(self, feed_fd, trace_fd, max_items):
        self._feed = feed_fd
        self._trace = trace_fd
        self._held = []
        self._next = 0
        self._ended = False
        self._out = []
        self._budget = [max_items]

    def __iter__(self):
        return self

    def __next__(self):
        if self._next < len(self._held):
            item = self._held[self._next]
            self._held[self._next] = None
            self._next += 1
            return item
        if self._ended:
            raise StopIteration
        self.flush()
        write_frame(self._trace, b'["need"]')
        header = self._read(HEADER.size)
        raw = None if header is None else self._read(HEADER.unpack(header)[0])
        items = [] if raw is None else [from_tagged(item) for item in _loads(raw.decode("utf-8"))]
        if not items:
            self._ended = True
            raise StopIteration
        self._held, self._next = items, 1
        return items[0]

    def _read(self, size):
        return read_waiting(self._feed, size)

    def output(self, value):
        self._out.append(to_tagged(value, self._budget))
        if len(self._out) >= 1024:
            self.flush()

    def flush(self):
        if self._out:
            out, self._out = self._out, []
            write_frame(self._trace, _dumps(["out", out]).encode("utf-8"))


def read_waiting(fd, size):
    """``size`` bytes of the stream pipe ``fd``, waiting for them (the grader keeps its end
    non-blocking, and the pipe's flags are shared); None at its end."""
    chunks = []
    while size:
        try:
            chunk = _read(fd, min(size, 1 << 20))
        except BlockingIOError:
            waiting = _poll()
            waiting.register(fd, select.POLLIN)
            waiting.poll()
            continue
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def run_streamed(module, request, args):
    """A streamed call: the argument at the stream's position is a :class:`FedItems`; the
    function's result is iterated here (up to ``take`` items), each item sent to the grader as
    it comes. The answer itself names only the result's type: what was read and yielded, the
    grader saw on its own side."""
    function = dict.get(module.__dict__, request["function"])
    if function is None or not callable(function):
        return {"status": "missing"}
    stream = request["stream"]
    fed = FedItems(STREAM_FDS[0], STREAM_FDS[1], request["max_items"])
    args[stream["position"]] = fed
    take = stream.get("take")
    try:
        result = function(*args)
        answer = {"status": "ok", "value": {"O": type_name(result)}}
        results = iter(result)
        count = 0
        while take is None or count < take:
            try:
                item = next(results)
            except StopIteration:
                break
            fed.output(item)
            count += 1
        fed.flush()
        return answer
    except MemoryError:
        return {"status": "memory"}
    except SystemExit as error:
        code = error.code if type(error.code) is int else (0 if error.code is None else 1)
        return {"status": "exit", "code": code}
    except TooLarge as error:
        return {"status": "bad-answer", "error": str(error)}
    except BaseException as error:
        try:
            fed.flush()
        except BaseException:
            pass
        return {"status": "exception", "exception": describe_exception(error)}


STREAM_FDS = [-1, -1]  # the lazy argument's pipes: items from the grader, requests to it

SERVES = {}  # served modules: name -> its function names, from the load request
SERVING = [None]  # the stream pipes while a call with served functions runs its function
SERVED_LOCK = _thread.allocate_lock()  # one request at a time, whichever thread asks
RAISED_AS = {"ValueError": ValueError, "TypeError": TypeError, "KeyError": KeyError,
             "IndexError": IndexError}


def install_served():
    """Put a proxy module for each served module in ``sys.modules`` (before the submission
    runs, so that it can import them)."""
    for name, functions in dict.items(SERVES):
        module = ModuleType(name)
        for function in functions:
            setattr(module, function, served_proxy(name, function))
        sys.modules[name] = module


def served_proxy(module, name):
    def proxy(*args, **kwargs):
        return ask_served(module, name, args, kwargs)
    proxy.__name__ = proxy.__qualname__ = name
    proxy.__module__ = module
    return proxy


def ask_served(module, name, args, kwargs):
    """Send the request to the grader and return its answer, or raise its exception."""
    fds = SERVING[0]
    if fds is None:
        raise RuntimeError("%s.%s: served functions answer only inside a test the grader "
                           "runs, not when the file is imported nor anywhere else"
                           % (module, name))
    budget = [2000000]
    try:
        tagged = [to_tagged(arg, budget) for arg in args]
        named = {key: to_tagged(value, budget) for key, value in dict.items(kwargs)}
    except TooLarge as error:
        words = str(error).replace("the answer has", "the arguments have")
        raise ValueError("%s.%s: %s" % (module, name, words.replace("the answer is",
                                                                     "the arguments are")))
    refused = refused_in([tagged, list(dict.values(named))])
    if refused is not None:
        raise TypeError("%s.%s takes plain values only (str, int, float, bool, None, bytes, "
                        "and lists, tuples and dicts of them), not %s" % (module, name, refused))
    with SERVED_LOCK:
        write_frame(fds[1], _dumps(["serve", name, tagged, named]).encode("utf-8"))
        header = read_waiting(fds[0], HEADER.size)
        raw = None if header is None else read_waiting(fds[0], HEADER.unpack(header)[0])
    if raw is None:
        raise RuntimeError("%s.%s got no answer from the grader" % (module, name))
    answer = _loads(raw.decode("utf-8"))
    if answer[0] == "ok":
        return from_tagged(answer[1])
    raise dict.get(RAISED_AS, answer[1], RuntimeError)(answer[2])


def refused_in(node):
    """The type name of the first value in a tagged tree that is not plain, or None."""
    kind = type(node)
    if kind is list:
        items = node
    elif kind is dict:
        ((tag, body),) = dict.items(node)
        if tag == "O":
            return body
        if tag == "U":
            return body[0]
        items = body if tag == "T" else [pair[1] for pair in body] if tag == "D" else ()
    else:
        return None
    for item in items:
        found = refused_in(item)
        if found is not None:
            return found
    return None


def quiet_import(path):
    """Execute the module with stdout and stderr on /dev/null: its import-time output was
    captured once, at load."""
    saved = [os.dup(1), os.dup(2)]
    null = os.open("/dev/null", os.O_WRONLY)
    try:
        _dup2(null, 1)
        _dup2(null, 2)
        try:
            return execute_module(path)
        finally:
            flush_output()
            _dup2(saved[0], 1)
            _dup2(saved[1], 2)
    finally:
        for fd in [null] + saved:
            _close(fd)


def enter_call(request, workdir, seconds):
    """Limits, Landlock and the private directory, before any student code runs."""
    os.setpgid(0, 0)
    limit = max(1, int(math.ceil(seconds)) + 1)
    _setrlimit(resource.RLIMIT_CPU, (limit, limit))
    memory = CONFIG.get("memory_bytes")
    if memory and hasattr(resource, "RLIMIT_AS"):
        _setrlimit(resource.RLIMIT_AS, (memory, memory))
    processes = CONFIG.get("nproc")
    if processes:
        _setrlimit(resource.RLIMIT_NPROC, (processes, processes))
    if RULESET[0] is not None:
        restrict_self(RULESET[0])
    os.chdir(workdir)
    for key in ("HOME", "TMPDIR"):
        os.environ[key] = workdir


def child_main(request, answer_fd, channel_fds, workdir, submission):
    """Body of a forked child (of a call, or the load when ``request`` is None): never returns."""
    try:
        args = sent = None
        if request is not None:
            raw = read_frame(channel_fds[0], MAX_REQUEST_BYTES)
            tagged = _loads(raw.decode("utf-8"))
            if request.get("batch") is True:
                args = [[from_tagged(arg) for arg in one] for one in tagged]
            else:
                args = [from_tagged(arg) for arg in tagged]
            if request.get("echo_args") is True:  # kept to tell whether a call changed them
                sent = tagged
            del tagged
        streamed = request is not None and type(request.get("stream")) is dict
        served = request is not None and request.get("served") is True
        for fd in channel_fds + (() if streamed or served else tuple(STREAM_FDS)):
            if fd >= 0:
                _close(fd)
        if request is None:
            enter_call(None, workdir, CONFIG.get("timeout", 1))
            reply = load_in_child(submission)
        else:
            enter_call(request, workdir, request["timeout"])
            try:
                module = quiet_import(submission)
            except MemoryError:
                reply = {"status": "memory"}
            except SystemExit as error:
                code = error.code if type(error.code) is int else (0 if error.code is None else 1)
                reply = {"status": "exit", "code": code}
            except BaseException as error:
                reply = {"status": "exception", "exception": describe_exception(error)}
            else:
                if request.get("batch") is True:
                    reply = run_batch(module, request, args, sent)
                elif streamed:
                    reply = run_streamed(module, request, args)
                else:
                    if served:  # armed only now: at import time they refuse
                        SERVING[0] = (STREAM_FDS[0], STREAM_FDS[1])
                    reply = run_call(module, request, args, sent)
        flush_output()
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


# ---------------------------------------------------------------------------------------------
# the server's side of one call


class Answer:
    """A child's answer frame in a buffer mapped for this call only (unmapped by ``close``),
    so nothing of one call's answer stays in the memory the next child is forked from."""

    def __init__(self, max_bytes):
        self.limit = max_bytes + 4096
        self.buffer = mmap.mmap(-1, self.limit + HEADER.size)
        self.view = memoryview(self.buffer)
        self.filled = 0
        self.needed = None

    def payload(self):
        return self.view[HEADER.size:self.needed]

    def close(self):
        self.view.release()
        self.buffer.close()


def fork_child(request, reply_fd, channel_fds, submission):
    """Fork a child for the load (``request`` None) or one call; relay its answer, then kill
    and reap it and everything it started, and empty the scratch directory."""
    SERIAL[0] += 1
    workdir = os.path.join(CONFIG["scratch"], "c%d" % SERIAL[0])
    os.mkdir(workdir, 0o700)
    max_bytes = request["max_bytes"] if request is not None else 1 << 20
    # A call's limit covers executing the module again: the import is charged where it runs.
    seconds = request["timeout"] if request is not None else CONFIG.get("timeout", 1)
    read_fd, write_fd = _pipe()
    started = _monotonic()
    pid = _fork()
    if pid == 0:
        _close(read_fd)
        child_main(request, write_fd, channel_fds, workdir, submission)
    _close(write_fd)
    answer = Answer(max_bytes)
    try:
        how = collect_answer(read_fd, answer, pid, started + seconds, channel_fds[0])
        if how == "answer":
            kill_group(pid)
            if request is not None and request.get("early_reply") is True:
                # The grader measures CPU time in a cgroup, or does not need it: answer now,
                # reap afterwards (the next request is read only once every process of this
                # call is gone).
                kill_strays(SERVER["is_init"])
                send_call_reply(reply_fd, request, how, None, None, answer)
                reap(pid, SERVER["is_init"])
                return
        elif how != "no-answer" or not exits_soon(pid):
            kill_group(pid)  # a child that closed its answer pipe but runs on is killed too
        status, cpu = reap(pid, SERVER["is_init"])
        if how == "abandoned":
            _exit(0)
        if request is None:
            send_load_reply(reply_fd, how, status, answer)
        else:
            send_call_reply(reply_fd, request, how, status, cpu, answer)
    finally:
        _close(read_fd)
        answer.close()
        clear_scratch(workdir)


def send_call_reply(reply_fd, request, how, status, cpu, answer):
    reply = {"id": request["id"]}
    if cpu is not None:
        reply["cpu"] = cpu
    if how == "answer":
        # Splice the child's answer (already JSON) into the envelope without decoding it here.
        envelope = _dumps(reply).encode("utf-8")[:-1] + b',"answer":'
        payload = answer.payload()
        write_all(reply_fd, HEADER.pack(len(envelope) + len(payload) + 1))
        write_all(reply_fd, envelope)
        write_all(reply_fd, payload)
        write_all(reply_fd, b"}")
        payload.release()
        return
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
    send(reply_fd, reply)


LOAD_FIELDS = ("status", "functions", "error", "code", "exception")


def send_load_reply(reply_fd, how, status, answer):
    reply = {}
    if how == "answer":
        payload = answer.payload()
        try:
            found = _loads(bytes(payload).decode("utf-8"))
        except BaseException:
            found = None
        payload.release()
        if type(found) is dict:
            preload(found.get("modules"))
            reply = {key: found[key] for key in LOAD_FIELDS if key in found}
            if PARTS[0] is not None and reply.get("status") == "loaded":
                # The cells that did not compile, as the server found them; then the ones
                # that raised, as the load child saw them run.
                ran = found.get("failed_parts")
                reply["failed_parts"] = PARTS_UNCOMPILED[:MAX_FAILED_PARTS] + (
                    ran[:MAX_FAILED_PARTS] if type(ran) is list else [])
        else:
            reply = {"status": "load-error", "error": "its import sent a malformed answer"}
    elif how == "timeout":
        reply["status"] = "load-timeout"
    elif how == "too-large":
        reply = {"status": "load-error", "error": "its import sent an answer over 1 MiB"}
    elif os.WIFSIGNALED(status):
        reply = {"status": "load-signal", "signal": os.WTERMSIG(status)}
    else:
        reply = {"status": "load-exit",
                 "code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1}
    reply["id"] = CONFIG["load_id"]
    send(reply_fd, reply)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[_write(fd, view):]


def reap(pid, is_init):
    """Wait for the child, then remove and reap whatever it left running. Returns its wait
    status and the CPU seconds of every process reaped (the kernel's figures, via wait4)."""
    _, status, usage = _wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    kill_group(pid)
    deadline = _monotonic() + 2.0
    while True:
        kill_strays(is_init)
        try:
            stray, _, usage = _wait4(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if stray == 0:
            if _monotonic() > deadline:
                _exit(NOT_CLEARED)  # cannot clear the call's processes: stop, not serve on
            time.sleep(0.0005)
            continue
        cpu += usage.ru_utime + usage.ru_stime
    return status, cpu


def clear_scratch(workdir):
    """Remove the call's directory and anything else the call left in the scratch directory
    (and this uid's files in /dev/shm). Where something cannot be removed the server stops
    rather than serve the next call beside it; the grader then empties SCRATCH itself."""
    try:
        os.rmdir(workdir)  # the common case, a call that left nothing: one system call
    except OSError:
        pass
    try:
        empty_directory(CONFIG["scratch"])
        if CONFIG.get("shm"):
            empty_directory(CONFIG["shm"], own_only=CONFIG.get("shm_shared", False))
    except (OSError, RemovalFailed):
        _exit(NOT_CLEARED)


class RemovalFailed(Exception):
    pass


DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
OPEN_LEVELS = 8


def empty_directory(path, own_only=False):
    """Remove everything under ``path`` (all of it belongs to this uid), keeping ``path``;
    with ``own_only``, only what this uid owns (a directory other sandboxes use too)."""
    fd = os.open(path, DIRECTORY_FLAGS & ~os.O_NOFOLLOW)
    try:
        with os.scandir(fd) as entries:
            names = [entry.name for entry in entries]
        for name in names:
            if not own_only or _owner(fd, name) == os.getuid():
                remove_entry(fd, name)
    finally:
        _close(fd)


def remove_entry(parent_fd, name):
    """Remove the entry ``name`` of the directory ``parent_fd`` whatever its shape: one
    directory descriptor open per level near the bottom, names relative to it, an explicit
    stack instead of recursion, ``..`` checked to lead back to the directory it left. The same
    walk as the grader's ``grader.sandbox.tree_removal``; change both together."""
    if _unlinked(parent_fd, name):
        return
    fd = _enter(parent_fd, name)
    if fd is None:
        return
    levels = [_level(name, fd)]  # [name, fd or -1, (device, inode), pending subdirectories]
    try:
        while levels:
            level = levels[-1]
            if not level[3]:
                level[3] = _subdirectories(level[1])
                if not level[3]:
                    levels.pop()
                    above = _reopened(levels[-1], level) if levels else parent_fd
                    _close(level[1])
                    level[1] = -1
                    try:
                        os.rmdir(level[0], dir_fd=above)
                    except FileNotFoundError:
                        pass
                    continue
            child = level[3].pop()
            fd = _enter(level[1], child)
            if fd is None:
                continue
            levels.append(_level(child, fd))
            if len(levels) > OPEN_LEVELS:
                far = levels[-OPEN_LEVELS - 1]
                if far[1] >= 0:
                    _close(far[1])
                    far[1] = -1
    finally:
        for level in levels:
            if level[1] >= 0:
                _close(level[1])


def _owner(dir_fd, name):
    try:
        return os.lstat(name, dir_fd=dir_fd).st_uid
    except FileNotFoundError:
        return None


def _level(name, fd):
    info = os.fstat(fd)
    return [name, fd, (info.st_dev, info.st_ino), []]


def _is_directory(mode):
    return mode & 0o170000 == 0o040000


def _unlinked(dir_fd, name):
    try:
        os.unlink(name, dir_fd=dir_fd)
        return True
    except FileNotFoundError:
        return True
    except OSError:
        pass
    try:
        if _is_directory(os.lstat(name, dir_fd=dir_fd).st_mode):
            return False
    except FileNotFoundError:
        return True
    raise RemovalFailed(name)


def _enter(dir_fd, name):
    try:
        fd = os.open(name, DIRECTORY_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except PermissionError:  # a directory this uid locked: it may unlock it
        before = os.lstat(name, dir_fd=dir_fd)
        if not _is_directory(before.st_mode):
            raise RemovalFailed(name)
        os.chmod(name, 0o700, dir_fd=dir_fd)
        fd = os.open(name, DIRECTORY_FLAGS, dir_fd=dir_fd)
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
            _close(fd)
            raise RemovalFailed(name)
    info = os.fstat(fd)
    if info.st_mode & 0o700 != 0o700 and info.st_uid == os.geteuid():
        os.fchmod(fd, (info.st_mode & 0o7777) | 0o700)
    return fd


def _subdirectories(dir_fd):
    found = []
    with os.scandir(dir_fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False) or not _unlinked(dir_fd, entry.name):
                found.append(entry.name)
    return found


def _reopened(level, below):
    if level[1] < 0:
        fd = os.open("..", DIRECTORY_FLAGS & ~os.O_NOFOLLOW, dir_fd=below[1])
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != level[2]:
            _close(fd)
            raise RemovalFailed(level[0])
        level[1] = fd
    return level[1]


def collect_answer(fd, answer, pid, deadline, request_fd):
    """Read one framed answer from the child into ``answer``.

    Returns "answer", "timeout", "too-large", "no-answer" (the child is gone without a
    complete answer) or "abandoned" (the grader closed the request pipe: stop serving).
    """
    poller = _poll()
    poller.register(fd, select.POLLIN | select.POLLHUP)
    poller.register(request_fd, select.POLLHUP)  # the child reads the arguments from it
    child_gone = False
    while True:
        if answer.needed is not None and answer.filled >= answer.needed:
            return "answer"
        remaining = deadline - _monotonic()
        if remaining <= 0:
            return "timeout"
        events = poller.poll(min(remaining, 0.05 if child_gone else 0.25) * 1000)
        if not events:
            if child_gone:
                return "no-answer"
            child_gone = child_exited(pid)
            continue
        if any(ready == request_fd for ready, _ in events):
            return "abandoned"
        if answer.filled >= len(answer.view):
            return "too-large"
        count = os.readv(fd, [answer.view[answer.filled:]])
        if not count:
            return "no-answer"
        answer.filled += count
        if answer.needed is None and answer.filled >= HEADER.size:
            (size,) = HEADER.unpack_from(answer.buffer, 0)
            if size > answer.limit:
                return "too-large"
            answer.needed = HEADER.size + size


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
    elif CONFIG.get("own_uid"):
        try:
            _kill(-1, signal.SIGKILL)  # every process of this uid but the server is the call's
        except OSError:
            pass
    elif SUBREAPER[0]:
        for pid in adopted_children():
            try:
                _kill(pid, signal.SIGKILL)
            except OSError:
                pass


def become_subreaper():
    """Outside a PID namespace (Linux): adopt orphans, so a detached process stays findable;
    and stop being dumpable, so processes of the same uid cannot read this one's memory."""
    try:
        lib = libc()
        SUBREAPER[0] = lib.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        lib.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
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

SERVER = {"is_init": False}


def serve(request_fd, reply_fd, submission):
    channel_fds = (request_fd, reply_fd)
    while True:
        raw = read_frame(request_fd, MAX_REQUEST_BYTES)
        if raw is None:
            return
        request = _loads(raw.decode("utf-8"))
        op = request["op"]
        if op == "load":
            load(request, reply_fd, channel_fds, submission)
        elif op == "call":
            if CODE[0] is None:
                read_frame(request_fd, MAX_REQUEST_BYTES)  # the arguments: nobody to run them
                send(reply_fd, {"id": request["id"], "status": "missing"})
                continue
            fork_child(request, reply_fd, channel_fds, submission)
        else:
            send(reply_fd, {"id": request["id"], "status": "unknown-op"})


def load(request, reply_fd, channel_fds, submission):
    CONFIG.update(memory_bytes=request.get("memory_bytes"), nproc=request.get("nproc"),
                  timeout=request.get("timeout", 10), load_id=request["id"],
                  parts=checked_parts(request.get("parts")))
    SERVES.clear()
    SERVES.update(checked_serves(request.get("serves")))
    memory = CONFIG.get("memory_bytes")
    if memory and hasattr(resource, "RLIMIT_AS"):
        try:
            _setrlimit(resource.RLIMIT_AS, (memory, memory))  # compiling a huge file, too
        except (ValueError, OSError):
            pass
    failed = compile_submission(submission)
    if failed is not None:
        failed["id"] = request["id"]
        send(reply_fd, failed)
        return
    if request.get("landlock") is True:
        RULESET[0] = build_ruleset(CONFIG["scratch"])
        if RULESET[0] is None:
            send(reply_fd, {"id": request["id"], "status": "load-error",
                            "error": "the sandbox could not set up its Landlock rules"})
            CODE[0] = None
            return
    fork_child(None, reply_fd, channel_fds, submission)


def checked_parts(parts):
    """The load request's parts (``[first, last]`` line pairs), or None to run the file whole."""
    if type(parts) is not list or len(parts) > MAX_PARTS:
        return None
    for part in parts:
        if (type(part) is not list or len(part) != 2 or type(part[0]) is not int
                or type(part[1]) is not int or not 1 <= part[0] <= part[1]):
            return None
    return [(part[0], part[1]) for part in parts]


def checked_serves(serves):
    """The load request's served modules (name -> function names), or none."""
    if type(serves) is not dict:
        return {}
    return {name: [function for function in functions if type(function) is str]
            for name, functions in dict.items(serves)
            if type(name) is str and type(functions) is list}


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
    request_fd, reply_fd, submission, scratch = int(argv[1]), int(argv[2]), argv[3], argv[4]
    flags = set(argv[5:])
    SUBMISSION_LABEL[0] = os.path.basename(submission)
    CONFIG["scratch"] = scratch
    CONFIG["shm"] = "/dev/shm" if flags & {"--private-shm", "--shared-shm"} else None
    CONFIG["shm_shared"] = "--shared-shm" in flags
    CONFIG["own_uid"] = "--own-uid" in flags
    for flag in flags:
        if flag.startswith("--stream="):
            STREAM_FDS[:] = [int(fd) for fd in flag[len("--stream="):].split(",")]
    imports = os.path.join(os.path.dirname(os.path.abspath(__file__)), "imports")
    if os.path.isdir(imports):  # the exercise's allowed third-party modules, copied here
        sys.path.append(imports)
        if "--preload-allowed" in flags:  # their files are read-only to every call
            ALLOWED_MODULES.update(name.split(".")[0] for name in os.listdir(imports)
                                   if name.isidentifier() or name.endswith((".py", ".so")))
    if "--init" in flags:
        become_namespace_init()
        SERVER["is_init"] = os.getpid() == 1
    elif "--subreaper" in flags:
        become_subreaper()
    serve(request_fd, reply_fd, os.path.abspath(submission))


if __name__ == "__main__":
    main(sys.argv)
