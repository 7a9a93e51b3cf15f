"""Known WordPiece mistakes, each one a runnable wrong trainer, as the family's mistake book.

The lessons' WordPiece merges the pair with the highest score
``count(ab) / (count(a) * count(b))``. The mistakes here are the ways students get that
wrong: ranking by raw pair frequency (the deck's trap: that is BPE), counting each symbol once
per distinct word instead of weighting it by the word's count, and comparing floating-point
scores rounded to a few decimals (as the slides print them), which makes unequal scores tie
so the tie rule picks the wrong pair; and BERT's ``##`` convention, said to be one. The
trainers of published code (:mod:`.real_code`): the Hugging Face course's loop, the score
over the sum of the parts' counts, symbol counts taken per pair, a crash with no pair left.
``first_divergence`` mistakes: steps counted from 0, the two pairs swapped, WordPiece ranked
by raw frequency (so it never parts from BPE), the ``##`` convention, and symbol counts
taken per pair.

Run signatures (keyword arguments, as the catalogue's ``train`` entries):
``run(corpus, num_merges, *, tie_break, end_of_word)`` for both roles.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Optional

from grader.families.bpe.real_code import NoPairLeft, crash_looks_like_no_pair_left
from grader.families.wordpiece import real_code
from grader.families.wordpiece.do_nothing import trivial_answer
from grader.families.wordpiece.signals import rounding_signals
from grader.families.api import Mistake, MistakeBook, NOT_COMPARABLE
from reference.corpus import word_counts
from reference.plain import count_pairs, initial_segmentation, merge_words
from reference.plain import train_bpe as plain_bpe
from reference.tie_breaks import LEXICOGRAPHIC, Pair, best_pair
from reference.wordpiece import first_divergence, symbol_counts, train_wordpiece

EOW = "</w>"
ROUNDING_DIGITS = 3
OPTIONS = ("tie_break", "end_of_word")  # the convention options the runs take
Scorer = Callable[[dict, dict[str, int], dict[str, int]], dict[Pair, Any]]


# --------------------------------------------------------------------------- wrong scorers


def _exact(words: dict, pairs: dict[Pair, int], symbols: dict[str, int]) -> dict[Pair, Any]:
    return {p: Fraction(c, symbols[p[0]] * symbols[p[1]]) for p, c in pairs.items()}


def _raw_frequency(words: dict, pairs: dict[Pair, int], symbols: dict[str, int]) -> dict[Pair, Any]:
    return dict(pairs)


def _unweighted_symbols(words: dict, pairs: dict[Pair, int], symbols: dict[str, int]) -> dict[Pair, Any]:
    once: dict[str, int] = {}
    for word in words:
        for symbol in word:
            once[symbol] = once.get(symbol, 0) + 1
    return {p: Fraction(c, once[p[0]] * once[p[1]]) for p, c in pairs.items()}


def _rounded(words: dict, pairs: dict[Pair, int], symbols: dict[str, int]) -> dict[Pair, Any]:
    return {p: round(c / (symbols[p[0]] * symbols[p[1]]), ROUNDING_DIGITS) for p, c in pairs.items()}


def _start(corpus: Any, end_of_word: str) -> dict:
    return initial_segmentation(word_counts(corpus), end_of_word)


def _train_with(scorer: Scorer, start: Optional[Callable[[Any, str], dict]] = None,
                merge: Callable[[dict, Pair], dict] = merge_words) -> Callable[..., list[Pair]]:
    """A trainer ranking pairs by ``scorer``, its words started by ``start`` (default: the
    characters and the marker) and rewritten by ``merge``."""
    def run(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
            end_of_word: str = EOW) -> list[Pair]:
        words = (start or _start)(corpus, end_of_word)
        merges: list[Pair] = []
        for _ in range(num_merges):
            pairs = count_pairs(words)
            if not pairs:
                break
            pair = best_pair(scorer(words, pairs, symbol_counts(words)), tie_break)
            merges.append(pair)
            words = merge(words, pair)
        return merges

    return run


def _continuation_start(corpus: Any, end_of_word: str = EOW) -> dict:
    """Each word as its first character, then ``##`` and each following one (no marker)."""
    words: dict = {}
    for word, count in word_counts(corpus).items():
        symbols = tuple(c if i == 0 else f"##{c}" for i, c in enumerate(word))
        words[symbols] = words.get(symbols, 0) + count
    return words


