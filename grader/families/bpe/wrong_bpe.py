"""Wrong BPE, as students write it: the lesson's algorithm with one thing done wrong.

Each function here is one known mistake's implementation; :mod:`grader.families.bpe.catalogue`
names them, says how to fix them and gives each a witness input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from reference.corpus import END_OF_WORD, Symbols, segment, word_counts
from reference.encoding import encode
from reference.plain import (
    Segmentation,
    count_pairs,
    initial_segmentation,
    merge_symbols,
    train_bpe,
)
from reference.sequence_lengths import sequence_lengths
from reference.tie_breaks import (
    LEXICOGRAPHIC,
    Pair,
    best_pair,
)

# --- training, with one part swapped out ---------------------------------------------------

PairCounter = Callable[[Segmentation], dict[Pair, int]]
PairPicker = Callable[[dict[Pair, int], str], Pair]
Merger = Callable[[Symbols, Pair], Symbols]


def _train(
    words: Segmentation,
    num_merges: int,
    tie_break: str,
    *,
    count: PairCounter = count_pairs,
    pick: PairPicker = best_pair,
    merge: Merger = merge_symbols,
) -> list[Pair]:
    """The lesson's training loop; a mistake replaces how pairs are counted, picked or merged."""
    merges: list[Pair] = []
    for _ in range(num_merges):
        pair_counts = count(words)
        if not pair_counts:
            break
        pair = pick(pair_counts, tie_break)
        merges.append(pair)
        words = _merge_words(words, pair, merge)
    return merges


def _merge_words(words: Segmentation, pair: Pair, merge: Merger) -> Segmentation:
    # A wrong merge can make two words look alike; their counts add up, as in a Counter.
    merged: Segmentation = {}
    for symbols, count in words.items():
        new_symbols = merge(symbols, pair)
        merged[new_symbols] = merged.get(new_symbols, 0) + count
    return merged


def _words(corpus: object, end_of_word: str) -> Segmentation:
    return initial_segmentation(word_counts(corpus), end_of_word)


