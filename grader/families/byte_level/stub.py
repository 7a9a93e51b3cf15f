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
from reference.byte_level import pretokenize

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


def first_step(case: Case) -> tuple[list[str], dict[tuple[bytes, bytes], int]]:
    """The case's pre-tokens and the pair counts of the first training step, as the reference
    counts them: pairs within pre-tokens only, each pre-token weighted by how often it occurs."""
    pieces = pretokenize(case_text(case), list(case.special_tokens))
    counts: dict[tuple[bytes, bytes], int] = {}
    for piece in pieces:
        data = piece.encode("utf-8")
        for i in range(len(data) - 1):
            pair = (data[i:i + 1], data[i + 1:i + 2])
            counts[pair] = counts.get(pair, 0) + 1
    return pieces, counts


def tie_paragraph(exercise: Exercise) -> str:
    """The tie rule, worked on the first public case whose first step is a tie, with the
    exercise's own pre-tokenizer; the rule alone when no case ties."""
    rule = ("When several pairs share the highest count, merge the greater pair of bytes "
            "(rule 'reverse-lexicographic').")
    python = "In Python: max(counts, key=lambda p: (counts[p], p))."
    for case in exercise.public_cases:
        pieces, counts = first_step(case)
        most = max(counts.values(), default=0)
        tied = [pair for pair, count in counts.items() if count == most]
        winner = max(tied, default=None)
        if len(tied) < 2 or reference_byte_bpe(case)[1][:1] != [winner]:
            continue
        shown = ", ".join(f"({a!r}, {b!r})" for a, b in tied)
        times = "once" if most == 1 else f"{most} times"
        return (f"{rule} For example, training on {case_text(case)!r}: the pre-tokens are "
                f"{', '.join(repr(piece) for piece in pieces)}; at the first step the pairs "
                f"{shown} all occur {times}, and this rule merges ({winner[0]!r}, "
                f"{winner[1]!r}). {python}")
    return f"{rule} {python}"


def stub_text(exercise: Exercise) -> StubText:
    """The byte-level conventions, and the tie paragraph worked with the byte pre-tokenizer."""
    text = bpe_stub.stub_text(exercise)
    return StubText(byte_conventions(exercise), tie_paragraph(exercise), text.tie_example,
                    text.note)
