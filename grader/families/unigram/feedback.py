"""What a wrong Unigram answer is told: the expected and the returned value, and why.

A segmentation is shown with its log-probability beside the expected one's (a greedy or
otherwise worse path scores lower, and the numbers say so), or as not joining back to the
normalized text. A likelihood or a model is shown with the difference, and for a model the
pieces missing, extra, or off by more than the tolerance, and whether its probabilities sum
to 1. ``details`` are labelled values (kind ``unigram``).
"""

from __future__ import annotations

import math
from typing import Any, Optional

from grader.families.unigram.expected import (
    ARGUMENTS,
    EM_STEP,
    LIKELIHOOD,
    PRUNE,
    SEGMENT,
    close,
)
from reference.unigram import SPACE, log_sum_exp, normalize, unknown_score

SHOWN = 6


def path_score(tokens: list[str], pieces: dict[str, float]) -> Optional[float]:
    """The log-probability of a segmentation (unknown characters at the unknown score), or
    None when a token is neither a piece nor a run of unknown characters."""
    unknown = unknown_score(pieces)
    total = 0.0
    for token in tokens:
        if token in pieces:
            total += pieces[token]
        elif token and all(character not in pieces for character in token):
            total += unknown * len(token)
        else:
            return None
    return total


def _rounded(value: Optional[float]) -> str:
    return "?" if value is None else f"{value:.4f}"


def segment_message(text: str, pieces: dict[str, float], want: list[str], got: list[str]) -> str:
    normalized = normalize(text)
    if "".join(got) != normalized:
        lead = f"expected {want!r}, got {got!r}, which does not join back to {normalized!r}"
        if "".join(got) == "".join(text.split()):
            lead += f" (each word starts with {SPACE!r}: the text is normalized first)"
        return lead + "."
    if unknown_runs_joined(got, pieces) == want:
        return (f"expected {want!r}, got {got!r}: the same pieces, but adjacent unknown "
                "characters must come back as one piece.")
    ours, theirs = path_score(want, pieces), path_score(got, pieces)
    said = f"expected {want!r} (log-probability {_rounded(ours)}), got {got!r}"
    if theirs is None:
        return said + ", which holds a token that is no piece of the model."
    said += f" (log-probability {_rounded(theirs)})"
    if ours is not None and theirs < ours - 1e-9:
        return said + ": the Viterbi segmentation is the one with the highest total."
    if ours is None or theirs > ours + 1e-9 or not _is_path(got, pieces):
        return said + "."
    return (said + ": both score the same, and the tie rule keeps, at each position, the "
            "segmentation whose last piece is longer.")


def _unknown(token: str, pieces: dict[str, float]) -> bool:
    return token not in pieces and bool(token) and all(c not in pieces for c in token)


def unknown_runs_joined(tokens: list[str], pieces: dict[str, float]) -> list[str]:
    """``tokens`` with adjacent unknown runs joined, as the segmentation returns them."""
    joined: list[str] = []
    previous = False
    for token in tokens:
        unknown = _unknown(token, pieces)
        if unknown and previous:
            joined[-1] += token
        else:
            joined.append(token)
        previous = unknown
    return joined


def _is_path(tokens: list[str], pieces: dict[str, float]) -> bool:
    """Whether ``tokens`` is a segmentation the tie rule chose among: every token a piece or
    a run of unknown characters, no two unknown runs side by side."""
    return unknown_runs_joined(tokens, pieces) == tokens


def number_message(want: float, got: float) -> str:
    return f"expected {want:.6f}, got {got:.6f} (off by {abs(want - got):.3g})."


def model_message(role: str, want: dict[str, float], got: dict[str, float], within: float) -> str:
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    off = [piece for piece in sorted(set(want) & set(got))
           if not close(want[piece], got[piece], within)]
    parts = []
    if missing:
        parts.append(f"missing {_few(missing)}")
    if extra:
        parts.append(f"not expected {_few(extra)}")
    if off:
        parts.append("off: " + ", ".join(f"{piece!r} expected {want[piece]:.4f}, got "
                                          f"{got[piece]:.4f}" for piece in off[:SHOWN]))
    text = "; ".join(parts) + "." if parts else "the values differ."
    if role == EM_STEP and got:
        mass = math.exp(log_sum_exp(list(got.values())))
        if not close(mass, 1.0, 1e-6):
            text += f" Your probabilities sum to {mass:.4f}, not 1."
    if role == PRUNE and any(len(piece) == 1 for piece in missing):
        text += " Single characters are always kept."
    if role == PRUNE and len(got) != len(want):
        text += f" You return {len(got)} pieces; {len(want)} are left after pruning."
    return text


def _few(pieces: list[str]) -> str:
    shown = ", ".join(repr(piece) for piece in pieces[:SHOWN])
    return shown + (f" and {len(pieces) - SHOWN} more" if len(pieces) > SHOWN else "")


def message(role: str, inputs: tuple, want: Any, got: Any, within: float) -> str:
    if role == SEGMENT:
        return segment_message(inputs[0], inputs[1], want, got)
    if role == LIKELIHOOD:
        return number_message(want, got)
    return model_message(role, want, got, within)


def json_inputs(role: str, inputs: tuple) -> dict[str, Any]:
    return {name: (list(value) if isinstance(value, list) else value)
            for name, value in zip(ARGUMENTS[role], inputs)}


def details(role: str, inputs: tuple, want: Any, got: Any = None, answered: bool = False) -> dict:
    found: dict[str, Any] = {"kind": "unigram", "input": json_inputs(role, inputs),
                             "expected": want}
    if answered:
        found["actual"] = got
    return found

