"""The step view of a check: the student's run beside the reference's, one step at a time.

A family's judge replays a failing visible run (:attr:`grader.spec.hooks.Verdict.steps`) and
the report carries it in :attr:`grader.result.CheckResult.steps`; ``grade trace --html``
gets the reference's run alone from the family's ``trace`` hook. Both are plain data::

    {"kind": "merges" | "lattice" | "encoding", "title", "unit" ("merge", "piece", "step"),
     "value_name" ("count", "score", "log-probability", "rank"), "rule", "rule_text", "compared" (a student's run
     is beside the reference's), "divergence" (the first differing step, 1-based, or None),
     "total" (steps in the longer run), "steps": [{"step", "reference", "student"}],
     "lattice"? (kind lattice: "chars", "edges" [[start, end, piece]], "edges_more",
                 "reference_path", "student_path" [[start, end]] or None,
                 "reference_total", "student_total")}

and each side of a step (None when that run has ended) is ``{"pick": [symbols], "token",
"value", "rule_pick", "tied": [[symbols]], "tied_more", "candidates": [[[symbols], value,
chosen]], "corpus": [{"count", "symbols": [[text, new]]}], "corpus_more", "note"?,
"span"?}``. An encoding's student side holds only the answer (in ``corpus``) and a ``note``:
the student's steps are not seen, only whether the answer can still be reached.

This module turns that data into a view for ``templates/partials/step_view.html.j2``: every
text cleaned and bounded (symbols come from the student), the lattice laid out as SVG
geometry. The page works without script (every step is listed); its script shows one step
at a time, opens the first divergence, and steps with buttons or the arrow keys.
"""

from __future__ import annotations

from typing import Any, Optional

from grader.report.safety import safe_text

SYMBOL_LIMIT = 60
TEXT_LIMIT = 400
CELL = 40  # px between two lattice nodes
LATTICE_TOP = 120  # the baseline's y; the reference arcs above, the student's below
LATTICE_HEIGHT = 190


def _text(value: Any, limit: int = SYMBOL_LIMIT) -> str:
    return "" if value is None else safe_text(str(value), limit)


def _symbols(values: Any) -> str:
    """A pair ``(a, b)`` or a piece, as written in feedback."""
    items = [_text(value) for value in (values or [])]
    return "(" + ", ".join(items) + ")" if len(items) == 2 else " ".join(items)


def _side(side: Optional[dict]) -> Optional[dict]:
    if not side:
        return None
    pick = _symbols(side.get("pick"))
    rule_pick = _symbols(side.get("rule_pick")) if side.get("rule_pick") else ""
    return {
        "pick": pick,
        "token": _text(side.get("token")),
        "value": _text(side.get("value")),
        "rule_pick": rule_pick,
        "follows_rule": not rule_pick or rule_pick == pick,
        "tied": [_symbols(pair) for pair in side.get("tied") or []],
        "tied_more": int(side.get("tied_more") or 0),
        "candidates": [{"pair": _symbols(pair), "value": _text(value), "chosen": bool(chosen)}
                       for pair, value, chosen in side.get("candidates") or []],
        "corpus": [{"count": row.get("count"),
                    "symbols": [{"text": _text(text), "new": bool(new)}
                                for text, new in row.get("symbols") or []]}
                   for row in side.get("corpus") or []],
        "corpus_more": int(side.get("corpus_more") or 0),
        "note": _text(side.get("note"), TEXT_LIMIT),
    }


def _arc(start: int, end: int, above: bool) -> str:
    """An SVG path from node ``start`` to node ``end``, bowed above or below the baseline."""
    x1, x2 = start * CELL + CELL / 2, end * CELL + CELL / 2
    rise = min(80, 18 + 14 * (end - start))
    y = LATTICE_TOP - rise if above else LATTICE_TOP + rise * 0.7
    return f"M{x1:g},{LATTICE_TOP} Q{(x1 + x2) / 2:g},{y:g} {x2:g},{LATTICE_TOP}"


def _path(spans: Optional[list], above: bool) -> list[dict]:
    return [{"step": number, "d": _arc(start, end, above)}
            for number, (start, end) in enumerate(spans or [], 1)]


def _lattice(data: dict, steps: list[dict]) -> dict:
    chars = [_text(char, 4) for char in data.get("chars") or []]
    reference = data.get("reference_path") or []
    student = data.get("student_path")
    return {
        "width": (len(chars) + 1) * CELL,
        "height": LATTICE_HEIGHT,
        "baseline": LATTICE_TOP,
        "nodes": [{"x": index * CELL + CELL / 2, "label": index} for index in range(len(chars) + 1)],
        "chars": [{"x": index * CELL + CELL, "text": char} for index, char in enumerate(chars)],
        "edges": [{"d": _arc(start, end, True), "label": _text(piece)}
                  for start, end, piece in data.get("edges") or []],
        "edges_more": int(data.get("edges_more") or 0),
        "reference": _path(reference, True),
        "student": _path(student, False),
        "student_joins": student is not None,
        "reference_text": " | ".join(step["reference"]["pick"] for step in steps if step["reference"]),
        "student_text": " | ".join(step["student"]["pick"] for step in steps if step["student"]),
        "reference_total": _text(data.get("reference_total")),
        "student_total": _text(data.get("student_total")),
    }


def step_view(data: Optional[dict], anchor: str) -> Optional[dict]:
    """The view of one check's steps (``anchor``: an id unique in the page), or None."""
    if not data or not data.get("steps"):
        return None
    steps = [{"step": int(step["step"]), "reference": _side(step.get("reference")),
              "student": _side(step.get("student"))} for step in data["steps"]]
    divergence = data.get("divergence")
    unit = _text(data.get("unit") or "step", 20)
    view = {
        "anchor": anchor,
        "kind": _text(data.get("kind"), 20),
        "title": _text(data.get("title"), TEXT_LIMIT),
        "unit": unit,
        "value_name": _text(data.get("value_name"), 40),
        "rule": _text(data.get("rule"), 80),
        "rule_text": _text(data.get("rule_text"), TEXT_LIMIT),
        "compared": bool(data.get("compared")),
        "divergence": int(divergence) if divergence is not None else None,
        "total": int(data.get("total") or len(steps)),
        "steps": steps,
        "lattice": None,
    }
    if data.get("kind") == "lattice" and data.get("lattice"):
        view["lattice"] = _lattice(data["lattice"], steps)
    return view
