"""What a trainer's merges show when no catalogued mistake explains them: structural signals.

Code with several quirks at once matches no entry of the catalogue, yet its merges can still
say something true and checkable: a merge of a symbol the words never have at that step (a
marker glued onto the last character, ``t</w>``; a symbol of another segmentation, ``##e``)
means the words are not split into symbols as the conventions say, or, when the student's
earlier merges replayed with ``str.replace`` make that symbol, that a merge joined parts of
longer symbols. :func:`train_signals`
replays each failing input's merges on its corpus and reports the first such merge; the
signal is a fact about the student's own output, never a guess at its cause.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from grader.families.bpe.merge_replay import first_departure
from grader.families.api import Observation
from reference.corpus import segment, word_counts
from reference.plain import initial_segmentation, merge_words

SIGNAL_ID = "signal-unknown-symbol"
TITLE = "A merge of a symbol these words never have"


def train_signals(observations: Sequence[Observation], options: Mapping[str, Any]
                  ) -> list[tuple[str, str, str]]:
    """``(id, title, message)`` for the first failing input whose merges (canonical: a list
    of string pairs, else not a list) join a symbol that does not occur in its words at that
    step; none when every merge is of real symbols."""
    marker = options.get("end_of_word", "")
    for observation in observations:
        merges = observation.actual
        corpus = observation.inputs.get("corpus")
        if not isinstance(merges, list) or corpus is None:
            continue
        try:
            departure = first_departure(corpus, merges, marker)
        except Exception:  # noqa: BLE001 - a corpus the replay cannot read says nothing
            continue
        if departure is None or departure.count != 0:
            continue
        symbols = _symbols_before(corpus, merges[:departure.index], marker)
        pair = merges[departure.index]
        unknown = [part for part in pair if part not in symbols]
        if not unknown:
            continue  # both symbols exist, just never side by side: not this signal
        shown = " and ".join(repr(part) for part in unknown)
        fact = (f"Merge {departure.index + 1} of yours, {pair!r}, joins {shown}, which is not a "
                f"symbol of these words at that step (on the input with corpus {corpus!r}).")
        if departure.index and all(part in _replaced_symbols(corpus, merges[:departure.index], marker)
                                   for part in unknown):
            return [(SIGNAL_ID, TITLE, fact + (
                f" Each of your first {departure.index} merges is a most frequent pair of the "
                "words, and replacing each as text in the space-joined symbols (str.replace) "
                "makes exactly that symbol: "
                "a merge must join only two whole symbols side by side, never parts of longer "
                "ones."))]
        example = next(iter(word_counts(corpus)), "")
        start = list(segment(example, marker)) if example else []
        return [(SIGNAL_ID, TITLE, fact + (
            f" Check how your words are split into symbols before training: "
            f"{example!r} starts as {start!r}."))]
    return []


def _symbols_before(corpus: Any, merges: list[tuple[str, str]], marker: str) -> set[str]:
    words = initial_segmentation(word_counts(corpus), marker)
    for pair in merges:
        words = merge_words(words, pair)
    return {symbol for symbols in words for symbol in symbols}


def _replaced_symbols(corpus: Any, merges: list[tuple[str, str]], marker: str) -> set[str]:
    """The symbols of the words after ``merges`` made by ``str.replace`` on the space-joined
    symbols (which also joins parts of longer symbols)."""
    texts = [" ".join(symbols) for symbols in initial_segmentation(word_counts(corpus), marker)]
    for first, second in merges:
        texts = [text.replace(f"{first} {second}", first + second) for text in texts]
    return {symbol for text in texts for symbol in text.split()}
