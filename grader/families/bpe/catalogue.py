"""The catalogue of known student mistakes in BPE, each one a runnable implementation.

A :class:`~grader.spec.mistake_book.Mistake` computes exactly what a student who made that mistake
returns, in the grader's canonical form, so the grader can name it when its output equals the
student's (``grader.mistakes.diagnosis``). Each entry teaches through its ``hint`` and carries a ``witness``:
a small input, as keyword arguments of ``run``, on which its output differs from the
reference's. One ``run`` signature per role:

- ``train``: ``run(corpus, num_merges, *, tie_break, end_of_word) -> list[(str, str)]``
- ``encode``: ``run(word, merges, *, end_of_word) -> list[str]``
- ``sequence_lengths``: ``run(sentence, merges, *, end_of_word) -> {"char", "bpe", "word"}``
- ``count_pairs``: ``run(words) -> {(a, b): count}`` (the entries of its own module)
- ``merge_pair``: ``run(pair, words) -> {symbols: count}`` (the entries of its own module)
- ``vocab_tradeoff``: ``run(corpus, sizes, d_model, *, tie_break, end_of_word) -> rows``
  (the entries of its own module)

The implementations are deliberately plain: each is the lesson's algorithm with one thing
done the way students get it wrong. Entries are listed most specific first, and where two
often reproduce the same output the likelier explanation comes first (the named tie rules
before a ``>=`` loop, a sorted merge list last); the grader keeps this order.
"""

from __future__ import annotations

from grader.families.bpe.merging import MISTAKES as MERGE_MISTAKES
from grader.families.bpe.pair_counts import MISTAKES as COUNT_MISTAKES
from grader.families.bpe.real_code import real_code_mistakes
from grader.families.bpe.tradeoff_mistakes import MISTAKES as TRADEOFF_MISTAKES
from grader.families.bpe.witnesses import (  # the lessons' inputs, also for the tests
    LESSON_MERGES,
    LESSON_SENTENCE,
    LESSON_WORD_COUNTS,
    SOLVED_PROBLEM_TEXTS,
    encode_input,
    lengths_input,
    train_input,
)
from grader.families.bpe.wrong_bpe import (
    _tie_rule_trainer,
    encode_first_occurrence_only,
    encode_left_to_right,
    encode_longest_match,
    encode_marker_after_merging,
    encode_marker_dropped,
    encode_marker_glued,
    encode_marker_split,
    encode_most_frequent_in_word,
    encode_reverse_rank,
    encode_without_marker,
    lengths_bpe_whole_sentence,
    lengths_char_letters_only,
    lengths_char_with_spaces,
    lengths_distinct_words,
    lengths_marker_never_counted,
    lengths_word_with_marker,
    train_across_words,
    train_marker_glued,
    train_marker_split,
    train_merge_by_string_replace,
    train_merge_discarded,
    train_merge_first_occurrence,
    train_merge_right_to_left,
    train_one_too_few,
    train_one_too_many,
    train_pairs_once_per_word,
    train_repeat_last_when_done,
    train_sorted,
    train_stale_counts,
    train_texts_not_split,
    train_ties_last_seen,
    train_unweighted,
    train_without_marker,
)
from grader.families.api import Mistake
from reference.plain import train_bpe
from reference.tie_breaks import CONCATENATED, DESCRIPTIONS, FIRST_SEEN, LEXICOGRAPHIC
from reference.tie_breaks import REVERSE_LEXICOGRAPHIC, TIE_BREAKS

ROLES = ("train", "encode", "sequence_lengths", "count_pairs", "merge_pair", "vocab_tradeoff")

_CAT_CAP = ["cat cat cat cat cap cap cap cap"]

# The exercise's own rule in each witness is one the entry's rule disagrees with there.
_TIE_WITNESSES = {
    LEXICOGRAPHIC: train_input(LESSON_WORD_COUNTS, 6, FIRST_SEEN),
    CONCATENATED: train_input(_CAT_CAP, 4),
    FIRST_SEEN: train_input(LESSON_WORD_COUNTS, 6),
    REVERSE_LEXICOGRAPHIC: train_input(_CAT_CAP, 4),
}

