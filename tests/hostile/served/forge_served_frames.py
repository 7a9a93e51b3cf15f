"""A test file that writes its own frames on the pipes its served functions use.

The pipes' numbers are on the worker's command line (``--stream=ANSWERS,REQUESTS``). Each
function forges something different: an answer written into its own answer pipe before it
asks, a request carrying a made-up answer, bytes that are no frame at all, a well-formed request
sent without waiting for its answer.
"""
import json
import os
import struct
import sys

from bpe import train_bpe


def _pipes():
    (flag,) = [arg for arg in sys.argv if arg.startswith("--stream=")]
    answers, requests = (int(fd) for fd in flag[len("--stream="):].split(","))
    return answers, requests


def _frame(message):
    payload = json.dumps(message).encode()
    return struct.pack(">I", len(payload)) + payload


def forge_an_answer():
    """Writes the answer it wants into its own answer pipe (reopened for writing), then asks."""
    answers, _ = _pipes()
    try:  # where the sandbox has a /proc at all
        writer = os.open("/proc/self/fd/%d" % answers, os.O_WRONLY)
        os.write(writer, _frame(["ok", [["FORGED", "ANSWER"]]]))
        os.close(writer)
        forged = True
    except OSError:
        forged = False
    return [forged, train_bpe(["low lower lowest"], 2)]


def forge_a_request_with_its_answer():
    _, requests = _pipes()
    os.write(requests, _frame(["serve", "train_bpe", [["low"], 1], {}, [["FORGED", "ANSWER"]]]))
    return train_bpe(["low"], 1)


def forge_garbage():
    _, requests = _pipes()
    os.write(requests, struct.pack(">I", 5) + b"hello")
    return train_bpe(["low"], 1)


def forge_a_request_and_leave():
    _, requests = _pipes()
    os.write(requests, _frame(["serve", "train_bpe", [["sent by hand"], 1], {}]))
    return "left"


def forge_an_unknown_function():
    _, requests = _pipes()
    os.write(requests, _frame(["serve", "catalogue", [], {}]))
    return train_bpe(["low"], 1)
