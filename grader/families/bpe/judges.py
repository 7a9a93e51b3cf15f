"""The ``cases`` check's items for character BPE: a case's merges, each word, its sentence.

One item per graded input: a case's merge list (train), each word of a case (encode) or a
case's sentence (sequence_lengths). Encoding and sequence lengths use the *reference's*
merges for the case, written in the exercise's merge form, so a training mistake does not
also fail the encode milestone. A failed visible item shows its input, expected and actual
values and the first difference; its observation names the milestone's mistakes. Sequence
lengths are judged against the student's own encoder when it departs from the reference's
(:mod:`grader.families.bpe.follow_through`), and every input is shown in the form the
student's function takes. An item whose right answer is not a do-nothing one is real work.
"""

from __future__ import annotations

from functools import partial

from grader.families.bpe.evidence import trivial_answer
from grader.families.bpe.expected import case_encodings, case_lengths, reference_pairs
from grader.families.bpe.feedback import (
    first_difference,
    lengths_details,
    lengths_message,
    merges_details,
    merges_message,
    student_merges,
    tokens_details,
    tokens_message,
)
from grader.families.bpe.follow_through import own_lengths, own_merges
from grader.families.bpe.steps import encoding_steps, training_steps
from grader.families.bpe.spec import BpeCase as Case
from grader.families.api import Calls, CaseItem, CaseLabel, Verdict, observed

TRAIN, ENCODE, LENGTHS = "train", "encode", "sequence_lengths"


def train_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    exercise = calls.exercise
    work = not trivial_answer(exercise, TRAIN, (case.corpus, case.num_merges),
                              reference_pairs(exercise, case))
    return [CaseItem(label.check_id, label.title(f"train {_merges_count(case.num_merges)}"),
                     label.visibility, partial(judge_train, calls, case), work)]


def encode_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    exercise = calls.exercise
    items = []
    for number, (item, expected) in enumerate(case_encodings(exercise, case), 1):
        title = f"{label.name}: encode {item.word!r}" if label.public else f"{label.name}, word {number}"
        work = not trivial_answer(exercise, ENCODE, (item.word,), expected)
        items.append(CaseItem(f"{label.check_id}:{number}", title, label.visibility,
                              partial(judge_encode, calls, case, item.word, expected), work))
    return items


def lengths_items(calls: Calls, case: Case, label: CaseLabel) -> list[CaseItem]:
    exercise = calls.exercise
    work = not trivial_answer(exercise, LENGTHS, (case.sentence or "",), case_lengths(exercise, case))
    return [CaseItem(label.check_id, label.title(f"sequence lengths of {case.sentence!r}"),
                     label.visibility, partial(judge_lengths, calls, case), work)]


def judge_train(calls: Calls, case: Case) -> Verdict:
    exercise = calls.exercise
    expected = reference_pairs(exercise, case)
    answer = calls.call(TRAIN, case.corpus, case.num_merges)
    given = {"corpus": case.corpus, "num_merges": case.num_merges}
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=observed(given, answer))
    own = own_merges(calls, case.corpus, case.num_merges, expected) if answer.ok else None
    if own is not None and answer.value == own.expected:  # follow-through: their own helpers
        return Verdict(True, own.passed_note(calls), observation=observed(given, answer))
    if not answer.ok:
        details = merges_details(case.corpus, case.num_merges, expected, None, None)
        return Verdict(False, answer.failure or "", details, observed(given, answer))
    difference = first_difference(exercise, case.corpus, case.num_merges, expected, answer.value)
    return Verdict(
        False,
        merges_message(difference, case.num_merges, case.corpus,
                       exercise.conventions.end_of_word, expected) if difference else "",
        merges_details(case.corpus, case.num_merges, expected, answer.value, difference),
        observed(given, answer),
        steps=partial(training_steps, exercise, case.corpus, expected, answer.value),
    )


def judge_encode(calls: Calls, case: Case, word: str, expected: list[str]) -> Verdict:
    exercise = calls.exercise
    merges = reference_pairs(exercise, case)
    answer = calls.call(ENCODE, word, merges)
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=observed({"word": word, "merges": merges}, answer))
    shown = student_merges(exercise, merges)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       tokens_details(word, expected, None, merges, shown_merges=shown))
    return Verdict(
        False,
        tokens_message(calls.function_name(ENCODE), word, expected, answer.value),
        tokens_details(word, expected, answer.value, merges, shown_merges=shown),
        observed({"word": word, "merges": merges}, answer),
        steps=partial(encoding_steps, exercise, word, merges, answer.value),
    )


def judge_lengths(calls: Calls, case: Case) -> Verdict:
    exercise = calls.exercise
    sentence = case.sentence or ""
    merges = reference_pairs(exercise, case)
    reference = case_lengths(exercise, case) or {}
    answer = calls.call(LENGTHS, sentence, merges)
    if answer.ok and answer.value == reference:
        return Verdict(True, observation=observed({"sentence": sentence, "merges": merges}, answer))
    own = own_lengths(calls, sentence, merges, reference)  # follow-through: their own tokenize
    expected = own.expected if own else reference
    if answer.ok and answer.value == expected and own:
        # Right for their own tokenize; no evidence of work when that tokenize does nothing.
        return Verdict(True, own.passed_note(calls),
                       trivial=trivial_answer(exercise, LENGTHS, (sentence,), expected))
    shown = student_merges(exercise, merges)
    if not answer.ok:
        return Verdict(False, answer.failure or "",
                       lengths_details(sentence, expected, None, merges, shown_merges=shown))
    note_own = f" {own.failed_note(calls, reference)}" if own else ""
    return Verdict(
        False,
        lengths_message(calls.function_name(LENGTHS), sentence, expected, answer.value)
        + note_own,
        lengths_details(sentence, expected, answer.value, merges, shown_merges=shown),
        observed({"sentence": sentence, "merges": merges}, answer),
    )


def _merges_count(count: int) -> str:
    return f"{count} merge" if count == 1 else f"{count} merges"