_TIE_NAMES = {
    LEXICOGRAPHIC: "the smallest pair",
    CONCATENATED: "the alphabetically smallest joined string",
    FIRST_SEEN: "the pair met first",
    REVERSE_LEXICOGRAPHIC: "the largest pair",
}

_TIE_CODE = {
    LEXICOGRAPHIC: "`min(pairs, key=lambda p: (-pairs[p], p))`",
    CONCATENATED: "`min(pairs, key=lambda p: (-pairs[p], p[0] + p[1], p))`",
    FIRST_SEEN: "`max(pairs, key=pairs.get)` over pairs counted in corpus order",
    REVERSE_LEXICOGRAPHIC: "`max(pairs, key=lambda p: (pairs[p], p))`",
}


def _tie_rule_mistake(rule: str) -> Mistake:
    return Mistake(
        id=f"ties-{rule}",
        title=f"Ties broken by {_TIE_NAMES[rule]}",
        hint=(
            f"When several pairs share the top count, your code picks {DESCRIPTIONS[rule]}, "
            f"as {_TIE_CODE[rule]} does. That is a real convention, just not this exercise's: "
            "reread its tie-break rule and choose among the tied pairs with exactly that rule, "
            "because one different tie changes every merge after it."
        ),
        role="train",
        run=_tie_rule_trainer(rule),
        witness=_TIE_WITNESSES[rule],
        convention={"tie_break": rule},
    )


