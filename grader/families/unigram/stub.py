"""What a Unigram stub says: SentencePiece's conventions, the tie rule, and doctests.

Each public case gives a doctest for every role it serves: the segmentation, the
log-likelihood and the new log-probabilities rounded to 4 decimals (the grader compares them
within the spec's tolerance), and the pieces pruning keeps, sorted.
"""

from __future__ import annotations

from typing import Any

from grader.families.unigram.expected import EM_STEP, LIKELIHOOD, PRUNE, SEGMENT, expected
from grader.families.unigram.judges import case_inputs, serves
from grader.families.api import Doctest, StubText
from reference.unigram import UNKNOWN_PENALTY

DIGITS = 4


def stub_text(exercise: Any) -> StubText:
    tolerance = exercise.conventions.tolerance
    return StubText(
        [
            "Pieces: a dict piece -> log-probability (natural log); '\u2581' (U+2581) marks a word start.",
            "Normalization: drop spaces at both ends, count a run of spaces as one, replace each "
            "space with '\u2581', and put one '\u2581' in front (the empty text stays empty).",
            f"Unknown characters: a character with no one-character piece is an unknown piece "
            f"of one character scoring min(pieces.values()) - {UNKNOWN_PENALTY:g}; adjacent "
            "unknown characters come back as one piece.",
            f"Floats: compared within {tolerance:g} (absolute or relative).",
        ],
        ties=("Fill positions left to right and replace the best path to a position only "
              "by one that scores strictly higher, trying pieces by start position, earliest "
              "first; of two equal segmentations of a prefix the one whose last piece is "
              "longer stays. Pruning removes the smallest losses first; losses equal to 9 "
              "decimals go in alphabetical order of the piece."),
    )


def _setup(doctest: Doctest, case: Any, role: str) -> str:
    lines = [doctest.statement("pieces", dict(case.pieces))]
    if role in (SEGMENT, LIKELIHOOD):
        lines.append(doctest.statement("text", case.text))
    else:
        lines.append(doctest.statement("corpus", list(case.corpus)))
    return "\n".join(lines)


def examples(role: str) -> Any:
    def stub_examples(exercise: Any, name: str, case: Any, doctest: Doctest) -> list[str]:
        if not serves(role)(case):
            return []
        given = case_inputs(role, case)
        value = expected(role, given)
        text = _setup(doctest, case, role)
        if role == SEGMENT:
            return [text + doctest.call(f"{name}(text, pieces)", value)]
        if role == LIKELIHOOD:
            return [text + doctest.call(f"round({name}(text, pieces), {DIGITS})",
                                        round(value, DIGITS))]
        if role == EM_STEP:
            shown = {piece: round(score, DIGITS) for piece, score in sorted(value.items())}
            return [text + doctest.call(
                f"{{p: round(s, {DIGITS}) for p, s in sorted({name}(corpus, pieces).items())}}",
                shown)]
        return [text + doctest.call(f"sorted({name}(corpus, pieces, {case.keep}))", sorted(value))]
    return stub_examples
