"""Do-nothing Unigram submissions: what a file returns without segmenting, scoring or counting.

``empty`` returns nothing (no pieces, 0.0, an empty model); ``constant`` the same answer
whatever the input; ``identity`` the input itself (the whole text as one piece, the model
unchanged); ``echo`` a copy of the input's parts (the text's characters, minus its length,
the first ``keep`` pieces). ``grade audit`` grades them (none may earn a point); on the
trusted side the same bodies tell which right answers are no evidence of work, and so does a
pruning that never reads the corpus (by score, length or name alone).
"""

from __future__ import annotations

from typing import Any

from grader.families.unigram.expected import ARGUMENTS, EM_STEP, LIKELIHOOD, PRUNE, SEGMENT, same

BODIES: dict[str, dict[str, str]] = {
    "empty": {SEGMENT: "return []", LIKELIHOOD: "return 0.0", EM_STEP: "return {}",
              PRUNE: "return {}"},
    "constant": {SEGMENT: 'return ["\\u2581"]', LIKELIHOOD: "return -1.0",
                 EM_STEP: 'return {"\\u2581": 0.0}', PRUNE: 'return {"\\u2581": 0.0}'},
    "identity": {SEGMENT: "return [text]", LIKELIHOOD: "return float(-len(text))",
                 EM_STEP: "return dict(pieces)", PRUNE: "return dict(pieces)"},
    "echo": {SEGMENT: "return list(text)", LIKELIHOOD: "return float(sum(pieces.values()))",
             EM_STEP: "return {piece: 0.0 for piece in pieces}",
             PRUNE: "return dict(list(pieces.items())[:keep])"},
}
KINDS = tuple(BODIES)


def _function(kind: str, role: str, name: str) -> str:
    return f"def {name}({', '.join(ARGUMENTS[role])}):\n    {BODIES[kind][role]}\n"


def sources(exercise: Any) -> dict[str, str]:
    """kind -> the source of a submission doing nothing in every function of the exercise."""
    found = {}
    for kind in KINDS:
        functions = [_function(kind, role, spec.name)
                     for role, spec in exercise.roles().items()]
        found[kind] = f"# exercise: {exercise.id}\n\n\n" + "\n\n".join(functions)
    return found


_COMPILED: dict[tuple[str, str], Any] = {}


def answer(kind: str, role: str, inputs: tuple) -> Any:
    """What the ``kind`` body of ``role`` returns on ``inputs`` (trusted code: ours)."""
    if (kind, role) not in _COMPILED:
        namespace: dict[str, Any] = {}
        exec(_function(kind, role, "run"), namespace)  # noqa: S102 - our own bodies
        _COMPILED[kind, role] = namespace["run"]
    return _COMPILED[kind, role](*inputs)


def trivial_answer(role: str, inputs: tuple, value: Any) -> bool:
    """Whether ``value`` on ``inputs`` is what some do-nothing body also returns, or, for
    ``prune``, what pruning without reading the corpus returns (:func:`corpus_blind_prunings`):
    points for pruning need the corpus to be used."""
    if any(same(role, answer(kind, role, inputs), value) for kind in KINDS):
        return True
    if role == PRUNE:
        _, pieces, keep = inputs
        return any(same(role, pruned, value) for pruned in corpus_blind_prunings(pieces, keep))
    return False


CORPUS_BLIND_ORDERS = {
    "lowest score first": lambda pieces, piece: (pieces[piece], piece),
    "highest score first": lambda pieces, piece: (-pieces[piece], piece),
    "longest first": lambda pieces, piece: (-len(piece), piece),
    "shortest first": lambda pieces, piece: (len(piece), piece),
    "alphabetical": lambda pieces, piece: (piece,),
}
"""Orders a pruning may remove pieces in without reading the corpus."""


def corpus_blind_prunings(pieces: Any, keep: Any) -> list[dict]:
    """The model pruned to ``keep`` pieces (single characters kept) in each order of
    :data:`CORPUS_BLIND_ORDERS`: answers that need no corpus."""
    if not isinstance(pieces, dict) or not isinstance(keep, int):
        return []
    longer = [piece for piece in pieces if isinstance(piece, str) and len(piece) > 1]
    found = []
    for order in CORPUS_BLIND_ORDERS.values():
        ranked = sorted(longer, key=lambda piece, order=order: order(pieces, piece))
        removed = set(ranked[:max(0, len(pieces) - keep)])
        found.append({piece: score for piece, score in pieces.items() if piece not in removed})
    return found
