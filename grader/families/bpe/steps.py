"""Two merge runs side by side, step by step: the data behind a report's step view.

A merge run (character BPE, byte-level BPE, WordPiece) is replayed on its own corpus: at
merge k, the corpus as the merges before it left it, the value of every adjacent pair there
(a count, or a WordPiece score), the pairs that tie at the top in the tie rule's order, the
rule's pick, the pair the run merged and its value, and the corpus as that merge rewrites it.
The reference's merges and the student's are replayed alike, so each side shows its own
corpus; up to the first divergence the two are the same. An encoding is shown rule by rule
beside the student's answer (its steps are not seen), marking where the answer can no longer
be reached. The result is plain data in the
shape :mod:`grader.report.step_view` documents and renders; every text in it is already
written the way the family shows its symbols (bytes readably, scores as fractions).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from reference.corpus import segment, word_counts
from reference.encoding import Encoder
from reference.plain import count_pairs, initial_segmentation, merge_words, train_bpe
from reference.tie_breaks import DESCRIPTIONS, order_tied

Symbol = Hashable
Pair = tuple[Any, Any]
Words = dict[tuple, int]

STEPS_SHOWN = 80
"""At most this many merges are replayed (a window around the divergence when there are more)."""
WORDS_SHOWN = 6
TIED_SHOWN = 6
CANDIDATES_SHOWN = 6


@dataclass(frozen=True)
class MergeRule:
    """How one family chooses a merge and writes its objects.

    ``values(words)`` gives every adjacent pair's value (in first-seen order), ``tied(pairs)``
    orders the pairs that share the top value as the rule prefers them, ``symbol`` writes one
    symbol, ``value_text(pair, values, words)`` one pair's value."""

    values: Callable[[Words], dict]
    tied: Callable[[list], list]
    symbol: Callable[[Any], str]
    value_text: Callable[[Pair, dict, Words], str]
    value_name: str
    rule: str
    rule_text: str


def counting_rule(tie_break: str) -> MergeRule:
    """Character BPE: pairs counted over the words, ties broken by ``tie_break``."""
    return MergeRule(values=count_pairs, tied=lambda pairs: order_tied(pairs, tie_break),
                     symbol=str, value_text=lambda pair, values, words: str(values[pair]),
                     value_name="count", rule=tie_break, rule_text=DESCRIPTIONS[tie_break])


def character_words(corpus: Any, end_of_word: str) -> Words:
    return dict(initial_segmentation(word_counts(corpus), end_of_word))


def training_steps(exercise: Any, corpus: Any, reference: Sequence[Pair],
                   student: Optional[Sequence[Pair]]) -> dict[str, Any]:
    """A character-BPE training case: the reference's merges beside the student's."""
    conventions = exercise.conventions
    return merge_steps(character_words(corpus, conventions.end_of_word), reference, student,
                       counting_rule(conventions.tie_break), title="Training, merge by merge")


def trace(exercise: Any, corpus: Any, num_merges: int) -> dict[str, Any]:
    """``grade trace --html``: the reference's run alone on any corpus."""
    conventions = exercise.conventions
    merges = train_bpe(corpus, num_merges, tie_break=conventions.tie_break,
                       end_of_word=conventions.end_of_word)
    return training_steps(exercise, corpus, merges, None)


def merge_steps(words: Words, reference: Sequence[Pair], student: Optional[Sequence[Pair]],
                rule: MergeRule, *, title: str, unit: str = "merge") -> dict[str, Any]:
    """Both runs replayed from ``words`` (``student`` None: the reference's run alone)."""
    ours = [tuple(pair) for pair in reference]
    theirs = None if student is None else [tuple(pair) for pair in student]
    divergence = None if theirs is None else _first_difference(ours, theirs)
    total = max(len(ours), len(theirs or []))
    first, last = _window(total, divergence)
    reference_run = _replay(words, ours, rule, first, last)
    student_run = None if theirs is None else _replay(words, theirs, rule, first, last)
    steps = []
    for number in range(first, last + 1):
        steps.append({
            "step": number,
            "reference": reference_run.get(number),
            "student": None if student_run is None else student_run.get(number),
        })
    return {
        "kind": "merges",
        "title": title,
        "unit": unit,
        "value_name": rule.value_name,
        "rule": rule.rule,
        "rule_text": rule.rule_text,
        "compared": theirs is not None,
        "divergence": divergence,
        "total": total,
        "steps": steps,
    }


