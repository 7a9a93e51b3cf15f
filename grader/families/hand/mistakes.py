"""Known mistakes in the hand exercises, each one the answers file a student who made it writes.

An entry computes a whole answer sheet for a variant the way the mistaken student works it
out: ties broken by another rule, counts not weighted by word frequency, pair counts not
recounted after merging, a vocabulary of the merged tokens only or without the end-of-word
marker, words tokenized by greedy longest match or leftmost pair first. The grader names an
entry when its answer to a question equals the student's exactly (never a guess), and
``grade audit`` grades each sheet to show the checks catch it. Nothing here runs student code.

:func:`diagnostic_variant` is the variant a student gets: besides the spec's requirements,
every mistake here changes at least one of its answers, so none goes unnoticed.
"""

from __future__ import annotations

import random
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Optional

from grader.families.bpe.wrong_bpe import encode_left_to_right, encode_longest_match
from grader.families.api import Diagnosis, Exercise, VariantError
from grader.families.hand.expected import base_symbols, pair_text
from grader.families.hand.variants import (Prefilter, Variant, WordChooser, first_tie,
                                           top_pairs, variant_stream)
from reference import Encoder, encode
from reference.plain import Step, count_pairs, initial_segmentation, merge_words, train_steps
from reference.tie_breaks import DESCRIPTIONS, FIRST_SEEN, TIE_BREAKS, best_pair

EncodeFn = Callable[..., list[str]]


@dataclass(frozen=True)
class Working:
    """How a student works a variant out: the steps they take and how they encode and list."""

    steps: list[Step]
    counts_at: Callable[[int], dict]  # pair counts they report before merge k
    encoder: EncodeFn = encode
    vocabulary: Callable[[list[str], list[str], str], list[str]] = (
        lambda base, merged, marker: base + merged)


def answer_sheet(exercise: Exercise, variant: Variant, working: Working) -> dict[str, Any]:
    """Question id -> the answer a student working this way writes (the reference's form)."""
    marker = exercise.conventions.end_of_word
    steps = working.steps
    merges = [step.pair for step in steps]
    sheet: dict[str, Any] = {
        "vocabulary": working.vocabulary(base_symbols(variant, marker), [s.token for s in steps],
                                         marker),
        "tokens": {word: working.encoder(word, merges, end_of_word=marker) for word in variant.words},
    }
    if steps:
        sheet["first-merge"] = {"pair": pair_text(steps[0].pair),
                                "count": steps[0].pair_counts[steps[0].pair]}
    if len(steps) >= variant.pair_counts_step:
        sheet["pair-counts"] = {pair_text(p): c
                                for p, c in working.counts_at(variant.pair_counts_step).items()}
    tie = first_tie(steps)
    if tie is not None:
        step = steps[tie - 1]
        sheet["tie"] = {"step": tie, "tied": [pair_text(p) for p in step.tied],
                        "chosen": pair_text(step.pair), "rule": exercise.conventions.tie_break}
    return sheet


def _steps(corpus: dict, exercise: Exercise, variant: Variant, rule: str | None = None) -> list[Step]:
    conventions = exercise.conventions
    return list(train_steps(corpus, variant.num_merges, tie_break=rule or conventions.tie_break,
                            end_of_word=conventions.end_of_word))


def _counts_from(steps: list[Step]) -> Callable[[int], dict]:
    return lambda k: steps[k - 1].pair_counts


def _correct(exercise: Exercise, variant: Variant) -> Working:
    steps = list(variant.steps)  # the reference's run on the variant, with the exercise's rule
    return Working(steps, _counts_from(steps))


def _other_rule(rule: str) -> Callable[[Exercise, Variant], Working]:
    def working(exercise: Exercise, variant: Variant) -> Working:
        steps = _steps(variant.corpus, exercise, variant, rule)
        return Working(steps, _counts_from(steps))

    return working


def _unweighted(exercise: Exercise, variant: Variant) -> Working:
    steps = _steps(dict.fromkeys(variant.corpus, 1), exercise, variant)
    return Working(steps, _counts_from(steps))


def _not_recounted(exercise: Exercise, variant: Variant) -> Working:
    correct = _correct(exercise, variant)
    start = initial_segmentation(variant.corpus, exercise.conventions.end_of_word)
    return Working(correct.steps, lambda k: count_pairs(start))


def _with(**changes: Any) -> Callable[[Exercise, Variant], Working]:
    def working(exercise: Exercise, variant: Variant) -> Working:
        correct = _correct(exercise, variant)
        return Working(correct.steps, correct.counts_at, **changes)

    return working


