"""Do-nothing WordPiece submissions: what a file returns without training or comparing.

The training bodies are character BPE's (:mod:`grader.families.bpe.do_nothing`): a WordPiece
trainer that does nothing looks like a BPE trainer that does nothing. The divergence bodies:
``empty`` says the two never part (``None``), ``constant`` gives the same step and pairs
whatever the corpus, ``identity`` parts at step 1 on the first word's first pair, both sides
alike, and ``echo`` gives the first word's first two adjacent pairs as the two picks. They
are graded by ``grade audit`` (none may earn a point) and, on the trusted side, tell which
right answers are no evidence of work.
"""

from __future__ import annotations

from typing import Any

from grader.families.bpe.do_nothing import CHARACTER_BPE, DoNothing
from grader.families.api import Exercise

TRAIN, DIVERGENCE = "train_wordpiece", "first_divergence"

_FIRST_SYMBOLS = (
    "words = list(corpus) if isinstance(corpus, dict) else "
    "[w for text in corpus for w in text.split()]\n"
    "    symbols = list(words[0]) + _MARK if words else []\n"
)

_DIVERGENCE = {
    "empty": "return None",
    "constant": 'return (1, ("a", "b"), ("a", "b"))',
    "identity": (_FIRST_SYMBOLS
                 + "    pair = tuple(symbols[:2])\n"
                 "    return (1, pair, pair) if len(pair) == 2 else None"),
    "echo": (_FIRST_SYMBOLS
             + "    pairs = list(zip(symbols, symbols[1:]))\n"
             "    return (1, pairs[0], pairs[-1]) if pairs else None"),
}

WORDPIECE = DoNothing(
    bodies={kind: {TRAIN: CHARACTER_BPE.bodies[kind]["train"], DIVERGENCE: _DIVERGENCE[kind]}
            for kind in CHARACTER_BPE.kinds},
    parameters={TRAIN: "corpus, num_merges", DIVERGENCE: "corpus, num_merges"},
)
sources = WORDPIECE.sources


def trivial_answer(exercise: Exercise, role: str, inputs: tuple, expected: Any) -> bool:
    """Whether ``expected``, the right answer of ``role`` on ``inputs`` (``(corpus,
    num_merges)``), is what a do-nothing implementation returns: no merges, no divergence,
    or one of the answers above."""
    if not expected:
        return True
    return any(_same(WORDPIECE.answer(exercise, kind, role, *inputs), expected)
               for kind in WORDPIECE.kinds)


def _same(answer: Any, expected: Any) -> bool:
    def plain(value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return tuple(plain(item) for item in value)
        return value
    return plain(answer) == plain(expected)
