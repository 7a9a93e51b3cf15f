"""What a byte-level stub says: CS336's conventions, and each role's doctests in bytes.

The conventions replace BPE's (CS336 spring 2025, handout v1.0.4 and later: text cut at
special tokens, GPT-2's pre-tokenizer, bytes, ties to the greater pair of bytes); the doctests train on a public case's text and show the
merges, the tokens of each text, and the round trip back to the text.
"""

from __future__ import annotations

import textwrap

from grader.families.bpe import stub as bpe_stub
from grader.families.byte_level.expected import case_text, expected_ids, reference_byte_bpe, vocab_size
from grader.families.byte_level.spec import ByteCase as Case
from grader.families.api import Doctest, Exercise, StubText
from reference.byte_level import pretokenize

TRAIN, ENCODE, ITERABLE = "train_byte_bpe", "encode_byte_bpe", "encode_iterable_byte_bpe"
HANDOUT = "CS336 spring 2025 (handout v1.0.4 and later)"
"""The version of CS336's conventions the byte-level exercises follow."""


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


def iterable_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    """The lines of each text streamed: the same ids as encoding the text at once."""
    if not case.encode:
        return []
    vocab, _ = reference_byte_bpe(case)
    lines = [_byte_setup(exercise, case, doctest)]
    for item in case.encode:
        tokens = [vocab[i] for i in expected_ids(case, item.word)]
        chunks = item.word.splitlines(keepends=True) or [item.word]
        lines.append(doctest.call(
            f"[vocab[i] for i in {name}(iter({chunks!r}), vocab, merges, special_tokens)]",
            tokens).lstrip("\n"))
    return ["\n".join(lines)]


def byte_conventions(exercise: Exercise) -> list[str]:
    """The conventions of a byte-level exercise, one sentence each (replacing BPE's)."""
    return [
        f"Handout: {HANDOUT}; the text is split on the special tokens before pre-tokenizing "
        "(not the 2024 handout's rule, under which special tokens did not otherwise affect "
        "training).",
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
    ] + ([f"Streaming: {exercise.function(ITERABLE).name} is a generator; it reads one line at "
          "a time and yields ids before reading the rest, and its ids are those of encoding "
          "the joined lines: a run of spaces and newlines that goes on past a line's end is "
          "one pre-token, so keep the whitespace at the end of what has been read until the "
          "next line comes."] if ITERABLE in exercise.roles() else [])


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


GENERATING = ("differential", "properties")
NOTE_WIDTH = 91


def real_work_note(exercise: Exercise) -> str:
    """What earns points, and exactly what the course's secret seed changes (the generated
    inputs, the timed text) and what it does not (the cases), and the speed asked."""
    kinds = {check.kind for milestone in exercise.milestones for check in milestone.checks}
    timed = "efficiency" in kinds
    settings = exercise.efficiency
    lines = ["Points need real work: a milestone's property checks, and its cases whose right "
             "answer is what doing nothing gives (the 256 single bytes and no merges, each byte "
             "its own id), earn points only once the same milestone also passes a case or "
             "generated input that needs real work."]
    changed = []
    if any(kind in kinds for kind in GENERATING):
        changed.append("the texts the differential and property checks generate")
    if timed and not settings.text_file:
        separator = settings.special_tokens[0] if settings.special_tokens else "a blank line"
        changed.append(f"the text the efficiency check times (about {settings.characters:,} "
                       f"characters of TinyStories-like stories separated by {separator!r})")
    if changed:
        lines.append("The course's secret seed picks " + " and ".join(changed) + ", so a "
                     "table of answers cannot pass them; the cases, public and hidden, are the "
                     "same for everyone.")
    else:
        lines.append("Every input is a case of the spec, the same for everyone.")
    if timed:
        where = (f"on {settings.text_file}" if settings.text_file else "on that text")
        clock = "wall-clock" if settings.clock == "wall" else "CPU"
        lines.append(f"Speed: training {where} may take at most {settings.max_ratio:g} times "
                     f"the reference's {clock} time, the reference timed in the same grading, "
                     f"and {settings.max_seconds:g} s.")
    return textwrap.fill(" ".join(lines), NOTE_WIDTH, break_on_hyphens=False)


def stub_text(exercise: Exercise) -> StubText:
    """The byte-level conventions, the tie paragraph worked with the byte pre-tokenizer, and
    what earns points and changes with the secret."""
    text = bpe_stub.stub_text(exercise)
    return StubText(byte_conventions(exercise), tie_paragraph(exercise), text.tie_example,
                    real_work_note(exercise))