def _continuation_merge_all(words: dict, pair: Pair) -> dict:
    """One merge as the HF course makes it: the merged piece drops its right side's ``##``
    (``w`` + ``##i`` is ``wi``). A glued ``w##i`` never occurs otherwise, so renaming it after
    the ordinary merge is exact."""
    glued, joined = pair[0] + pair[1], pair[0] + pair[1].removeprefix("##")
    return {tuple(joined if symbol == glued else symbol for symbol in symbols): count
            for symbols, count in merge_words(words, pair).items()}


train_continuation_prefix = _train_with(_exact, _continuation_start, _continuation_merge_all)
"""The HF course's WordPiece trainer: ``##`` continuation pieces and no end-of-word marker,
the same exact score."""


def divergence_continuation_prefix(corpus: Any, num_merges: int, *,
                                   tie_break: str = LEXICOGRAPHIC,
                                   end_of_word: str = EOW) -> Optional[tuple]:
    """The first divergence with ``##`` pieces on both sides: BPE's most frequent pair and
    WordPiece's best score on the same segmentation, which follows BPE's merges."""
    words = _continuation_start(corpus)
    for step in range(1, num_merges + 1):
        pairs = count_pairs(words)
        if not pairs:
            return None
        bpe = best_pair(pairs, tie_break)
        wordpiece = best_pair(_exact(words, pairs, symbol_counts(words)), tie_break)
        if bpe != wordpiece:
            return (step, bpe, wordpiece)
        words = _continuation_merge_all(words, bpe)
    return None


train_raw_frequency = _train_with(_raw_frequency)
train_unweighted_symbols = _train_with(_unweighted_symbols)
train_rounded_scores = _train_with(_rounded)


# --------------------------------------------------------------------------- wrong divergences


