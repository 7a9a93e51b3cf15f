"""Do-nothing byte-level submissions: what a file returns without training or merging.

- ``empty``: no vocabulary and no merges, no ids, no text;
- ``constant``: the same answer whatever the input;
- ``identity``: nothing learned, nothing merged: the special tokens and the 256 single bytes,
  each text's (and each line's) bytes as ids one by one, the ids as characters;
- ``echo``: the input handed back: the text's first adjacent bytes as merges (no counting),
  the raw byte values as ids (of a text, or of each line), the ids' printed list as text.

They are graded by ``grade audit`` (none may earn a point) and, run on the trusted side, tell
which right answers are no evidence of work (:func:`trivial_answer`).
"""

from __future__ import annotations

from typing import Any

from grader.families.bpe.do_nothing import DoNothing
from grader.families.api import Exercise

TRAIN, ENCODE, DECODE = "train_byte_bpe", "encode_byte_bpe", "decode_byte_bpe"
ITERABLE = "encode_iterable_byte_bpe"

_SINGLE_BYTES = ("tokens = [s.encode('utf-8') for s in special_tokens] "
                 "+ [bytes([i]) for i in range(256)]\n")

BYTE_LEVEL = DoNothing(
    bodies={
        "empty": {TRAIN: "return {}, []", ENCODE: "return []", DECODE: 'return ""',
                  ITERABLE: "yield from ()"},
        "constant": {TRAIN: 'return {0: b"a"}, [(b"a", b"b")]', ENCODE: "return [0]",
                     DECODE: 'return "a"', ITERABLE: "yield 0"},
        "identity": {
            TRAIN: _SINGLE_BYTES + "    return dict(enumerate(tokens)), []",
            ENCODE: ("index = {token: i for i, token in vocab.items()}\n"
                     "    return [index[bytes([b])] for b in text.encode('utf-8') "
                     "if bytes([b]) in index]"),
            DECODE: 'return "".join(chr(i % 0x110000) for i in ids)',
            ITERABLE: ("index = {token: i for i, token in vocab.items()}\n"
                       "    for line in lines:\n"
                       "        yield from (index[bytes([b])] for b in line.encode('utf-8') "
                       "if bytes([b]) in index)"),
        },
        "echo": {
            TRAIN: (_SINGLE_BYTES
                    + "    data = text.encode('utf-8')\n"
                    "    room = max(0, vocab_size - len(tokens))\n"
                    "    merges = [(data[i:i + 1], data[i + 1:i + 2]) "
                    "for i in range(len(data) - 1)][:room]\n"
                    "    return dict(enumerate(tokens + [a + b for a, b in merges])), merges"),
            ENCODE: "return list(text.encode('utf-8'))",
            DECODE: "return str(ids)",
            ITERABLE: "for line in lines:\n        yield from line.encode('utf-8')",
        },
    },
    parameters={TRAIN: "text, vocab_size, special_tokens",
                ENCODE: "text, vocab, merges, special_tokens", DECODE: "ids, vocab",
                ITERABLE: "lines, vocab, merges, special_tokens"},
)
sources = BYTE_LEVEL.sources


def trivial_answer(exercise: Exercise, role: str, inputs: tuple, expected: Any) -> bool:
    """Whether ``expected``, the right answer of ``role`` on ``inputs`` (the role's arguments
    in order), is what one of the do-nothing implementations above also returns: training
    compared by its set of tokens and its merges, as the cases are judged."""
    for kind in BYTE_LEVEL.kinds:
        try:
            answer = BYTE_LEVEL.answer(exercise, kind, role, *inputs)
            if role == ITERABLE:
                answer = list(answer)
        except Exception:  # a do-nothing answer that cannot be computed here matches nothing
            continue
        if role == TRAIN:
            if (sorted(answer[0].values()), list(answer[1])) == (sorted(expected[0].values()),
                                                                  list(expected[1])):
                return True
        elif answer == expected:
            return True
    return False
