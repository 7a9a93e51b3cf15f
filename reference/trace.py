"""A BPE training run and word encodings written out step by step, as the hand exercises do.

For every merge: the corpus before it (``4x  c a t </w>``), the candidate pairs with their
counts, the pairs tied at the top, which tie-break rule picked the winner and why, and the
new token; then the final corpus and the merge list. Encoding a word shows each merge rule
as it fires. Every function here returns text; ``grade trace`` only prints it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from reference.corpus import END_OF_WORD, check_end_of_word, segment, word_counts
from reference.encoding import Encoder
from reference.plain import Segmentation, Step, initial_segmentation, train_steps
from reference.tie_breaks import (
    CONCATENATED,
    DESCRIPTIONS,
    FIRST_SEEN,
    LEXICOGRAPHIC,
    REVERSE_LEXICOGRAPHIC,
    Pair,
    order_tied,
)
from reference.validation import check_training_options

INDENT = "  "
_COUNT = re.compile(r"[0-9]+")


# --- reading word counts ------------------------------------------------------------------


def parse_word_counts(items: Iterable[str]) -> dict[str, int]:
    """``["low=5", "lower=2"]`` -> ``{"low": 5, "lower": 2}``, in the order given.

    Raises ``ValueError`` naming the first bad item and what it should look like.
    """
    counts: dict[str, int] = {}
    for item in items:
        word, count = _parse_word_count(item)
        if word in counts:
            raise ValueError(f"word {word!r} is given twice ({word}={counts[word]} and {item})")
        counts[word] = count
    return counts


def _parse_word_count(item: str) -> tuple[str, int]:
    word, equals, count_text = item.rpartition("=")
    if not equals:
        raise ValueError(
            f"bad word count {item!r}: expected WORD=COUNT, e.g. low=5 (word counts are "
            f"WORD=COUNT entries; texts are given without --word-counts)"
        )
    if not word:
        raise ValueError(f"bad word count {item!r}: the word before '=' is empty")
    if any(char.isspace() for char in word):
        raise ValueError(f"bad word count {item!r}: a word cannot contain whitespace")
    if not _COUNT.fullmatch(count_text) or int(count_text) == 0:
        raise ValueError(
            f"bad word count {item!r}: the count must be a positive integer, e.g. {word}=5"
        )
    return word, int(count_text)


# --- small pieces -------------------------------------------------------------------------


def format_pair(pair: Pair) -> str:
    return f"({pair[0]}, {pair[1]})"


def format_rule(pair: Pair) -> str:
    return f"{pair[0]} {pair[1]} -> {pair[0] + pair[1]}"


def format_tokens(tokens: Sequence[str]) -> str:
    return "[" + ", ".join(tokens) + "]"


def _more(hidden: int, noun: str) -> str:
    return f"... and {hidden} more {noun}{'' if hidden == 1 else 's'}"


def _plural(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _shown(items: list, limit: int) -> tuple[list, int]:
    """The first ``limit`` items (all of them when ``limit`` is 0) and how many were left out."""
    if limit <= 0 or len(items) <= limit:
        return items, 0
    return items[:limit], len(items) - limit


def format_corpus(words: Segmentation, limit: int = 0) -> list[str]:
    """One line per word, its count then its symbols: ``4x  c a t </w>``."""
    if not words:
        return ["(no words)"]
    entries, hidden = _shown(list(words.items()), limit)
    width = max(len(str(count)) for _, count in entries)
    lines = [f"{count:>{width}}x  {' '.join(symbols)}" for symbols, count in entries]
    if hidden:
        lines.append(_more(hidden, "word"))
    return lines


def ranked_pairs(pair_counts: dict[Pair, int], tie_break: str) -> list[tuple[Pair, int]]:
    """Pairs highest count first; equal counts in the order the rule prefers them."""
    by_count: dict[int, list[Pair]] = {}
    for pair, count in pair_counts.items():  # first-seen order, which order_tied relies on
        by_count.setdefault(count, []).append(pair)
    return [
        (pair, count)
        for count in sorted(by_count, reverse=True)
        for pair in order_tied(by_count[count], tie_break)
    ]


def format_pair_counts(pair_counts: dict[Pair, int], tie_break: str, limit: int = 0) -> list[str]:
    entries, hidden = _shown(ranked_pairs(pair_counts, tie_break), limit)
    width = max(len(format_pair(pair)) for pair, _ in entries)
    lines = [f"{format_pair(pair):<{width}}  {count}" for pair, count in entries]
    if hidden:
        lines.append(_more(hidden, "pair"))
    return lines


# --- why the winner won -------------------------------------------------------------------


def first_met_in(words: Segmentation, pair: Pair) -> tuple[str, ...] | None:
    """The first word (in corpus order) whose segmentation contains ``pair``."""
    for symbols in words:
        if pair in zip(symbols, symbols[1:]):
            return symbols
    return None


def _ordering(tied: list[Pair], tie_break: str) -> str:
    """The comparison that puts the winner first, e.g. ``cap < cat < p</w>``."""
    if tie_break == CONCATENATED:
        joined = [a + b for a, b in tied]
        parts = [joined[0]]
        for before, after in zip(joined, joined[1:]):
            parts.append(("= " if before == after else "< ") + after)
        if len(set(joined)) < len(joined):
            parts.append("(equal joins: the smaller pair (a, b) first)")
        return " ".join(parts)
    if tie_break == LEXICOGRAPHIC:
        return " < ".join(format_pair(pair) for pair in tied)
    if tie_break == REVERSE_LEXICOGRAPHIC:
        return " > ".join(format_pair(pair) for pair in tied)
    return "scan order " + ", then ".join(format_pair(pair) for pair in tied)


def _why(step: Step, shown: list[Pair], words_before: Segmentation, tie_break: str) -> str:
    ordering = _ordering(shown, tie_break)
    if tie_break != FIRST_SEEN:
        return ordering
    word = " ".join(first_met_in(words_before, step.pair) or ())
    return f"{ordering}; {format_pair(step.pair)} is first met in '{word}'"


def explain_choice(step: Step, words_before: Segmentation, tie_break: str, limit: int = 0) -> list[str]:
    """Lines saying whether the top count was tied and how the rule broke the tie."""
    if len(step.tied) == 1:
        return [f"{format_pair(step.pair)} has the highest count, {step.count}; no tie to break."]
    shown, hidden = _shown(step.tied, limit)
    listed = ", ".join(format_pair(pair) for pair in shown)
    if hidden:
        listed += f", {_more(hidden, 'pair')}"
    return [
        f"tie at {step.count} between {len(step.tied)} pairs: {listed}",
        f"{tie_break} picks {format_pair(step.pair)}: {DESCRIPTIONS[tie_break]}",
        INDENT + _why(step, shown, words_before, tie_break),
    ]


# --- a whole training run -----------------------------------------------------------------


def render_step(
    step: Step,
    words_before: Segmentation,
    num_merges: int,
    tie_break: str,
    *,
    show_pairs: int = 10,
    show_words: int = 20,
) -> str:
    lines = [f"Merge {step.number} of {num_merges}"]
    lines.append(f"{INDENT}corpus before the merge:")
    lines += [INDENT * 2 + line for line in format_corpus(words_before, show_words)]
    lines.append(f"{INDENT}pair counts, highest first ({_plural(len(step.pair_counts), 'pair')}):")
    lines += [INDENT * 2 + line for line in format_pair_counts(step.pair_counts, tie_break, show_pairs)]
    lines += [INDENT + line for line in explain_choice(step, words_before, tie_break, show_pairs)]
    lines.append(f"{INDENT}new token: {step.token}   (rule {step.number}: {format_rule(step.pair)})")
    return "\n".join(lines)


def stop_reason(words: Segmentation, merges_done: int, num_merges: int) -> str | None:
    """Why training ended before ``num_merges`` merges, or None if it did not."""
    if merges_done >= num_merges:
        return None
    done = f"Stopped after {merges_done} of {num_merges} merges: "
    if not words:
        return done + "the corpus has no words, so there are no pairs to merge."
    return done + "no pairs left (every word is a single symbol)."


def render_header(counts: dict[str, int], num_merges: int, tie_break: str, end_of_word: str) -> str:
    marker = f"end-of-word marker {end_of_word}" if end_of_word else "no end-of-word marker"
    return "\n".join(
        [
            f"BPE training: up to {_plural(num_merges, 'merge')} on "
            f"{_plural(len(counts), 'distinct word')} ({sum(counts.values())} in all), {marker}",
            f"Ties broken by {tie_break}: {DESCRIPTIONS[tie_break]}",
        ]
    )


def render_summary(words: Segmentation, merges: list[Pair], show_words: int = 20) -> str:
    lines = [f"Final corpus after {_plural(len(merges), 'merge')}:"]
    lines += [INDENT + line for line in format_corpus(words, show_words)]
    lines.append(f"Merge list ({_plural(len(merges), 'rule')}):")
    lines += [f"{INDENT}{number}. {format_rule(pair)}" for number, pair in enumerate(merges, 1)]
    if not merges:
        lines.append(f"{INDENT}(none)")
    return "\n".join(lines)


def render_training(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = LEXICOGRAPHIC,
    end_of_word: str = END_OF_WORD,
    show_pairs: int = 10,
    show_words: int = 20,
) -> tuple[str, list[Pair]]:
    """The whole training trace, and the merges it learned (for encoding afterwards).

    ``show_pairs`` and ``show_words`` cap the pair and corpus listings (0 shows all).
    Bad arguments raise the reference's ``BPEInputError``.
    """
    check_training_options(num_merges, tie_break)
    counts = word_counts(corpus)
    words = initial_segmentation(counts, check_end_of_word(end_of_word))
    sections = [render_header(counts, num_merges, tie_break, end_of_word)]
    merges: list[Pair] = []
    for step in train_steps(counts, num_merges, tie_break=tie_break, end_of_word=end_of_word):
        sections.append(
            render_step(step, words, num_merges, tie_break, show_pairs=show_pairs, show_words=show_words)
        )
        merges.append(step.pair)
        words = step.words_after
    reason = stop_reason(words, len(merges), num_merges)
    if reason:
        sections.append(reason)
    sections.append(render_summary(words, merges, show_words))
    return "\n\n".join(sections), merges


# --- encoding -----------------------------------------------------------------------------


def render_encoding(word: str, merges: Sequence[Pair], *, end_of_word: str = END_OF_WORD) -> str:
    """Each merge rule applied to ``word``, lowest rank first, and the tokens it ends with."""
    encoder = Encoder(merges, end_of_word=end_of_word)
    start = segment(word, end_of_word)
    rows = [("start", start)]
    rows += [(f"rule {step.rank + 1} {format_pair(step.pair)}", step.tokens) for step in encoder.steps(word)]
    width = max(len(label) for label, _ in rows) + 1
    lines = [f"Encoding {word!r} with {_plural(len(merges), 'merge rule')}, lowest rank first:"]
    lines += [f"{INDENT}{label + ':':<{width}}  {' '.join(tokens)}" for label, tokens in rows]
    final = rows[-1][1]
    remaining = list(zip(final, final[1:]))
    if remaining:
        pairs = ", ".join(format_pair(pair) for pair in remaining)
        lines.append(f"{INDENT}no rule matches {pairs}: stop.")
    else:
        lines.append(f"{INDENT}a single token is left: stop.")
    lines.append(f"{INDENT}tokens: {format_tokens(final)}")
    return "\n".join(lines)


def render_trace(
    corpus: object,
    num_merges: int,
    *,
    tie_break: str = LEXICOGRAPHIC,
    end_of_word: str = END_OF_WORD,
    encode_words: Sequence[str] = (),
    show_pairs: int = 10,
    show_words: int = 20,
) -> str:
    """Training trace followed by one encoding trace per word in ``encode_words``."""
    text, merges = render_training(
        corpus,
        num_merges,
        tie_break=tie_break,
        end_of_word=end_of_word,
        show_pairs=show_pairs,
        show_words=show_words,
    )
    encodings = [render_encoding(word, merges, end_of_word=end_of_word) for word in encode_words]
    return "\n\n".join([text, *encodings])
