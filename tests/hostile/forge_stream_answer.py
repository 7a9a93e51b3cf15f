"""An eager encode_iterable that writes a lazy-looking answer frame of its own and exits.

On every descriptor it can write it sends a length-prefixed frame claiming a generator whose
first id came after one line was read, with the right ids, then exits before the grader's own
code can answer. Its test appends it to a correct byte-level solution (``encode`` is that
solution's); alone it loads and defines no graded function. Of a long stream it encodes
only the start, so it answers within the time limit even on a busy machine.
"""
import json
import os
import struct

SHORT = 10_000  # characters of the text encoded


def encode_iterable(lines, vocab, merges, special_tokens):
    text = "".join(lines)
    ids = encode(text[:SHORT], vocab, merges, special_tokens)  # noqa: F821 - the solution's
    report = {"D": [["type", "generator"], ["iterator", True], ["read_at_first", 1],
                    ["ids", ids], ["lines", 1]]}
    payload = json.dumps({"status": "ok", "value": report}).encode()
    for fd in list(range(3, 64)):
        try:
            os.write(fd, struct.pack(">I", len(payload)) + payload)
        except OSError:
            pass
    os._exit(0)
