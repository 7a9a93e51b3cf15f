"""A segmentation step by step, on its lattice: the data behind a Unigram report's step view.

The lattice of the normalized text has a node per position and an edge per piece that
matches there (an unknown character is an edge of its own). Step k is the k-th piece of each
segmentation: its span, its log-probability, and the other edges leaving the same position
with the best total of any full path through them (best score up to the position, plus the
edge, plus the best score from its end), so the pick and the pieces that tie with it are
seen where Viterbi chose. The reference's path and the student's are drawn on the lattice
(:mod:`grader.report.step_view`); a segmentation that does not join back to the text has no
path there and is listed as returned.
"""

from __future__ import annotations

from typing import Any, Optional

from reference.unigram import lattice, normalize, unknown_score, viterbi

EDGES_DRAWN = 400
CANDIDATES_SHOWN = 6
EPSILON = 1e-9
RULE = "longer last piece"
RULE_TEXT = ("the path with the highest total; of equal totals, the one whose last piece is "
             "longer stays at each position")


def _best_forward(size: int, edges: list) -> list[Optional[float]]:
    best: list[Optional[float]] = [None] * (size + 1)
    best[0] = 0.0
    for start, here in enumerate(edges):
        if best[start] is None:
            continue
        for end, _, score in here:
            total = best[start] + score  # type: ignore[operator]
            if best[end] is None or total > best[end]:  # type: ignore[operator]
                best[end] = total
    return best


def _best_backward(size: int, edges: list) -> list[Optional[float]]:
    best: list[Optional[float]] = [None] * (size + 1)
    best[size] = 0.0
    for start in range(size - 1, -1, -1):
        for end, _, score in edges[start]:
            if best[end] is not None:
                total = score + best[end]  # type: ignore[operator]
                if best[start] is None or total > best[start]:  # type: ignore[operator]
                    best[start] = total
    return best


def _spans(tokens: list[str], normalized: str) -> Optional[list[tuple[int, int]]]:
    if "".join(tokens) != normalized:
        return None
    spans, start = [], 0
    for token in tokens:
        spans.append((start, start + len(token)))
        start += len(token)
    return spans


def _score(token: str, pieces: dict, unknown: float) -> Optional[float]:
    if token in pieces:
        return float(pieces[token])
    if token and all(character not in pieces for character in token):
        return unknown * len(token)
    return None


def _number(value: Optional[float]) -> Optional[str]:
    return None if value is None else f"{value:.4f}"


def _side(tokens: list[str], index: int, spans: Optional[list], normalized: str, pieces: dict,
          unknown: float, edges: list, forward: list, backward: list,
          chosen: dict[int, str]) -> Optional[dict]:
    """Step ``index`` of one segmentation; ``chosen``: the reference's piece at each start
    position on its path, the pick among equal totals there."""
    if index >= len(tokens):
        return None
    token = tokens[index]
    side: dict[str, Any] = {
        "pick": [token], "token": token, "value": _number(_score(token, pieces, unknown)),
        "span": list(spans[index]) if spans else None,
        "corpus": [{"count": None, "symbols": [[piece, number == index]
                                              for number, piece in enumerate(tokens[:index + 1])]}],
        "corpus_more": 0, "candidates": [], "tied": [], "tied_more": 0, "rule_pick": None,
    }
    if spans is None or forward[spans[index][0]] is None:
        return side
    start = spans[index][0]
    through = []
    for end, piece, score in edges[start]:
        if backward[end] is None:
            continue
        label = piece if piece is not None else normalized[start:end]
        through.append((label, forward[start] + score + backward[end], end))
    through.sort(key=lambda item: (-item[1], -(item[2] - start)))
    top = through[0][1] if through else None
    tied = [label for label, total, _ in through if top is not None and total >= top - EPSILON]
    shown = through[:CANDIDATES_SHOWN]
    if token not in [label for label, _, _ in shown]:
        shown += [item for item in through if item[0] == token][:1]
    side["candidates"] = [[[label], _number(total), label == token] for label, total, _ in shown]
    side["tied"] = [[label] for label in tied] if len(tied) > 1 else []
    preferred = chosen.get(start)
    side["rule_pick"] = ([preferred] if preferred in tied else [through[0][0]]) if through else None
    return side


def segment_steps(text: str, pieces: dict, expected: list[str],
                  student: Optional[list[str]]) -> dict[str, Any]:
    """The reference's segmentation beside the student's (None: the reference's alone)."""
    normalized = normalize(text)
    size = len(normalized)
    edges = lattice(normalized, pieces)
    forward, backward = _best_forward(size, edges), _best_backward(size, edges)
    unknown = unknown_score(pieces)
    ours = _spans(expected, normalized)
    chosen = {span[0]: token for span, token in zip(ours or [], expected)}
    theirs = None if student is None else _spans(list(student), normalized)
    divergence = None
    if student is not None:
        divergence = next((number for number, (want, got) in enumerate(zip(expected, student), 1)
                           if want != got), None)
        if divergence is None and len(expected) != len(student):
            divergence = min(len(expected), len(student)) + 1
    total = max(len(expected), len(student or []))
    steps = [{"step": index + 1,
              "reference": _side(expected, index, ours, normalized, pieces, unknown, edges,
                                 forward, backward, chosen),
              "student": None if student is None else _side(
                  list(student), index, theirs, normalized, pieces, unknown, edges, forward,
                  backward, chosen)}
             for index in range(total)]
    drawn = [[start, end, piece if piece is not None else normalized[start:end]]
             for start, here in enumerate(edges) for end, piece, _ in here][:EDGES_DRAWN]
    return {
        "kind": "lattice", "title": "Segmentation, piece by piece, on the lattice",
        "unit": "piece", "value_name": "log-probability", "rule": RULE, "rule_text": RULE_TEXT,
        "compared": student is not None, "divergence": divergence, "total": total,
        "steps": steps,
        "lattice": {
            "chars": list(normalized), "edges": drawn,
            "edges_more": max(0, sum(len(here) for here in edges) - EDGES_DRAWN),
            "reference_path": [list(span) for span in ours or []],
            "student_path": None if theirs is None else [list(span) for span in theirs],
            "reference_total": _number(_path_total(expected, pieces, unknown)),
            "student_total": None if student is None else _number(
                _path_total(list(student), pieces, unknown)),
        },
    }


def _path_total(tokens: list[str], pieces: dict, unknown: float) -> Optional[float]:
    scores = [_score(token, pieces, unknown) for token in tokens]
    return None if any(score is None for score in scores) else sum(scores)  # type: ignore[arg-type]


def trace(exercise: Any, corpus: Any, size: int) -> dict[str, Any]:
    """``grade trace --html``: the reference's segmentation of the texts (joined by spaces)
    under the model of the exercise's first case that has one."""
    text = " ".join(corpus) if isinstance(corpus, list) else " ".join(dict(corpus))
    pieces = next(dict(case.pieces) for case in exercise.cases if case.pieces)
    return segment_steps(text, pieces, viterbi(text, pieces)[0], None)
