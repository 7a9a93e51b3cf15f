"""What wrong encodings show when no catalogued mistake explains them: a tie taken out of order.

A heap-based encoder pops the lowest-ranked pair first; two entries of equal rank are two
occurrences of the same merge, and they matter only where they overlap (the merge
``(b'a', b'a')`` on ``b'aaa'`` joins bytes 1-2 or 2-3). The reference takes the leftmost
first. Code that breaks the tie by something else (an object's ``id``, its memory address,
the order of pushing) gives ids that may change from call to call, so no model reproduces
it; what can be shown is :func:`tie_order_departure`: on a failing input, every pre-token's
tokens are what merging the lowest rank first gives for *some* order of equal-rank
occurrences (all orders are searched), the reference's included, and on at least one
pre-token they are not the reference's. The signal says that, with the pre-token, the merge
and both tokenizations, all computed from the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Optional

from grader.families.api import Observation
from reference.byte_level import _PRETOKENIZER, ByteLevelEncoder, split_on_special_tokens

SIGNAL_ID = "signal-encode-tie-order"
TITLE = "Occurrences of one merge taken in another order than left to right"
STATES_SEARCHED = 4000
"""More orders than this in one pre-token and nothing is claimed about it."""

Word = tuple[bytes, ...]


def tie_order_outcomes(word: Word, ranks: Mapping[tuple[bytes, bytes], int]) -> Optional[set[Word]]:
    """Every tokenization of ``word`` that merging one occurrence of the lowest-ranked pair
    at a time gives, whichever occurrence each step takes; ``None`` past
    :data:`STATES_SEARCHED` states."""
    seen: set[Word] = set()
    outcomes: set[Word] = set()
    pending = [word]
    while pending:
        state = pending.pop()
        if state in seen:
            continue
        seen.add(state)
        if len(seen) > STATES_SEARCHED:
            return None
        ranked = [(ranks[pair], index) for index, pair in enumerate(zip(state, state[1:]))
                  if pair in ranks]
        if not ranked:
            outcomes.add(state)
            continue
        lowest = min(rank for rank, _ in ranked)
        for rank, index in ranked:
            if rank == lowest:
                pending.append(_merged(state, index))
    return outcomes


def _departure(inputs: Mapping[str, Any], ids: Any) -> Optional[tuple[str, Word, Word]]:
    """``(pre-token, reference tokens, student tokens)`` of the first pre-token where the
    student's ids differ, when every pre-token's ids are a tie order's (see the module
    docstring); else ``None``."""
    if not isinstance(ids, list) or not all(type(i) is int for i in ids):
        return None
    specials = list(inputs.get("special_tokens") or [])
    encoder = ByteLevelEncoder(inputs["vocab"], inputs["merges"], specials)
    vocab = encoder.vocab
    at, found = 0, None
    for index, chunk in enumerate(split_on_special_tokens(inputs["text"], specials)):
        if index % 2:
            if at >= len(ids) or ids[at] != encoder.special_ids[chunk]:
                return None
            at += 1
            continue
        for pretoken in _PRETOKENIZER.findall(chunk):
            want = pretoken.encode("utf-8")
            tokens: list[bytes] = []
            while at < len(ids) and len(b"".join(tokens)) < len(want):
                if ids[at] not in vocab:
                    return None
                tokens.append(vocab[ids[at]])
                at += 1
            mine, reference = tuple(tokens), tuple(encoder.tokens(pretoken))
            if b"".join(mine) != want or ids[at - len(mine):at] != [encoder.ids[t] for t in mine]:
                return None
            if mine == reference:
                continue
            outcomes = tie_order_outcomes(tuple(bytes([b]) for b in want), encoder.ranks)
            if (outcomes is None or mine not in outcomes
                    or leftmost_order(tuple(bytes([b]) for b in want), encoder.ranks) != reference):
                return None  # not shown to be a tie order, or the reference is not leftmost-first
            found = found or (pretoken, reference, mine)
    return found if at == len(ids) else None


def _merged(state: Word, index: int) -> Word:
    return state[:index] + (state[index] + state[index + 1],) + state[index + 2:]


def leftmost_order(word: Word, ranks: Mapping[tuple[bytes, bytes], int]) -> Word:
    """``word`` merged one occurrence at a time, always the leftmost of the lowest rank."""
    while True:
        ranked = [(ranks[pair], index) for index, pair in enumerate(zip(word, word[1:]))
                  if pair in ranks]
        if not ranked:
            return word
        word = _merged(word, min(ranked)[1])


def first_tie(pretoken: str, mine: Word, ranks: Mapping[tuple[bytes, bytes], int]
              ) -> Optional[tuple[Word, tuple[bytes, bytes], int, int]]:
    """Where the student's tokens leave the left-to-right order: ``(tokens then, the merge,
    its leftmost occurrence, the first other occurrence that can still give mine)`` at the
    first step where joining that leftmost occurrence can no longer give ``mine``."""
    state: Word = tuple(bytes([b]) for b in pretoken.encode("utf-8"))
    while True:
        ranked = [(ranks[pair], index) for index, pair in enumerate(zip(state, state[1:]))
                  if pair in ranks]
        if not ranked:
            return None
        lowest = min(rank for rank, _ in ranked)
        places = [index for rank, index in ranked if rank == lowest]
        outcomes = [tie_order_outcomes(_merged(state, index), ranks) for index in places]
        if any(found is None for found in outcomes):
            return None  # too many orders to tell
        reachable = [index for index, found in zip(places, outcomes)
                     if found is not None and mine in found]
        if not reachable:
            return None
        if places[0] not in reachable:
            return state, (state[places[0]], state[places[0] + 1]), places[0], reachable[0]
        state = _merged(state, places[0])


def tie_order_departure(observations: Sequence[Observation]
                        ) -> Optional[tuple[Observation, str, Word, Word]]:
    """The first failing encode whose ids differ from the reference only in the order of
    equal-rank merges, with its pre-token and both tokenizations; ``None`` unless every
    failing encode is such a one."""
    first = None
    for observation in observations:
        found = _departure(observation.inputs, observation.actual)
        if found is None:
            return None
        first = first or (observation, *found)
    return first


def encode_signals(role: str, observations: Sequence[Observation],
                   options: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """``(id, title, message)`` when every failing encode is a tie taken out of order."""
    if role != "encode_byte_bpe" or not observations:
        return []
    found = tie_order_departure(observations)
    if found is None:
        return []
    observation, pretoken, reference, mine = found
    ranks = ByteLevelEncoder(observation.inputs["vocab"], observation.inputs["merges"],
                             list(observation.inputs.get("special_tokens") or [])).ranks
    tie = first_tie(pretoken, mine, ranks)
    where = ""
    if tie is not None:
        state, pair, index, other = tie
        overlapping = ", overlapping" if other == index + 1 else ""
        where = (f": when its tokens are {list(state)!r}, the merge {pair!r} (merges"
                 f"[{ranks[pair]}]) applies at tokens {index + 1}-{index + 2} and "
                 f"{other + 1}-{other + 2}{overlapping}; the reference joins the leftmost, and "
                 "your tokens come only from joining another first")
    return [(SIGNAL_ID, TITLE, (
        f"On each of your {len({o.key for o in observations})} failing inputs, your tokens "
        "are what merging the "
        "lowest rank first gives when, of two occurrences of the same merge, another than the "
        f"leftmost is taken first. In the pre-token {pretoken!r}{where}. The reference gives "
        f"{list(reference)!r}; yours {list(mine)!r}. Equal ranks tie only between occurrences "
        "of one merge: take the leftmost first. With a heap, order its entries by (rank, "
        "position in the pre-token); an object's id (its memory address) or the order of "
        "pushing is not the position. Or merge every occurrence of the lowest-ranked pair "
        "left to right in one pass."))]
