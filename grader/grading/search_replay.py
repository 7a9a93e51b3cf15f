"""Hypothesis's shrinking searches, replayed from memory where they would run as before.

A search of :func:`grader.grading.search.smallest_failure` over a role without reductions is
Hypothesis's ``find`` under fixed settings and a fixed seed: which input it tries next depends
only on those and on the answers its condition gave so far (fails, passes, or an exception
that ends the search). So every search run in a process is kept as a tree of those answers,
one tree per key (role, settings, seed): at each node the input tried there, and at the end
how the search ended. A later search under the same key is walked along the tree, its own
condition asked on each input in turn (so the judge, and the student's calls, run as before),
as long as its answers follow a branch already taken; Hypothesis itself runs only when they
take a new one, and then from the start, as it would have without the tree.

A process that grades many submissions of one exercise (an audit) meets the same answer
patterns again and again: several mistakes failing the same generated input, a do-nothing
submission failing the first one. A replay tries the same inputs in the same order and ends
the same way, so no report depends on it. Should Hypothesis ever try another input than the
tree holds at a node, that key is never replayed again.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Optional

NODES_KEPT = 50_000
"""Nodes kept per process at most (all trees together); past it, no tree grows."""

Outcome = tuple[str, Any]
"""How a search ended, as its caller's ``find`` returns it (e.g. ``("found", input)``)."""


@dataclass
class _Node:
    tried: Any = None  # the input the search tries at this point
    has_tried: bool = False
    children: dict[Hashable, "_Node"] = field(default_factory=dict)  # by the answer there
    end: Optional[Outcome] = None


_TREES: dict[Hashable, _Node] = {}
_UNREPLAYABLE: set[Hashable] = set()
_nodes = 0


def replayed(key: Hashable, condition: Callable[[Any], bool],
             find: Callable[[Callable[[Any], bool]], Outcome],
             ending: tuple[type[BaseException], ...] = ()) -> Outcome:
    """What ``find(condition)`` returns, from the tree of ``key`` while the answers of
    ``condition`` follow it, else by running ``find`` (which must return how the search
    ended, never raise for it). An exception of a type in ``ending`` raised by ``condition``
    is an answer of its own (``find`` ends on it); any other one makes the search run for
    real."""
    if key in _UNREPLAYABLE:
        return find(condition)
    node = _TREES.setdefault(key, _Node())
    while node.end is None and node.has_tried:
        try:
            answer: Hashable = bool(condition(node.tried))
        except ending as error:
            answer = type(error)
        except Exception:  # noqa: BLE001 - run for real, where Hypothesis handles it
            break
        if answer not in node.children:
            break
        node = node.children[answer]
    if node.end is not None:
        return node.end
    return _recorded(key, condition, find, ending)


def _recorded(key: Hashable, condition: Callable[[Any], bool],
              find: Callable[[Callable[[Any], bool]], Outcome],
              ending: tuple[type[BaseException], ...]) -> Outcome:
    """``find(condition)`` run for real, its path added to the tree of ``key``."""
    at: list[Optional[_Node]] = [_TREES[key]]

    def recording(example: Any) -> bool:
        node = at[0]
        if node is None or key in _UNREPLAYABLE:
            return condition(example)
        if node.has_tried and repr(node.tried) != repr(example):
            _UNREPLAYABLE.add(key)  # not the same search after all: never replayed again
            _TREES.pop(key, None)
            return condition(example)
        if not node.has_tried:
            node.tried, node.has_tried = example, True
        try:
            answer = condition(example)
        except ending as error:
            at[0] = _child(node, type(error))
            raise
        except BaseException:
            at[0] = None  # Hypothesis goes on from here its own way: not kept
            raise
        at[0] = _child(node, bool(answer))
        return answer

    outcome = find(recording)
    if at[0] is not None and key not in _UNREPLAYABLE:
        at[0].end = outcome
    return outcome


def _child(node: _Node, answer: Hashable) -> Optional[_Node]:
    global _nodes
    if answer not in node.children:
        if _nodes >= NODES_KEPT:
            return None
        node.children[answer] = _Node()
        _nodes += 1
    return node.children[answer]