def divergence_zero_based(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
                          end_of_word: str = EOW) -> Optional[tuple]:
    found = first_divergence(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    return None if found is None else (found[0] - 1, found[1], found[2])


def divergence_swapped(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
                       end_of_word: str = EOW) -> Optional[tuple]:
    found = first_divergence(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    return None if found is None else (found[0], found[2], found[1])


def divergence_raw_frequency(corpus: Any, num_merges: int, *, tie_break: str = LEXICOGRAPHIC,
                             end_of_word: str = EOW) -> Optional[tuple]:
    bpe = plain_bpe(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    wordpiece = train_raw_frequency(corpus, num_merges, tie_break=tie_break, end_of_word=end_of_word)
    for step, (left, right) in enumerate(zip(bpe, wordpiece), 1):
        if left != right:
            return (step, left, right)
    return None


# --------------------------------------------------------------------------- the entries


def _input(corpus: Any, num_merges: int, tie_break: str = LEXICOGRAPHIC) -> dict[str, Any]:
    return {"corpus": corpus, "num_merges": num_merges, "tie_break": tie_break, "end_of_word": EOW}


LESSON_WORD_COUNTS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
# At the first step (b, </w>) scores 6/(16*17) = 3/136 = 0.02206 and (a, c) 12/(23*24) =
# 1/46 = 0.02174: both round to 0.022, and every tie rule but reverse-lexicographic then
# picks (a, c).
ROUNDING_WITNESS = {"bba": 5, "cacb": 6, "caac": 6}

WORDPIECE_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="wordpiece-raw-frequency",
        title="Pairs ranked by raw frequency (that is BPE)",
        hint=(
            "You merge the most frequent pair, which is BPE's rule. WordPiece divides the pair's "
            "count by the counts of its two symbols, score(a, b) = count(ab) / (count(a) * "
            "count(b)), so a rarer pair of rare symbols can beat a frequent pair of common ones."
        ),
        role="train_wordpiece",
        run=train_raw_frequency,
        witness=_input(LESSON_WORD_COUNTS, 2),
    ),
    Mistake(
        id="wordpiece-unweighted-symbols",
        title="Symbol counts not weighted by word frequency",
        hint=(
            "Your count(a) counts each symbol once per distinct word, but the pair counts are "
            "weighted by how often each word occurs. Weight both the same way: a word with "
            "count 5 adds 5 to every symbol it contains."
        ),
        role="train_wordpiece",
        run=train_unweighted_symbols,
        witness=_input(LESSON_WORD_COUNTS, 2),
    ),
    Mistake(
        id="wordpiece-rounded-scores",
        title="Scores compared as rounded floats",
        hint=(
            "You compare scores rounded to a few decimals, so two different scores can look "
            "equal and the tie rule then picks the wrong pair. Compare exactly: use "
            "fractions.Fraction(count_ab, count_a * count_b), or compare count_ab * count_c * "
            "count_d with count_cd * count_a * count_b in integers."
        ),
        role="train_wordpiece",
        run=train_rounded_scores,
        witness=_input(ROUNDING_WITNESS, 6),
    ),
    Mistake(
        id="wordpiece-continuation-prefix",
        title="BERT's ## convention: continuation pieces, no end-of-word marker",
        hint=(
            "This is the `##` convention of BERT and the Hugging Face course, not a bug: you "
            "start each word as its first character followed by `##`-prefixed pieces "
            "(`w`, `##i`, `##d`, ...) with no end-of-word marker. This exercise asks for another "
            "convention: a word starts as its characters and the marker "
            "`</w>` as a symbol of its own (`w`, `i`, `d`, ..., `</w>`), and a merge joins the two "
            "symbols as they are; the score is the same."
        ),
        role="train_wordpiece",
        run=train_continuation_prefix,
        witness=_input(LESSON_WORD_COUNTS, 3),
    ),
    Mistake(
        id="divergence-zero-based",
        title="Divergence step counted from 0",
        hint=(
            "Steps count from 1: the first merge is step 1. Return the number of the merge at "
            "which the two algorithms first choose different pairs."
        ),
        role="first_divergence",
        run=divergence_zero_based,
        witness=_input(LESSON_WORD_COUNTS, 5),
    ),
    Mistake(
        id="divergence-pairs-swapped",
        title="BPE's and WordPiece's pairs swapped",
        hint=(
            "Return (step, bpe_pair, wordpiece_pair): BPE's choice (the most frequent pair) "
            "first, then WordPiece's (the highest score)."
        ),
        role="first_divergence",
        run=divergence_swapped,
        witness=_input(LESSON_WORD_COUNTS, 5),
    ),
    Mistake(
        id="divergence-continuation-prefix",
        title="BERT's ## convention: continuation pieces, no end-of-word marker",
        hint=(
            "This is the `##` convention of BERT and the Hugging Face course, not a bug: both "
            "of your trainers start each word as its first character followed by "
            "`##`-prefixed pieces, with no end-of-word marker, so the pairs you compare are "
            "not this exercise's. This exercise asks you to start a word as its characters "
            "and `</w>` as a symbol of its own, merge symbols as they are, and compare BPE's and WordPiece's picks there."
        ),
        role="first_divergence",
        run=divergence_continuation_prefix,
        witness=_input(LESSON_WORD_COUNTS, 5),
    ),
    Mistake(
        id="divergence-raw-frequency",
        title="WordPiece ranked by raw frequency, so it never parts from BPE",
        hint=(
            "Your WordPiece side ranks pairs by frequency, exactly as BPE does, so the two never "
            "disagree. Rank WordPiece's pairs by count(ab) / (count(a) * count(b))."
        ),
        role="first_divergence",
        run=divergence_raw_frequency,
        witness=_input(LESSON_WORD_COUNTS, 5),
    ),
)


REAL_CODE_MISTAKES: tuple[Mistake, ...] = (
    Mistake(
        id="wordpiece-hf-course",
        title="The Hugging Face course's WordPiece: ## pieces, float scores, first pair kept on a tie",
        hint=(
            "This is the Hugging Face course's trainer, and its conventions are not this "
            "exercise's: `##` continuation pieces with no end-of-word marker, and among pairs "
            "of equal score the first one scored is kept (`if max_score < score`). This "
            "exercise asks for a word as its characters and `</w>` as a symbol of its own, "
            "scores compared exactly (fractions.Fraction), and ties to the smallest pair; the "
            "score count(ab) / (count(a) * count(b)) is the same."
        ),
        role="train_wordpiece",
        run=real_code.train_hf_course,
        witness=_input(LESSON_WORD_COUNTS, 3),
    ),
    Mistake(
        id="wordpiece-score-by-sum",
        title="Score divided by the sum of the parts' counts",
        hint=(
            "You divide the pair's count by count(a) + count(b). WordPiece divides by the "
            "product, score(a, b) = count(ab) / (count(a) * count(b)): how much more often the "
            "two occur together than two independent symbols would."
        ),
        role="train_wordpiece",
        run=real_code.train_score_by_sum,
        witness=_input(LESSON_WORD_COUNTS, 4),
    ),
    Mistake(
        id="wordpiece-symbols-counted-per-pair",
        title="Symbol counts taken from the pairs (inner symbols counted twice)",
        hint=(
            "You add to count(a) and count(b) for every pair you count, so a symbol inside a "
            "word is counted twice (once in the pair on each side) and a word of one symbol "
            "not at all. Count each symbol once per occurrence in the current segmentation, "
            "weighted by the word's count, in a loop of its own."
        ),
        role="train_wordpiece",
        run=real_code.train_symbols_per_pair,
        witness=_input(LESSON_WORD_COUNTS, 3),
    ),
    Mistake(
        id="wordpiece-no-pair-crash",
        title="Crash when no pair is left to merge",
        hint=(
            "Once every word is a single symbol there is no pair to score, and picking the "
            "best of nothing fails (`max()` of an empty dict, or a best pair left at `\"\"` "
            "or `None` and then used). Check `if not pairs: break` first, so training stops "
            "early when asked for more merges than the corpus has."
        ),
        role="train_wordpiece",
        run=real_code.train_crash_when_no_pair,
        witness=_input({"ab": 1}, 3),
    ),
    Mistake(
        id="divergence-symbols-counted-per-pair",
        title="WordPiece's symbol counts taken from the pairs (inner symbols counted twice)",
        hint=(
            "Your WordPiece side adds to count(a) and count(b) for every pair, so a symbol "
            "inside a word counts twice and a one-symbol word not at all. Count each symbol "
            "once per occurrence, weighted by the word's count."
        ),
        role="first_divergence",
        run=real_code.divergence_symbols_per_pair,
        witness=_input({"unhappy": 4, "un": 10, "happy": 11, "happiness": 3, "ness": 6}, 8),
    ),
)

WORDPIECE_MISTAKES = WORDPIECE_MISTAKES + REAL_CODE_MISTAKES

REFERENCES: dict[str, Callable[..., Any]] = {
    "train_wordpiece": train_wordpiece,
    "first_divergence": first_divergence,
}
"""The correct output of each role here, with the same keyword arguments as the entries."""


def canonical(role: str, value: Any) -> Any:
    """A comparable form of an answer of ``role`` (tuples for pairs), or ``NOT_COMPARABLE``."""
    try:
        if role == "train_wordpiece":
            return [(a, b) for a, b in value]
        if value is None:
            return ("none",)
        step, first, second = value
        return (step, tuple(first), tuple(second))
    except (TypeError, ValueError):
        return NOT_COMPARABLE


def options(exercise: Any, role: str) -> dict[str, Any]:
    """The exercise's conventions as keyword arguments of the runs (both roles take both)."""
    return {"end_of_word": exercise.conventions.end_of_word,
            "tie_break": exercise.conventions.tie_break}


def trivial(exercise: Any, role: str, inputs: Mapping[str, Any], value: Any) -> bool:
    """Whether a student's ``value`` on ``inputs`` is what do-nothing code also returns."""
    from_student = canonical(role, value)
    if from_student is NOT_COMPARABLE:
        return True
    answer = None if from_student == ("none",) else from_student
    return trivial_answer(exercise, role, (inputs["corpus"], inputs["num_merges"]), answer)


def telling_crash(role: str, crash: str) -> bool:
    """A training crash with no pair left (``max()`` of nothing, the best pair unpacked)."""
    return role == "train_wordpiece" and crash_looks_like_no_pair_left(crash)


BOOK = MistakeBook(entries=WORDPIECE_MISTAKES, reference=REFERENCES, canonical=canonical,
                   options=options, trivial=trivial, telling_crash=telling_crash,
                   crash=(NoPairLeft,), signals=rounding_signals)