@dataclass(frozen=True)
class AnswerMistake:
    id: str
    title: str
    hint: str
    working: Callable[[Exercise, Variant], Working]
    tie_break: str | None = None

    def sheet(self, exercise: Exercise, variant: Variant) -> dict[str, Any]:
        return answer_sheet(exercise, variant, self.working(exercise, variant))


def _tie_mistake(rule: str) -> AnswerMistake:
    return AnswerMistake(
        id=f"hand-ties-{rule}",
        title=f"Ties broken by the '{rule}' rule",
        hint=(f"When pairs tie for the highest count you took {DESCRIPTIONS[rule]}. The exercise's "
              "rule decides instead: reread the tie rule at the top of the file and redo the "
              "step with the tie."),
        working=_other_rule(rule),
        tie_break=rule,
    )


HAND_MISTAKES: tuple[AnswerMistake, ...] = (
    *(_tie_mistake(rule) for rule in TIE_BREAKS),
    AnswerMistake(
        "hand-unweighted", "Pairs counted once per word, not times the word's count",
        "A word that occurs 4 times contributes 4 to each of its pairs. Multiply every pair "
        "count by its word's count before adding up.",
        _unweighted,
    ),
    AnswerMistake(
        "hand-not-recounted", "Pair counts taken before merging, not recounted",
        "After each merge the corpus is rewritten (c a t -> ca t), so the pairs change: "
        "(c, a) is gone and (ca, t) appears. Recount every pair on the rewritten corpus.",
        _not_recounted,
    ),
    AnswerMistake(
        "hand-vocabulary-merges-only", "Vocabulary lists only the merged tokens",
        "The vocabulary keeps every base symbol: each character of the corpus and the "
        "end-of-word marker, then one new token per merge.",
        _with(vocabulary=lambda base, merged, marker: merged),
    ),
    AnswerMistake(
        "hand-vocabulary-no-marker", "Vocabulary without the end-of-word marker",
        "The end-of-word marker is a symbol of the base vocabulary like any character: list it.",
        _with(vocabulary=lambda base, merged, marker: [t for t in base if t != marker] + merged),
    ),
    AnswerMistake(
        "hand-encode-longest-match", "Words cut into the longest known tokens",
        "Encoding replays the merges in the order they were learned, lowest rank first; "
        "grabbing the longest known token from the left is a different tokenizer.",
        _with(encoder=encode_longest_match),
    ),
    AnswerMistake(
        "hand-encode-left-to-right", "Leftmost pair merged first, whatever its rank",
        "Apply merge rule 1 everywhere in the word, then rule 2, and so on; the position of "
        "a pair in the word does not matter, only the order the merges were learned in.",
        _with(encoder=encode_left_to_right),
    ),
)


def applicable(exercise: Exercise) -> list[AnswerMistake]:
    """The mistakes a student of ``exercise`` can make (every tie rule but its own)."""
    return [m for m in HAND_MISTAKES if m.tie_break != exercise.conventions.tie_break]


def same_answer(question: str, given: Any, answer: Any) -> bool:
    if question in ("vocabulary",) and isinstance(given, list) and isinstance(answer, list):
        return sorted(map(str, given)) == sorted(answer) and len(given) == len(answer)
    if question == "tie" and isinstance(given, dict) and isinstance(answer, dict):
        tied = given.get("tied")
        return (isinstance(tied, list) and sorted(map(str, tied)) == sorted(answer["tied"])
                and {k: given.get(k) for k in ("step", "chosen", "rule")}
                == {k: answer[k] for k in ("step", "chosen", "rule")})
    return given == answer


def name_answer_mistakes(exercise: Exercise, variant: Variant, question: str, given: Any,
                         word: str = "") -> list[Diagnosis]:
    """Known mistakes whose answer to ``question`` (for ``word``: its tokens) equals ``given``."""
    from grader.families.hand.expected import expected_answers

    expected = expected_answers(exercise, variant)[question]
    if word:
        expected = expected[word]
    found = []
    for mistake in applicable(exercise):
        answer = mistake.sheet(exercise, variant).get(question)
        if answer is None:
            continue
        if word:
            answer = answer.get(word)
        if answer != expected and same_answer(question, given, answer):
            found.append(Diagnosis(id=mistake.id, title=mistake.title, message=mistake.hint))
    return found


# --------------------------------------------------------------------------- diagnostic variants

WORD_LENGTHS = (3, 7)
_ENCODERS = {"hand-encode-longest-match": encode_longest_match,
             "hand-encode-left-to-right": encode_left_to_right}


