"""Byte-level BPE training step by step: the merge runs of :mod:`grader.families.bpe.steps`
over the case's pre-tokens as single bytes, each pair counted as CS336 counts it and ties
going to the greater pair of bytes. Bytes are written readably: printable ASCII as it is, a
space as ``␣``, any other byte as ``\\xNN``."""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional, Sequence

from grader.families.bpe.steps import MergeRule, merge_steps
from reference.byte_level import pretokenize, train_byte_bpe
from reference.plain import count_pairs

RULE = "greater pair of bytes"
RULE_TEXT = "of the pairs with the highest count, the greater (bytes, bytes) tuple"


def readable(token: bytes) -> str:
    return "".join("␣" if byte == 0x20 else chr(byte) if 0x21 <= byte < 0x7F and byte != 0x5C
                   else f"\\x{byte:02x}" for byte in token)


BYTE_RULE = MergeRule(values=count_pairs, tied=lambda pairs: sorted(pairs, reverse=True),
                      symbol=readable, value_text=lambda pair, values, words: str(values[pair]),
                      value_name="count", rule=RULE, rule_text=RULE_TEXT)


def byte_words(text: str, special_tokens: Sequence[str]) -> dict[tuple, int]:
    frequencies = Counter(pretokenize(text, list(special_tokens)))
    return {tuple(bytes([value]) for value in pretoken.encode("utf-8")): count
            for pretoken, count in frequencies.items()}


def training_steps(text: str, special_tokens: Sequence[str], reference: Sequence,
                   student: Optional[Sequence]) -> dict[str, Any]:
    return merge_steps(byte_words(text, special_tokens), reference, student, BYTE_RULE,
                       title="Byte-level training, merge by merge")


def trace(exercise: Any, corpus: Any, num_merges: int) -> dict[str, Any]:
    """``grade trace --html``: the reference's run alone on the texts joined by spaces."""
    text = " ".join(corpus) if isinstance(corpus, list) else " ".join(
        " ".join([word] * count) for word, count in dict(corpus).items())
    _, merges = train_byte_bpe(text, 256 + num_merges)
    return training_steps(text, (), merges, None)