TRAIN_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="marker-split",
        title="End-of-word marker split into characters",
        hint=(
            'Building a word as `tuple(word + "</w>")` (or `list(...)`) turns the marker into '
            "four symbols `<`, `/`, `w`, `>`, so training first learns to glue the marker back "
            'together. Add it as one symbol instead: `tuple(word) + ("</w>",)`.'
        ),
        role="train",
        run=train_marker_split,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="marker-glued",
        title="End-of-word marker glued to the last character",
        hint=(
            'Your words end in one symbol like `w</w>` instead of `w` followed by `</w>`, the way '
            "subword-nmt writes them. Here the marker is a symbol of its own, so `(t, </w>)` is a "
            'pair training can count and merge: build each word as `tuple(word) + ("</w>",)`.'
        ),
        role="train",
        run=train_marker_glued,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="no-end-of-word",
        title="No end-of-word marker",
        hint=(
            "Your words are just their characters, so pairs like `(t, </w>)` never exist and the "
            "end of a word looks like its middle. Append the marker as a separate last symbol of "
            'every word before counting: `tuple(word) + ("</w>",)`.'
        ),
        role="train",
        run=train_without_marker,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="raw-text",
        title="Pairs counted on the raw text, spaces included",
        hint=(
            "Each whole text became one long symbol sequence, so spaces are symbols and pairs "
            "like `(t, ' ')` get counted and merged. Split every text into words first "
            "(`text.split()`) and count pairs inside each word only."
        ),
        role="train",
        run=train_texts_not_split,
        witness=train_input(SOLVED_PROBLEM_TEXTS, 6),
    ),
    Mistake(
        id="across-word-boundaries",
        title="Pairs counted across word boundaries",
        hint=(
            "Your words were joined into one stream, so the last symbol of a word and the first "
            "of the next form a pair (like `(</w>, l)`) and can be merged. BPE never merges across "
            "words: keep each word a separate sequence and count pairs within it."
        ),
        role="train",
        run=train_across_words,
        witness=train_input(SOLVED_PROBLEM_TEXTS, 6),
    ),
    Mistake(
        id="unweighted-counts",
        title="Pair counts not weighted by word frequency",
        hint=(
            "Each distinct word adds 1 to its pairs, however often it occurs, so a word seen 6 "
            "times counts like one seen once. Add the word's count instead: "
            "`pairs[(a, b)] += freq` for each adjacent pair of a word that occurs `freq` times."
        ),
        role="train",
        run=train_unweighted,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="pairs-once-per-word",
        title="A pair repeated inside a word counted once",
        hint=(
            "A pair that occurs twice in one word (`a n` in `banana`) adds to its count only once, "
            "as when the pairs of a word go through a `set`. Count every position: loop over "
            "`zip(symbols, symbols[1:])` and add the word's frequency each time."
        ),
        role="train",
        run=train_pairs_once_per_word,
        witness=train_input(["banana"], 2),
    ),
    Mistake(
        id="stale-counts",
        title="Pair counts taken once from the original corpus",
        hint=(
            "Your merges are the top pairs of the very first count, in order, so a pair made "
            "of merged symbols such as `(es, t)` can never win. Count pairs again after every "
            "merge, on the words as they are after that merge."
        ),
        role="train",
        run=train_stale_counts,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="merge-discarded",
        title="Words never rewritten after a merge",
        hint=(
            "Every step picks the same pair, which happens when the merged words are computed "
            "but never kept (e.g. calling `merge_vocab(best, vocab)` without assigning it). "
            "Replace the words with the merged ones each step: `vocab = merge_vocab(best, vocab)`."
        ),
        role="train",
        run=train_merge_discarded,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="merge-by-string-replace",
        title="Merged with string replace, which matches inside longer symbols",
        hint=(
            'Replacing `"a b"` by `"ab"` in the space-joined symbols also hits `a b</w>` or '
            '`ca b`, where `a` or `b` is only part of a symbol, so tokens merge that are not '
            "the chosen pair. Walk the symbol list and merge position i only when "
            "`symbols[i] == a and symbols[i + 1] == b`."
        ),
        role="train",
        run=train_merge_by_string_replace,
        witness=train_input(["ab abc b b"], 3),
    ),
    Mistake(
        id="overlap-right-to-left",
        title="Overlapping occurrences merged from the right",
        hint=(
            "When a pair overlaps itself, as `(a, a)` does in `a a a`, your merge gives `a aa`; "
            "BPE scans left to right and gives `aa a`. Scan from the start and, after a merge, "
            "skip past both merged symbols (`i += 2`)."
        ),
        role="train",
        run=train_merge_right_to_left,
        witness=train_input(["aaa"], 2),
    ),
    Mistake(
        id="merge-first-occurrence",
        title="Only the first occurrence of the pair merged in each word",
        hint=(
            "A word containing the chosen pair twice (`l o w l o w`) gets only its first "
            "occurrence merged, as code that finds one index and stops does. Replace every "
            "non-overlapping occurrence, left to right, in one pass over the word."
        ),
        role="train",
        run=train_merge_first_occurrence,
        witness=train_input(["abab"], 2),
    ),
    *(_tie_rule_mistake(rule) for rule in TIE_BREAKS),
    Mistake(
        id="ties-last-seen",
        title="Ties broken by the pair met last",
        hint=(
            "Among pairs with the same count your code keeps the one it met last, which is what "
            "`if count >= best_count:` does. Use a strict `>` (the first one met stays), or "
            "better, pick among the tied pairs with the exercise's stated tie-break rule."
        ),
        role="train",
        run=train_ties_last_seen,
        witness=train_input(_CAT_CAP, 4),
    ),
    Mistake(
        id="one-merge-too-many",
        title="One merge too many",
        hint=(
            "You return one merge more than `num_merges` asks for, typically from "
            "`range(num_merges + 1)` or a `<=` in the loop test. Run the loop exactly "
            "`num_merges` times (`for _ in range(num_merges):`)."
        ),
        role="train",
        run=train_one_too_many,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="one-merge-too-few",
        title="One merge too few",
        hint=(
            "You return one merge fewer than `num_merges` asks for, typically from "
            "`range(1, num_merges)` or stopping one step early. Run the loop exactly "
            "`num_merges` times (`for _ in range(num_merges):`)."
        ),
        role="train",
        run=train_one_too_few,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
    Mistake(
        id="no-stop-when-done",
        title="Last merge repeated after the pairs ran out",
        hint=(
            "Once every word is a single symbol there is nothing left to merge, but your list "
            "keeps growing with copies of the last merge (an `append` outside the `if pairs:`). "
            "Stop as soon as no pair is left: `if not pairs: break`."
        ),
        role="train",
        run=train_repeat_last_when_done,
        witness=train_input(["a"], 10),
    ),
    Mistake(
        id="merges-sorted",
        title="Merges returned sorted instead of in learned order",
        hint=(
            "Your merges are right but sorted, as from `sorted(merges)` or a set. Their order is "
            "the model: encoding applies them by rank, so return them in the order training "
            "learned them."
        ),
        role="train",
        run=train_sorted,
        witness=train_input(LESSON_WORD_COUNTS, 6),
    ),
)