def _tie_rule_trainer(rule: str) -> Callable[..., list[Pair]]:
    def run(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
        return train_bpe(corpus, num_merges, tie_break=rule, end_of_word=end_of_word)

    run.__name__ = f"train_with_{rule.replace('-', '_')}_ties"
    return run


def _pick_last_seen(pair_counts: dict[Pair, int], tie_break: str) -> Pair:
    """``if count >= best_count``: among tied pairs the one met last wins."""
    best, best_count = None, -1
    for pair, count in pair_counts.items():
        if count >= best_count:
            best, best_count = pair, count
    assert best is not None  # pair_counts is never empty here
    return best


def train_ties_last_seen(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    return _train(_words(corpus, end_of_word), num_merges, tie_break, pick=_pick_last_seen)


def train_without_marker(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    return train_bpe(corpus, num_merges, tie_break=tie_break, end_of_word="")


def train_marker_glued(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    return train_bpe(
        corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word, fuse_end_of_word=True
    )


def train_marker_split(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    """``tuple(word + "</w>")``: the marker becomes the characters ``<``, ``/``, ``w``, ``>``."""
    words: Segmentation = {}
    for word, count in word_counts(corpus).items():
        symbols = tuple(word + end_of_word)
        words[symbols] = words.get(symbols, 0) + count
    return _train(words, num_merges, tie_break)


def train_unweighted(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    """Every distinct word counted once, however often it occurs."""
    once_each = dict.fromkeys(word_counts(corpus), 1)
    return train_bpe(once_each, num_merges, tie_break=tie_break, end_of_word=end_of_word)


def _count_pairs_once_per_word(words: Segmentation) -> dict[Pair, int]:
    # dict.fromkeys rather than set() keeps the scan order, so first-seen ties stay defined.
    pairs: dict[Pair, int] = {}
    for symbols, count in words.items():
        for pair in dict.fromkeys(zip(symbols, symbols[1:])):
            pairs[pair] = pairs.get(pair, 0) + count
    return pairs


def count_pairs_unweighted(words: Segmentation) -> dict[Pair, int]:
    """``pairs[pair] += 1``: every occurrence counts once, whatever its word's count."""
    pairs: dict[Pair, int] = {}
    for symbols in words:
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + 1
    return pairs


def count_pairs_once_per_word(words: Segmentation) -> dict[Pair, int]:
    """A pair repeated inside one word counted once (the pairs of a word through a set)."""
    return _count_pairs_once_per_word(dict(words))


def count_pairs_across_words(words: Segmentation) -> dict[Pair, int]:
    """One stream over every word: the last symbol of a word pairs with the next word's first."""
    pairs: dict[Pair, int] = {}
    previous = None
    for symbols, count in words.items():
        for symbol in symbols:
            if previous is not None:
                pairs[(previous, symbol)] = pairs.get((previous, symbol), 0) + count
            previous = symbol
    return pairs


def train_pairs_once_per_word(
    corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD
):
    return _train(
        _words(corpus, end_of_word), num_merges, tie_break, count=_count_pairs_once_per_word
    )


def _text_streams(corpus: object, end_of_word: str) -> Segmentation:
    """Each text as one symbol stream: its words' symbols, marker included, back to back.

    A word-count corpus is one stream: each word repeated as often as it is counted.
    """
    if isinstance(corpus, Mapping):
        counts = word_counts(corpus)
        texts = [[word for word, count in counts.items() for _ in range(count)]]
    else:
        raw_texts = list(corpus)  # type: ignore[call-overload]
        word_counts(raw_texts)  # the same validation and errors as the reference
        texts = [text.split() for text in raw_texts]
    streams: Segmentation = {}
    for text_words in texts:
        stream = tuple(symbol for word in text_words for symbol in segment(word, end_of_word))
        streams[stream] = streams.get(stream, 0) + 1
    return streams


def train_across_words(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    return _train(_text_streams(corpus, end_of_word), num_merges, tie_break)


def train_texts_not_split(
    corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD
):
    """``tuple(text) + ("</w>",)`` for each whole text: spaces become symbols too."""
    if isinstance(corpus, Mapping):
        return train_bpe(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    texts = list(corpus)  # type: ignore[call-overload]
    word_counts(texts)  # the same validation and errors as the reference
    words: Segmentation = {}
    for text in texts:
        symbols = tuple(text) + ((end_of_word,) if end_of_word else ())
        words[symbols] = words.get(symbols, 0) + 1
    return _train(words, num_merges, tie_break)


def train_stale_counts(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    """Pairs counted once, before any merge; then the top ``num_merges`` of those counts.

    Recounting the unmerged words at every step and skipping pairs already chosen gives
    this same list, so one entry covers both.
    """
    remaining = count_pairs(_words(corpus, end_of_word))
    merges: list[Pair] = []
    while remaining and len(merges) < num_merges:
        pair = best_pair(remaining, tie_break)
        merges.append(pair)
        del remaining[pair]
    return merges


def train_merge_discarded(
    corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD
):
    """The merged words are computed but never kept, so every step sees the same counts."""
    pair_counts = count_pairs(_words(corpus, end_of_word))
    if not pair_counts:
        return []
    return [best_pair(pair_counts, tie_break)] * num_merges


def merge_right_to_left(symbols: Symbols, pair: Pair) -> Symbols:
    """Occurrences replaced scanning from the end: ``a a a`` -> ``a aa``."""
    first, second = pair
    out: list[str] = []
    i = len(symbols) - 1
    while i >= 0:
        if i >= 1 and symbols[i - 1] == first and symbols[i] == second:
            out.append(first + second)
            i -= 2
        else:
            out.append(symbols[i])
            i -= 1
    return tuple(reversed(out))


def train_merge_right_to_left(
    corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD
):
    return _train(_words(corpus, end_of_word), num_merges, tie_break, merge=merge_right_to_left)


def merge_by_string_replace(symbols: Symbols, pair: Pair) -> Symbols:
    """``" ".join(symbols).replace("a b", "ab").split(" ")``: matches inside longer symbols."""
    first, second = pair
    return tuple(" ".join(symbols).replace(f"{first} {second}", first + second).split(" "))


def train_merge_by_string_replace(
    corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD
):
    return _train(
        _words(corpus, end_of_word), num_merges, tie_break, merge=merge_by_string_replace
    )


def merge_first_occurrence(symbols: Symbols, pair: Pair) -> Symbols:
    """Only the first occurrence of ``pair`` is replaced."""
    for i in range(len(symbols) - 1):
        if (symbols[i], symbols[i + 1]) == pair:
            return symbols[:i] + (symbols[i] + symbols[i + 1],) + symbols[i + 2 :]
    return symbols


def train_merge_first_occurrence(
    corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD
):
    return _train(
        _words(corpus, end_of_word), num_merges, tie_break, merge=merge_first_occurrence
    )


def train_one_too_many(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    return train_bpe(corpus, num_merges + 1, tie_break=tie_break, end_of_word=end_of_word)


def train_one_too_few(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    return train_bpe(corpus, max(num_merges - 1, 0), tie_break=tie_break, end_of_word=end_of_word)


def train_repeat_last_when_done(
    corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD
):
    """``merges.append(best)`` outside ``if pairs:``: the last merge repeats to the end."""
    merges = train_bpe(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    if not merges:
        return merges
    return merges + [merges[-1]] * (num_merges - len(merges))


def train_sorted(corpus, num_merges, *, tie_break=LEXICOGRAPHIC, end_of_word=END_OF_WORD):
    """Merges sorted as pairs. (Sorting by count is no mistake to catalogue: the winning
    count never rises from one merge to the next, so a stable sort keeps the learned order.)"""
    return sorted(train_bpe(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word))


# --- encoding ------------------------------------------------------------------------------


def _merge_at(symbols: list[str], i: int) -> list[str]:
    return symbols[:i] + [symbols[i] + symbols[i + 1]] + symbols[i + 2 :]


def encode_left_to_right(word, merges, *, end_of_word=END_OF_WORD):
    """Repeatedly merge the leftmost adjacent pair that is in the merge list, whatever its rank."""
    known = {tuple(pair) for pair in merges}
    symbols = list(segment(word, end_of_word))
    while True:
        for i in range(len(symbols) - 1):
            if (symbols[i], symbols[i + 1]) in known:
                symbols = _merge_at(symbols, i)
                break
        else:
            return symbols


def encode_longest_match(word, merges, *, end_of_word=END_OF_WORD):
    """At each position take the longest run of symbols whose text is a learned token."""
    vocabulary = {first + second for first, second in merges}
    symbols = list(segment(word, end_of_word))
    tokens: list[str] = []
    i = 0
    while i < len(symbols):
        end = len(symbols)
        while end > i + 1 and "".join(symbols[i:end]) not in vocabulary:
            end -= 1
        tokens.append("".join(symbols[i:end]))
        i = end
    return tokens


def encode_first_occurrence_only(word, merges, *, end_of_word=END_OF_WORD):
    """Each merge, in rank order, replaces only its first occurrence in the word."""
    symbols = segment(word, end_of_word)
    for first, second in merges:
        symbols = merge_first_occurrence(symbols, (first, second))
    return list(symbols)


def encode_reverse_rank(word, merges, *, end_of_word=END_OF_WORD):
    """One pass per merge, starting from the last one learned."""
    symbols = segment(word, end_of_word)
    for first, second in reversed(list(merges)):
        symbols = merge_symbols(symbols, (first, second))
    return list(symbols)


def encode_most_frequent_in_word(word, merges, *, end_of_word=END_OF_WORD):
    """Repeatedly merge the known pair that occurs most often in this word (first met wins ties)."""
    known = {tuple(pair) for pair in merges}
    symbols = segment(word, end_of_word)
    while True:
        counts: dict[Pair, int] = {}
        for pair in zip(symbols, symbols[1:]):
            if pair in known:
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            return list(symbols)
        symbols = merge_symbols(symbols, max(counts, key=counts.__getitem__))


def encode_without_marker(word, merges, *, end_of_word=END_OF_WORD):
    return encode(word, merges, end_of_word="")


def encode_marker_after_merging(word, merges, *, end_of_word=END_OF_WORD):
    tokens = encode(word, merges, end_of_word="")
    return tokens + [end_of_word] if end_of_word else tokens


def encode_marker_dropped(word, merges, *, end_of_word=END_OF_WORD):
    """Merged correctly, then the lone marker token filtered out of the result."""
    tokens = encode(word, merges, end_of_word=end_of_word)
    return [token for token in tokens if token != end_of_word]


def encode_marker_glued(word, merges, *, end_of_word=END_OF_WORD):
    return encode(word, merges, end_of_word=end_of_word, fuse_end_of_word=True)


def _encode_by_rank(symbols: Symbols, merges) -> list[str]:
    ranks: dict[Pair, int] = {}
    for rank, (first, second) in enumerate(merges):
        ranks.setdefault((first, second), rank)
    while True:
        found = [pair for pair in zip(symbols, symbols[1:]) if pair in ranks]
        if not found:
            return list(symbols)
        symbols = merge_symbols(symbols, min(found, key=ranks.__getitem__))


def encode_marker_split(word, merges, *, end_of_word=END_OF_WORD):
    """``list(word + "</w>")``: the marker enters as separate characters."""
    return _encode_by_rank(tuple(word + end_of_word), merges)


# --- sequence lengths (lesson 97, milestone 3): the right counts, changed in one place ------


def lengths_char_letters_only(sentence, merges, *, end_of_word=END_OF_WORD):
    return sequence_lengths(sentence, merges, end_of_word=end_of_word) | {
        "char": sum(len(word) for word in sentence.split())
    }


def lengths_char_with_spaces(sentence, merges, *, end_of_word=END_OF_WORD):
    return sequence_lengths(sentence, merges, end_of_word=end_of_word) | {"char": len(sentence)}


def lengths_marker_never_counted(sentence, merges, *, end_of_word=END_OF_WORD):
    words = sentence.split()
    return {
        "char": sum(len(word) for word in words),
        "bpe": sum(
            len(encode_marker_dropped(word, merges, end_of_word=end_of_word)) for word in words
        ),
        "word": len(words),
    }


def lengths_word_with_marker(sentence, merges, *, end_of_word=END_OF_WORD):
    words = sentence.split()
    per_word = 2 if end_of_word else 1
    return sequence_lengths(sentence, merges, end_of_word=end_of_word) | {
        "word": per_word * len(words)
    }


def lengths_bpe_whole_sentence(sentence, merges, *, end_of_word=END_OF_WORD):
    """The whole sentence tokenized as one word: spaces are characters, one marker at the end."""
    return sequence_lengths(sentence, merges, end_of_word=end_of_word) | {
        "bpe": len(encode(sentence, merges, end_of_word=end_of_word))
    }


def lengths_distinct_words(sentence, merges, *, end_of_word=END_OF_WORD):
    return sequence_lengths(sentence, merges, end_of_word=end_of_word) | {
        "word": len(set(sentence.split()))
    }