def _first_difference(ours: list, theirs: list) -> Optional[int]:
    for number, (want, got) in enumerate(zip(ours, theirs), 1):
        if want != got:
            return number
    if len(ours) != len(theirs):
        return min(len(ours), len(theirs)) + 1
    return None


def _window(total: int, divergence: Optional[int]) -> tuple[int, int]:
    """The merges shown, 1-based and inclusive: all, or STEPS_SHOWN around the divergence."""
    if total <= STEPS_SHOWN:
        return 1, total
    centre = divergence or 1
    first = max(1, min(centre - STEPS_SHOWN // 2, total - STEPS_SHOWN + 1))
    return first, first + STEPS_SHOWN - 1


def _replay(words: Words, merges: list, rule: MergeRule, first: int, last: int) -> dict[int, dict]:
    """Each shown merge of one run, by number; a run that ends early has no entry after."""
    shown: dict[int, dict] = {}
    for number, pair in enumerate(merges, 1):
        if number > last:
            break
        values = rule.values(words) if number >= first else {}
        after = merge_words(words, pair)
        if number >= first:
            shown[number] = _step(words, after, pair, values, rule)
        words = after
    return shown


def _step(before: Words, after: Words, pair: Pair, values: dict, rule: MergeRule) -> dict:
    top = max(values.values(), default=None)
    tied = rule.tied([p for p, v in values.items() if v == top]) if values else []
    ranked = tied + sorted((p for p in values if values[p] != top), key=lambda p: -values[p])
    candidates = ranked[:CANDIDATES_SHOWN]
    if pair in values and pair not in candidates:
        candidates.append(pair)
    joined = pair[0] + pair[1]
    return {
        "pick": _pair_text(pair, rule),
        "value": rule.value_text(pair, values, before) if pair in values else None,
        "token": rule.symbol(joined),
        "rule_pick": _pair_text(tied[0], rule) if tied else None,
        "tied": [_pair_text(p, rule) for p in tied[:TIED_SHOWN]] if len(tied) > 1 else [],
        "tied_more": max(0, len(tied) - TIED_SHOWN) if len(tied) > 1 else 0,
        "candidates": [[_pair_text(p, rule), rule.value_text(p, values, before), p == pair]
                       for p in candidates],
        "corpus": _corpus(after, joined, rule),
        "corpus_more": max(0, len(after) - WORDS_SHOWN),
    }


def _corpus(words: Words, token: Any, rule: MergeRule) -> list[dict]:
    """Words as rewritten, those the merge changed first, each symbol written out and the new
    token marked."""
    changed = [item for item in words.items() if token in item[0]]
    ordered = changed + [item for item in words.items() if token not in item[0]]
    return [{"count": count, "symbols": [[rule.symbol(symbol), symbol == token] for symbol in symbols]}
            for symbols, count in ordered[:WORDS_SHOWN]]


def _pair_text(pair: Pair, rule: MergeRule) -> list[str]:
    return [rule.symbol(pair[0]), rule.symbol(pair[1])]


def _cuts(tokens: Sequence[str]) -> set[int]:
    """The positions between tokens, counted in characters."""
    cuts, position = set(), 0
    for token in list(tokens)[:-1]:
        position += len(token)
        cuts.add(position)
    return cuts


def encoding_steps(exercise: Any, word: str, merges: Sequence[Pair],
                   student: Optional[Sequence[str]]) -> Optional[dict[str, Any]]:
    """A word encoded rule by rule, with the student's tokens beside each step.

    Only the student's answer is known, not the steps that led to it; merges only ever join,
    so the answer is still reachable after a reference step while every cut it keeps is still
    a cut there. The first step where it is not (the reference joins across a cut the answer
    keeps), or the end when the answer joins more than the reference does, is the divergence.
    None when the answer does not spell the word as the reference's tokens do.
    """
    end_of_word = exercise.conventions.end_of_word
    start = tuple(segment(word, end_of_word))
    states = [(None, start)] + [(step, step.tokens) for step in
                                Encoder(merges, end_of_word=end_of_word).steps(word)]
    if student is not None and "".join(student) != "".join(start):
        return None
    ranks: dict[tuple, int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(tuple(pair), rank)
    theirs = None if student is None else _cuts(student)
    divergence = None
    if theirs is not None:
        divergence = next((number for number, (_, tokens) in enumerate(states, 1)
                           if not theirs <= _cuts(tokens)), None)
        if divergence is None and theirs != _cuts(states[-1][1]):
            divergence = len(states) + 1  # the answer joins what no rule joins
    steps = [_encoding_step(number, step, tokens, ranks, student, theirs)
             for number, (step, tokens) in enumerate(states, 1)]
    if divergence == len(states) + 1:
        steps.append({"step": divergence, "reference": {
            "pick": [], "token": "", "value": None, "rule_pick": None, "tied": [], "tied_more": 0,
            "candidates": [], "corpus": [_row(states[-1][1], None)], "corpus_more": 0,
            "note": "no rule applies to these tokens: encoding stops here."},
            "student": _student(student, theirs, states[-1][1], True)})
    return {"kind": "encoding", "title": f"Encoding {word!r}, rule by rule", "unit": "step",
            "value_name": "rank", "rule": "lowest rank first",
            "rule_text": "of the rules that match a pair of adjacent tokens, the one learned first",
            "compared": student is not None, "divergence": divergence, "total": len(steps),
            "steps": steps}


TOKENS_SHOWN = 200


def _row(tokens: Sequence[str], new: Optional[str]) -> dict:
    return {"count": None, "symbols": [[token, token == new] for token in list(tokens)[:TOKENS_SHOWN]]}


def _encoding_step(number: int, step: Any, tokens: tuple, ranks: dict,
                   student: Optional[Sequence[str]], theirs: Optional[set]) -> dict:
    if step is None:
        side = {"pick": [], "token": "", "value": None, "rule_pick": None,
                "note": "the word split into its symbols, before any rule."}
    else:
        side = {"pick": list(step.pair), "token": step.pair[0] + step.pair[1],
                "value": f"rule {step.rank + 1}", "rule_pick": list(step.pair), "note": ""}
    side.update(tied=[], tied_more=0, corpus=[_row(tokens, side["token"] or None)], corpus_more=0)
    matching = sorted({ranks[pair]: pair for pair in zip(tokens, tokens[1:]) if pair in ranks}.items())
    side["candidates"] = [[list(pair), f"rule {rank + 1}", False] for rank, pair in matching][:CANDIDATES_SHOWN]
    return {"step": number, "reference": side,
            "student": None if student is None else _student(student, theirs, tokens, False)}


def _student(student: Sequence[str], theirs: Optional[set], tokens: tuple, end: bool) -> dict:
    ours = _cuts(tokens)
    reachable = theirs is not None and theirs <= ours
    if end:
        note = "your tokens join pieces that no rule joins."
    elif reachable:
        note = "your tokens can still be reached from here (every split they keep is still a split)."
    else:
        note = "your tokens keep a split that the reference has joined by now."
    return {"pick": [], "token": "", "value": None, "rule_pick": None, "tied": [], "tied_more": 0,
            "candidates": [], "corpus": [_row(student, None)], "corpus_more": 0, "note": note}