def exposing_words(exercise: Exercise) -> WordChooser:
    """Words to tokenize on which each encoding mistake departs from rank-order encoding.

    Candidates are the encode pool and pieces of the corpus's words glued in pairs (made-up
    words are fine by hand); one is drawn per encoding mistake among those it gets wrong,
    then the pool fills up to ``encode_words``. None when some mistake has no such word.
    """
    settings = exercise.answers
    assert settings is not None
    encoders = [encoder for mistake_id, encoder in _ENCODERS.items()
                if any(m.id == mistake_id for m in applicable(exercise))]
    pool = sorted(set(settings.encode_pool))

    def choose(rng: random.Random, corpus: dict, steps: list[Step]) -> Optional[tuple[str, ...]]:
        chosen: list[str] = []
        for exposing in _exposing(exercise, encoders, corpus, [step.pair for step in steps]):
            if not exposing:
                return None
            if not any(word in chosen for word in exposing):
                chosen.append(rng.choice(exposing))
        rest = [word for word in pool if word not in chosen]
        while len(chosen) < settings.encode_words and rest:
            chosen.append(rest.pop(rng.randrange(len(rest))))
        return tuple(chosen)

    return choose


_EXPOSING: dict[tuple, list[list[str]]] = {}
EXPOSING_CACHED = 4096


def _exposing(exercise: Exercise, encoders: list[EncodeFn], corpus: dict,
              merges: list[tuple[str, str]]) -> list[list[str]]:
    """For each encoding mistake in ``encoders``, the candidate words (sorted) it tokenizes
    otherwise than rank order with ``merges``. They depend only on the corpus's words and the
    merges, which many draws share, so they are remembered per process."""
    key = (exercise.fingerprint, tuple(encoders), frozenset(corpus), tuple(merges))
    found = _EXPOSING.get(key)
    if found is None:
        settings = exercise.answers
        assert settings is not None
        marker = exercise.conventions.end_of_word
        encoder = Encoder(merges, end_of_word=marker)
        pieces = sorted({word[i:j] for word in corpus for i in range(len(word))
                         for j in range(i + 1, len(word) + 1)})
        low, high = WORD_LENGTHS
        candidates = sorted(set(settings.encode_pool) | {a + b for a in pieces for b in pieces
                                                         if low <= len(a + b) <= high})
        right = {word: encoder.encode(word) for word in candidates}
        found = [[word for word in candidates if wrong(word, merges, end_of_word=marker) != right[word]]
                 for wrong in encoders]
        if len(_EXPOSING) >= EXPOSING_CACHED:
            _EXPOSING.clear()
        _EXPOSING[key] = found
    return found


def _same_run(steps: list[Step], rule: str) -> bool:
    """Whether training under tie rule ``rule`` takes exactly the steps ``steps`` (the
    exercise's run): it picks the same pair at each step with a tie (every rule picks the
    one top pair of the others), so the words, counts and picks stay the same (the tied pairs
    are only listed in another order)."""
    return _departure(steps, rule) is None


def _departure(steps: list[Step], rule: str) -> Optional[Step]:
    """The first of ``steps`` where tie rule ``rule`` picks another pair, or None."""
    return next((step for step in steps
                 if len(step.tied) > 1 and best_pair(top_pairs(step), rule) != step.pair), None)


def _tie_rule_changes_training(exercise: Exercise, steps: list[Step], rule: str) -> Optional[bool]:
    """Whether a student breaking ties by ``rule`` answers the first merge, the pair counts,
    the vocabulary or the tie otherwise than ``steps`` (the exercise's run) give, told from
    the step where the rule first picks another pair; None where only comparing whole
    sheets tells.

    Up to that step both runs are one. Departing at the first tie changes its chosen pair;
    departing later (and no earlier than the pair counts asked) leaves the first merge, the
    counts and the tie as they are, so only the tokens merged from there on can change the
    vocabulary: those are trained from the words the two runs share.
    """
    settings = exercise.answers
    assert settings is not None
    departure = _departure(steps, rule)
    if departure is None:
        return False
    if departure.number == first_tie(steps):
        return True
    if departure.number < max(2, settings.pair_counts_step):
        return None
    words = steps[departure.number - 2].words_after
    tokens = []
    for _ in steps[departure.number - 1:]:
        counts = count_pairs(words)
        if not counts:
            break
        pair = best_pair(counts, rule)
        tokens.append(pair[0] + pair[1])
        words = merge_words(words, pair)
    return sorted(tokens) != sorted(step.token for step in steps[departure.number - 1:])


def exposes_every_mistake(exercise: Exercise) -> Callable[[Variant], bool]:
    """Whether each applicable mistake changes at least one answer of a variant."""
    from grader.families.hand.expected import expected_answers

    def accept(variant: Variant) -> bool:
        if any(mistake.tie_break and _same_run(list(variant.steps), mistake.tie_break)
               for mistake in applicable(exercise)):
            return False  # that rule's sheet is the exercise's own
        expected = expected_answers(exercise, variant)
        for mistake in applicable(exercise):
            sheet = mistake.sheet(exercise, variant)
            if all(same_answer(q, sheet[q], expected[q]) for q in expected if q in sheet):
                return False
        return True

    return accept


