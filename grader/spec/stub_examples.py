"""Doctest examples in the stub for the roles beyond BPE's three, keyed by role.

:mod:`grader.spec.stubs` asks here first: each entry turns one public case into the doctest
blocks of one function, with expected values from the reference (``train_wordpiece``: the
merge list; ``first_divergence``: the step and both pairs, or None).
"""

from __future__ import annotations

from collections.abc import Callable
from grader.spec import Case, Exercise
from grader.spec.byte_expected import case_text, expected_ids, reference_byte_bpe, vocab_size
from grader.spec.expected import reference_divergence, reference_wordpiece


def _wordpiece(exercise: Exercise, name: str, case: Case, statement: Callable, call: Callable) -> list[str]:
    merges = reference_wordpiece(exercise, case)
    return [statement("corpus", case.corpus) + call(f"{name}(corpus, {case.num_merges})", merges)]


def _divergence(exercise: Exercise, name: str, case: Case, statement: Callable, call: Callable) -> list[str]:
    found = reference_divergence(exercise, case)
    text = statement("corpus", case.corpus)
    if found is None:
        return [text + f"\n>>> print({name}(corpus, {case.num_merges}))\nNone"]
    return [text + call(f"{name}(corpus, {case.num_merges})", found)]


def _byte_setup(exercise: Exercise, case: Case, statement: Callable) -> str:
    train = exercise.function("train_byte_bpe").name if exercise.functions.train_byte_bpe else "train_bpe"
    return (statement("text", case_text(case)) + "\n"
            + statement("special_tokens", list(case.special_tokens))
            + f"\n>>> vocab, merges = {train}(text, {vocab_size(case)}, special_tokens)")


def _byte_train(exercise: Exercise, name: str, case: Case, statement: Callable, call: Callable) -> list[str]:
    vocab, merges = reference_byte_bpe(case)
    return [_byte_setup(exercise, case, statement) + call("merges", merges)
            + call("len(vocab)", len(vocab))]


def _byte_encode(exercise: Exercise, name: str, case: Case, statement: Callable, call: Callable) -> list[str]:
    if not case.encode:
        return []
    vocab, _ = reference_byte_bpe(case)
    lines = [_byte_setup(exercise, case, statement)]
    for item in case.encode:
        tokens = [vocab[i] for i in expected_ids(case, item.word)]
        lines.append(call(f"[vocab[i] for i in {name}({item.word!r}, vocab, merges, special_tokens)]",
                          tokens).lstrip("\n"))
    return ["\n".join(lines)]


def _byte_decode(exercise: Exercise, name: str, case: Case, statement: Callable, call: Callable) -> list[str]:
    if not case.encode:
        return []
    encode = exercise.function("encode_byte_bpe").name if exercise.functions.encode_byte_bpe else "encode"
    lines = [_byte_setup(exercise, case, statement)]
    for item in case.encode:
        lines.append(call(f"{name}({encode}({item.word!r}, vocab, merges, special_tokens), vocab)",
                          item.word).lstrip("\n"))
    return ["\n".join(lines)]


EXAMPLES: dict[str, Callable[..., list[str]]] = {
    "train_wordpiece": _wordpiece,
    "first_divergence": _divergence,
    "train_byte_bpe": _byte_train,
    "encode_byte_bpe": _byte_encode,
    "decode_byte_bpe": _byte_decode,
}


def byte_conventions(exercise: Exercise) -> list[str]:
    """The conventions of a byte-level exercise, one sentence each (replacing BPE's)."""
    return [
        "Text: special tokens are cut out first (the longer one where two start at the same "
        "place); each piece between them is pre-tokenized with GPT-2's pattern.",
        "Tokens: bytes, never str; a pre-token starts as its UTF-8 bytes, one token per byte.",
        "Ties: when pairs share the highest count, merge the greater pair of bytes, "
        "max(counts, key=lambda p: (counts[p], p)) (rule 'reverse-lexicographic').",
        "Vocabulary: ids 0..n-1 for the special tokens, the 256 single bytes and one token per "
        "merge; which id a token gets is up to you, the merges' order is not.",
        "Decoding: join the tokens' bytes, then decode once with errors='replace'.",
        "Inputs: do not modify the arguments you receive.",
        f"Time: each call must finish within {exercise.limits.call_seconds:g} seconds.",
    ]


def examples(exercise: Exercise, role: str, name: str, case: Case, statement: Callable,
             call: Callable) -> list[str]:
    """The doctest blocks for ``role`` from ``case``."""
    return EXAMPLES[role](exercise, name, case, statement, call)


__all__ = ["EXAMPLES", "examples"]
