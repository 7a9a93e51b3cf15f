"""What a byte-level stub says: CS336's conventions, and each role's doctests in bytes.

The conventions replace BPE's (text cut at special tokens, GPT-2's pre-tokenizer, bytes,
ties to the greater pair of bytes); the doctests train on a public case's text and show the
merges, the tokens of each text, and the round trip back to the text.
"""

from __future__ import annotations

from grader.families.bpe import stub as bpe_stub
from grader.families.byte_level.expected import case_text, expected_ids, reference_byte_bpe, vocab_size
from grader.families.byte_level.spec import ByteCase as Case
from grader.spec import Exercise
from grader.spec.stubs import Doctest, StubText

TRAIN, ENCODE = "train_byte_bpe", "encode_byte_bpe"


def _byte_setup(exercise: Exercise, case: Case, doctest: Doctest) -> str:
    roles = exercise.roles()
    train = roles[TRAIN].name if TRAIN in roles else "train_bpe"
    return (doctest.statement("text", case_text(case)) + "\n"
            + doctest.statement("special_tokens", list(case.special_tokens))
            + f"\n>>> vocab, merges = {train}(text, {vocab_size(case)}, special_tokens)")


def train_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    vocab, merges = reference_byte_bpe(case)
    return [_byte_setup(exercise, case, doctest) + doctest.call("merges", merges)
            + doctest.call("len(vocab)", len(vocab))]


def encode_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    if not case.encode:
        return []
    vocab, _ = reference_byte_bpe(case)
    lines = [_byte_setup(exercise, case, doctest)]
    for item in case.encode:
        tokens = [vocab[i] for i in expected_ids(case, item.word)]
        lines.append(doctest.call(
            f"[vocab[i] for i in {name}({item.word!r}, vocab, merges, special_tokens)]",
            tokens).lstrip("\n"))
    return ["\n".join(lines)]


def decode_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    if not case.encode:
        return []
    roles = exercise.roles()
    encode = roles[ENCODE].name if ENCODE in roles else "encode"
    lines = [_byte_setup(exercise, case, doctest)]
    for item in case.encode:
        lines.append(doctest.call(
            f"{name}({encode}({item.word!r}, vocab, merges, special_tokens), vocab)",
            item.word).lstrip("\n"))
    return ["\n".join(lines)]


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


def stub_text(exercise: Exercise) -> StubText:
    """The byte-level conventions, and BPE's tie paragraph on the exercise's own cases."""
    text = bpe_stub.stub_text(exercise)
    return StubText(byte_conventions(exercise), text.ties, text.tie_example, text.note)