ENCODE_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="encode-marker-split",
        title="End-of-word marker split into characters when encoding",
        hint=(
            'Starting from `list(word + "</w>")` turns the marker into `<`, `/`, `w`, `>`, so '
            "merges that end in `</w>` never match. Start from `list(word) + [\"</w>\"]`."
        ),
        role="encode",
        run=encode_marker_split,
        witness=encode_input("lowest"),
    ),
    Mistake(
        id="encode-marker-glued",
        title="End-of-word marker glued to the last character when encoding",
        hint=(
            "Your word starts as `... s t</w>` instead of `... s t </w>`, so merges that involve "
            "the last letter or the marker no longer match the symbols. Start from the "
            'characters plus a separate marker: `list(word) + ["</w>"]`.'
        ),
        role="encode",
        run=encode_marker_glued,
        witness=encode_input("lowest"),
    ),
    Mistake(
        id="encode-no-end-of-word",
        title="Word encoded without its end-of-word marker",
        hint=(
            "You encode just the word's characters, so merges that end in `</w>` (like `est</w>`) "
            "never fire and the marker is missing from the output. Start from "
            '`list(word) + ["</w>"]`, exactly as in training.'
        ),
        role="encode",
        run=encode_without_marker,
        witness=encode_input("lowest"),
    ),
    Mistake(
        id="encode-marker-after-merging",
        title="End-of-word marker appended after merging",
        hint=(
            "You add `</w>` only after applying the merges, so merges that contain it (like "
            "`est</w>`) never get a chance. Add the marker first, then merge: the marker is part "
            "of the word during encoding just as during training."
        ),
        role="encode",
        run=encode_marker_after_merging,
        witness=encode_input("lowest"),
    ),
    Mistake(
        id="encode-marker-dropped",
        title="End-of-word marker dropped from the tokens",
        hint=(
            "Your tokens are right except that a lone `</w>` token was removed. The marker is a "
            "real token the model sees (it tells `low` at the end of a word from `low` inside "
            "one), so keep it in the output."
        ),
        role="encode",
        run=encode_marker_dropped,
        witness=encode_input("lower"),
    ),
    Mistake(
        id="encode-reverse-rank",
        title="Merges applied from the last learned to the first",
        hint=(
            "You apply the merge list backwards, but later merges are built from the products of "
            "earlier ones (`es t` needs `es` to exist first). Apply merges by rank, the first "
            "learned first."
        ),
        role="encode",
        run=encode_reverse_rank,
        witness=encode_input("lowest"),
    ),
    Mistake(
        id="encode-first-occurrence-only",
        title="Each merge applied only at its first occurrence",
        hint=(
            "When a pair occurs twice in the word (`low` twice in `lowlow`) only the first one is "
            "merged, as code that finds one index per merge does. Replace every non-overlapping "
            "occurrence, left to right, before moving on."
        ),
        role="encode",
        run=encode_first_occurrence_only,
        witness=encode_input("lowlow"),
    ),
    Mistake(
        id="encode-longest-match",
        title="Encoded by greedy longest match against the vocabulary",
        hint=(
            "You cut the word into the longest vocabulary tokens from the left. That agrees with "
            "BPE on easy words only by accident: BPE's result depends on the order merges were "
            "learned. Replay the merges instead, lowest rank first, until none applies."
        ),
        role="encode",
        run=encode_longest_match,
        witness=encode_input("aacc", train_bpe({"aaa": 1, "acc": 3, "baac": 2}, 5)),
    ),
    Mistake(
        id="encode-most-frequent",
        title="Merges chosen by how often the pair occurs in the word",
        hint=(
            "You pick the pair that occurs most often in the word being encoded, as during "
            "training. Encoding ignores frequencies: among the adjacent pairs that have a merge, "
            "apply the one with the lowest rank (learned earliest), and repeat."
        ),
        role="encode",
        run=encode_most_frequent_in_word,
        witness=encode_input("lowiwi"),
    ),
    Mistake(
        id="encode-left-to-right",
        title="Merges applied left to right by position",
        hint=(
            "You merge the leftmost pair that has a merge rule, whatever its rank. BPE merges by "
            "rank instead: among all adjacent pairs with a rule, the one learned earliest goes "
            "first, wherever it sits in the word (with the lesson's merges, `nest` becomes "
            "`n est</w>`, not `ne s t </w>`)."
        ),
        role="encode",
        run=encode_left_to_right,
        witness=encode_input("nest"),
    ),
)