_PREFILTERS: dict[str, Prefilter] = {}


def training_exposes(exercise: Exercise) -> Prefilter:
    """Whether each mistake outside encoding changes the first merge, the pair counts, the
    vocabulary or the tie (checked before any word is chosen: it is cheap). One per exercise
    and process, so the corpora it rejects are remembered across students."""
    prefilter = _PREFILTERS.get(exercise.fingerprint)
    if prefilter is None:
        mistakes = [m for m in applicable(exercise) if m.id not in _ENCODERS]
        if exercise.conventions.tie_break == FIRST_SEEN:
            any_order, in_order = [], mistakes
        else:
            any_order = [m for m in mistakes if m.tie_break != FIRST_SEEN]
            in_order = [m for m in mistakes if m.tie_break == FIRST_SEEN]
        prefilter = Prefilter(_exposing_training(exercise, any_order),
                              _exposing_training(exercise, in_order) if in_order else None)
        _PREFILTERS[exercise.fingerprint] = prefilter
    return prefilter


def _exposing_training(exercise: Exercise, mistakes: list[AnswerMistake]) -> Callable[[dict, list[Step]], bool]:
    from grader.families.hand.expected import expected_answers

    def exposed(corpus: dict, steps: list[Step]) -> bool:
        told: dict[str, Optional[bool]] = {}
        for mistake in mistakes:  # the cheap, common case first: a tie rule's own run
            if mistake.tie_break:
                told[mistake.id] = _tie_rule_changes_training(exercise, steps, mistake.tie_break)
                if told[mistake.id] is False:
                    return False
        settings = exercise.answers
        assert settings is not None
        tie = first_tie(steps)
        variant = Variant("", corpus, (), settings.num_merges, settings.pair_counts_step,
                          tie or 0, tuple(steps))
        expected = expected_answers(exercise, variant)
        for mistake in mistakes:
            if told.get(mistake.id):
                continue
            sheet = mistake.sheet(exercise, variant)
            if all(same_answer(q, sheet[q], expected[q]) for q in expected
                   if q in sheet and q != "tokens"):
                return False
        return True

    return exposed


class _Drawn:
    """A student's diagnostic variants drawn so far, and the stream that draws the next."""

    def __init__(self, stream: Iterator[Variant]) -> None:
        self.variants: list[Variant] = []
        self.stream = stream
        self.error: Optional[VariantError] = None  # the stream ended: no more variants

    def __getitem__(self, index: int) -> Variant:
        while len(self.variants) <= index:
            if self.error is not None:
                raise self.error
            try:
                self.variants.append(next(self.stream))
            except VariantError as error:
                self.error = error
                raise
        return self.variants[index]


_DRAWN: dict[tuple[str, str, str], _Drawn] = {}
STUDENTS_CACHED = 256


def _drawn(exercise: Exercise, student: str, secret: str) -> _Drawn:
    """The variants drawn for ``student`` in this process (drawing one takes a fraction of a
    second, so the last few hundred students' are remembered)."""
    key = (exercise.fingerprint, str(student), secret)
    if key not in _DRAWN:
        if len(_DRAWN) >= STUDENTS_CACHED:
            _DRAWN.clear()
        _DRAWN[key] = _Drawn(variant_stream(
            exercise, student, secret, choose_words=exposing_words(exercise),
            accept=exposes_every_mistake(exercise), prefilter=training_exposes(exercise)))
    return _DRAWN[key]


def diagnostic_variant(exercise: Exercise, student: str, secret: str, index: int = 0) -> Variant:
    """The variant of ``student``: the exercise's requirements plus one answer per known
    mistake that the mistake gets wrong, so every mistake costs points in every variant.
    ``index`` is the student's own draw to take (0: their first, as without a roster)."""
    return _drawn(exercise, student, secret)[index]


def diagnostic_variants(exercise: Exercise, student: str, secret: str) -> Iterator[Variant]:
    """The diagnostic variants of ``student`` in turn: index 0, 1, ... of their own draws."""
    drawn = _drawn(exercise, student, secret)
    return (drawn[index] for index in itertools.count())


def forget_drawn() -> None:
    """Forget every variant, rejected corpus and exposing word remembered in this process,
    as a new process starts (``bench/hand_roster_cost.py`` times gradings that way)."""
    _DRAWN.clear()
    _PREFILTERS.clear()
    _EXPOSING.clear()
