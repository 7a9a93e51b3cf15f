"""A test file that looks for the served implementations everywhere a test can reach.

``spy(reversed_needles, paths)`` searches for each needle (passed reversed, so that the needles
themselves are not in this process's memory) in the files at ``paths``, in the modules it can
import, in the source, code, closure and globals of the served proxies, in every object the
garbage collector knows, and in the command line, environment and memory of every process it
can see; it answers where it found one, and which imports and files it could open at all.
"""
import gc
import importlib
import inspect
import os
import sys

import bpe
from bpe import train_bpe

MEMORY_CAP = 512 << 20


def _hits(text, reversed_needles):
    if type(text) is bytes:
        text = text.decode("latin-1")
    if type(text) is not str:
        return False
    backwards = text[::-1]
    return any(needle in backwards for needle in reversed_needles)


def spy(reversed_needles, paths):
    byte_needles = [needle.encode("latin-1") for needle in reversed_needles]
    found = []
    opened = [path for path in paths if _readable(path)]
    for path in opened:
        with open(path, "rb") as handle:
            if _hits(handle.read(), reversed_needles):
                found.append("file " + path)
    imported = []
    for name in ("reference", "reference.plain", "grader", "grader.families.bpe.catalogue",
                 "grader.sandbox.served"):
        try:
            importlib.import_module(name)
            imported.append(name)
        except BaseException:
            pass
    imported += [name for name in sys.modules if name.split(".")[0] in ("reference", "grader")]
    for function in (train_bpe, bpe.encode):
        try:
            if _hits(inspect.getsource(function), reversed_needles):
                found.append("getsource")
        except BaseException:
            pass
        code = function.__code__
        for value in code.co_consts + code.co_names + (code.co_filename,):
            if _hits(value, reversed_needles):
                found.append("code")
        for cell in function.__closure__ or ():
            if _hits(repr(cell.cell_contents), reversed_needles):
                found.append("closure")
        for key, value in list(function.__globals__.items()):
            if _hits(key, reversed_needles) or _hits(repr(value)[:100000], reversed_needles):
                found.append("globals " + key)
    for value in gc.get_objects():
        items = ()
        if type(value) is dict:
            items = list(value.keys()) + list(value.values())
        elif type(value) in (list, tuple, set, frozenset):
            items = list(value)
        elif type(value).__name__ == "function":
            items = list(value.__code__.co_consts) + [value.__doc__]
        for item in items:
            if _hits(item, reversed_needles):
                found.append("gc")
                break
    for pid in _pids():
        for part in ("cmdline", "environ"):
            try:
                with open("/proc/%s/%s" % (pid, part), "rb") as handle:
                    if _hits(handle.read(), reversed_needles):
                        found.append("%s of a process" % part)
            except OSError:
                pass
        if _memory_hits(pid, byte_needles):
            found.append("memory of a process")
    return {"found": sorted(set(found)), "imported": sorted(set(imported)), "opened": opened}


def _readable(path):
    try:
        with open(path, "rb") as handle:
            handle.read(1)
        return True
    except OSError:
        return False


def _pids():
    try:
        return sorted(int(name) for name in os.listdir("/proc") if name.isdigit()
                      and int(name) != os.getpid())
    except OSError:
        return []


def _memory_hits(pid, byte_needles):
    try:
        with open("/proc/%s/maps" % pid) as handle:
            regions = handle.read().splitlines()
        memory = os.open("/proc/%s/mem" % pid, os.O_RDONLY)
    except OSError:
        return False
    read = 0
    try:
        for line in regions:
            span, permissions = line.split()[:2]
            if not permissions.startswith("r"):
                continue
            start, end = (int(part, 16) for part in span.split("-"))
            while start < end and read < MEMORY_CAP:
                size = min(1 << 20, end - start)
                try:
                    chunk = os.pread(memory, size, start)
                except OSError:
                    break
                read += len(chunk)
                backwards = chunk[::-1]
                if any(needle in backwards for needle in byte_needles):
                    return True
                start += max(len(chunk), 1) - 256 if len(chunk) > 256 else size
    finally:
        os.close(memory)
    return False