SEQUENCE_LENGTH_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="lengths-marker-never-counted",
        title="End-of-word marker counted nowhere",
        hint=(
            "Neither your character count nor your BPE count includes `</w>` tokens. The marker "
            "is a token in both schemes: character level is BPE with zero merges, each word's "
            "characters plus its marker, and every `</w>` that `tokenize` returns counts too."
        ),
        role="sequence_lengths",
        run=lengths_marker_never_counted,
        witness=lengths_input(LESSON_SENTENCE),
    ),
    Mistake(
        id="lengths-char-letters-only",
        title="Character count without the end-of-word markers",
        hint=(
            "Your character-level count is the letters only. Here character level means BPE "
            "with zero merges, so each word is its characters plus its marker: "
            "`sum(len(word) + 1 for word in sentence.split())`. That is what keeps BPE between "
            "the two extremes."
        ),
        role="sequence_lengths",
        run=lengths_char_letters_only,
        witness=lengths_input(LESSON_SENTENCE),
    ),
    Mistake(
        id="lengths-char-with-spaces",
        title="Character count includes the spaces",
        hint=(
            "`len(sentence)` counts the spaces between words as characters. Count per word "
            "instead: each word's characters plus its end-of-word marker, summed over "
            "`sentence.split()`."
        ),
        role="sequence_lengths",
        run=lengths_char_with_spaces,
        witness=lengths_input(LESSON_SENTENCE),
    ),
    Mistake(
        id="lengths-bpe-whole-sentence",
        title="BPE count from tokenizing the whole sentence at once",
        hint=(
            "You tokenized the sentence as a single word, so spaces became characters and only "
            "the last word got an end-of-word marker. Tokenize each word of `sentence.split()` "
            "separately and add up the lengths."
        ),
        role="sequence_lengths",
        run=lengths_bpe_whole_sentence,
        witness=lengths_input("low lower low"),
    ),
    Mistake(
        id="lengths-word-with-marker",
        title="Word count includes an end-of-word marker per word",
        hint=(
            "Your word-level count is twice the number of words, as if each word were followed "
            "by a `</w>` token. A word-level scheme has one token per word: "
            "`len(sentence.split())`."
        ),
        role="sequence_lengths",
        run=lengths_word_with_marker,
        witness=lengths_input(LESSON_SENTENCE),
    ),
    Mistake(
        id="lengths-distinct-words",
        title="Word count of distinct words only",
        hint=(
            "You counted each distinct word once (e.g. `len(set(words))`), but a sequence length "
            "counts every occurrence: a repeated word is a repeated token. Use "
            "`len(sentence.split())`."
        ),
        role="sequence_lengths",
        run=lengths_distinct_words,
        witness=lengths_input("low lower low"),
    ),
)

REAL_TRAIN_MISTAKES, REAL_ENCODE_MISTAKES = real_code_mistakes()
CATALOGUE: tuple[Mistake, ...] = (
    TRAIN_MISTAKES + REAL_TRAIN_MISTAKES + ENCODE_MISTAKES + REAL_ENCODE_MISTAKES
    + SEQUENCE_LENGTH_MISTAKES + COUNT_MISTAKES + MERGE_MISTAKES + TRADEOFF_MISTAKES
)


def mistakes_for(role: str) -> tuple[Mistake, ...]:
    """Every catalogued mistake of ``role``, in catalogue order (most specific first)."""
    if role not in ROLES:
        raise ValueError(f"role {role!r} is not one of {', '.join(ROLES)}")
    return tuple(mistake for mistake in CATALOGUE if mistake.role == role)


def mistake_by_id(mistake_id: str) -> Mistake:
    found = next((mistake for mistake in CATALOGUE if mistake.id == mistake_id), None)
    if found is None:
        raise KeyError(f"no catalogued mistake has id {mistake_id!r}")
    return found
