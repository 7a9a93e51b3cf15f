"""The ``answers`` check: each question of an answers file against the student's variant.

The file has been read and the variant recomputed (:mod:`grader.families.hand.submission`);
each question of the milestone is compared with the reference's answer
(:mod:`grader.families.hand.expected`). A wrong answer's feedback says what differs and
carries the step-by-step trace of the run up to where the answer departs, as ``grade trace``
prints it, plus any known mistake that reproduces the answer exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Optional

from grader.families.hand.expected import expected_answers, pair_text
from grader.families.hand.follow_through import run_from
from grader.families.hand.mistakes import name_answer_mistakes
from grader.families.hand.pairs import read_pair
from grader.families.hand.variants import Variant
from grader.families.api import (
    CheckContext,
    CheckResult,
    Exercise,
    check_points,
    graded,
    split_evenly,
)
from reference.trace import render_encoding, render_training

SHOWN = 6
FILE_KEYS = {"first-merge": "first_merge", "pair-counts": "pair_counts", "vocabulary": "vocabulary",
             "tokens": "tokens", "tie": "tie"}


CHECK_ID = "answers"
TITLE = "Answers"


def run(context: CheckContext) -> list[CheckResult]:
    """The ``answers`` check: each question of the milestone, its points split evenly."""
    sheet = context.calls
    milestone = context.milestone
    shares = check_points(context.points, [1.0] * len(milestone.questions))
    data = normalized(sheet.data, sheet.variant)
    own = own_run(sheet.exercise, sheet.variant, data)
    results: list[CheckResult] = []
    for question, share in zip(milestone.questions, shares):
        results.extend(_grade_question(sheet.exercise, sheet.variant, question, data,
                                       sheet.expected[question], share, own))
    return results


# --------------------------------------------------------------------------- notations


def normalized(data: dict, variant: Variant) -> dict:
    """``data`` with every pair in the file's own form ``"a b"`` where it is written in
    another clear notation (:mod:`grader.families.hand.pairs`), and every count or step
    written as a quoted whole number (``"4"``) as that number; anything else as it was."""
    candidates = sorted({pair_text(pair) for step in variant.steps for pair in step.pair_counts})

    def pair(value: Any) -> Any:
        return read_pair(value, candidates) or value

    def number(value: Any) -> Any:  # "4" in quotes is still 4
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            return int(value.strip())
        return value

    data = dict(data)
    if isinstance(data.get("first_merge"), dict) and "pair" in data["first_merge"]:
        data["first_merge"] = {**data["first_merge"], "pair": pair(data["first_merge"]["pair"])}
    if isinstance(data.get("first_merge"), dict) and "count" in data["first_merge"]:
        data["first_merge"] = {**data["first_merge"],
                               "count": number(data["first_merge"]["count"])}
    if isinstance(data.get("pair_counts"), dict):
        data["pair_counts"] = {pair(key): number(value)
                               for key, value in data["pair_counts"].items()}
    if isinstance(data.get("tie"), dict):
        tie = dict(data["tie"])
        if "step" in tie:
            tie["step"] = number(tie["step"])
        if isinstance(tie.get("tied"), list):
            tie["tied"] = [pair(item) for item in tie["tied"]]
        if "chosen" in tie:
            tie["chosen"] = pair(tie["chosen"])
        data["tie"] = tie
    return data


@dataclass(frozen=True)
class OwnRun:
    """The run that follows from the student's own (wrong) first merge, and its answers."""

    first: str
    variant: Variant
    expected: dict[str, Any]
    reference_tie_step: int


def answer_passes(exercise: Exercise, variant: Variant, question: str, answer: Any,
                  own: Optional[OwnRun]) -> bool:
    """Whether ``answer`` to ``question`` passes, right for the variant or for ``own``'s run
    (every word of a tokens answer), as the checks judge it."""
    expected = expected_answers(exercise, variant)[question]
    compare = _COMPARE[question]
    theirs = own.expected[question] if own is not None and _followable(question, own) else None
    if question == "tokens":
        answers = answer if isinstance(answer, dict) else {}
        return all(not compare(answers.get(word), expected[word])
                   or (theirs is not None and not compare(answers.get(word), theirs[word]))
                   for word in expected)
    return not compare(answer, expected) or (theirs is not None and not compare(answer, theirs))


def own_run(exercise: Exercise, variant: Variant, data: dict) -> Optional[OwnRun]:
    """The run that follows from the first merge of ``data`` (the file's keys, pairs in the
    file's form), when that merge is a wrong but real pair of the corpus."""
    first = data.get("first_merge")
    written = first.get("pair") if isinstance(first, dict) else None
    if not isinstance(written, str) or len(written.split(" ")) != 2:
        return None
    a, b = written.split(" ")
    own = run_from(exercise, variant, (a, b))
    if own is None:
        return None
    return OwnRun(written, own, expected_answers(exercise, own), variant.tie_step)


# --------------------------------------------------------------------------- per question


def _grade_question(exercise: Exercise, variant: Variant, question: str, data: dict,
                    expected: Any, share: float, own: Optional[OwnRun] = None) -> list[CheckResult]:
    key = FILE_KEYS[question]
    given = data.get(key)
    followed = _followable(question, own)
    if question == "tokens":
        words = list(expected)
        results = []
        answers = given if isinstance(given, dict) else {}
        for word, word_share in zip(words, split_evenly(share, len(words))):
            results.append(_judge(exercise, variant, question, f"answers:tokens:{word}",
                                  f"tokens of {word!r}", answers.get(word), expected[word],
                                  word_share, word,
                                  own=own if followed else None))
        return results
    return [_judge(exercise, variant, question, f"answers:{question}", _TITLES[question],
                   given, expected, share, own=own if followed else None)]


def _followable(question: str, own: Optional[OwnRun]) -> bool:
    """Whether ``question``'s answer can follow from the student's own first merge."""
    if own is None or question == "first-merge":
        return False
    # A tie at the first step is what the wrong first merge got wrong: nothing to follow.
    return question != "tie" or (own.variant.tie_step > 0 and own.reference_tie_step > 1)


_TITLES = {
    "first-merge": "first merge and its count",
    "pair-counts": "pair counts",
    "vocabulary": "vocabulary",
    "tie": "the first tie",
}


def _judge(exercise: Exercise, variant: Variant, question: str, check_id: str, title: str,
           given: Any, expected: Any, share: float, word: str = "",
           own: Optional[OwnRun] = None) -> CheckResult:
    compare = _COMPARE[question]
    problems = compare(given, expected)
    if not problems:
        return graded(check_id, title, share, True, message="correct")
    if own is not None:
        theirs = own.expected[question][word] if question == "tokens" else own.expected[question]
        if not compare(given, theirs):
            return graded(check_id, title, share, True, message=(
                f"right for your own first merge ({own.first}): it follows from it correctly, so "
                "it earns its points; the first merge itself is charged in its own milestone"))
    trace = _trace(exercise, variant, question, word)
    details = {"kind": "trace", "question": question, "expected": expected, "answer": given,
               "trace": trace}
    diagnoses = name_answer_mistakes(exercise, variant, question, given, word)
    return graded(check_id, title, share, False, message=" ".join(problems), details=details,
                  diagnoses=diagnoses)


def _trace(exercise: Exercise, variant: Variant, question: str, word: str) -> str:
    """The trace up to the step the question is about."""
    conventions = exercise.conventions
    upto = {"first-merge": 1, "pair-counts": variant.pair_counts_step, "tie": variant.tie_step}
    merges = upto.get(question, variant.num_merges)
    text, learned = render_training(variant.corpus, merges, tie_break=conventions.tie_break,
                                    end_of_word=conventions.end_of_word, show_pairs=0)
    if question == "tokens":  # the encoding first: a long training run is cut, not the word
        encoding = render_encoding(word, learned, end_of_word=conventions.end_of_word)
        return f"{encoding}\n\nThe merges, as training learns them:\n{text}"
    return text


# --------------------------------------------------------------------------- comparisons


def _show(items: list[str]) -> str:
    shown = ", ".join(repr(item) for item in items[:SHOWN])
    return shown + (f" and {len(items) - SHOWN} more" if len(items) > SHOWN else "")


def _pair_problem(value: Any, what: str) -> Optional[str]:
    if not isinstance(value, str) or len(value.split(" ")) != 2 or "" in value.split(" "):
        return (f"{what} must be a pair: its two symbols and one space, e.g. \"c a\" (also "
                f"[\"c\", \"a\"] or (c, a)); got {value!r}.")
    return None


def compare_first_merge(given: Any, expected: dict) -> list[str]:
    if not isinstance(given, dict):
        return [f"first_merge must be a mapping with pair: and count:; got {given!r}."]
    problems = []
    pair_problem = _pair_problem(given.get("pair"), "first_merge.pair")
    if pair_problem:
        problems.append(pair_problem)
    elif given["pair"] != expected["pair"]:
        problems.append(f"The first merge is not ({given['pair']}).")
    count = given.get("count")
    if type(count) is not int:
        problems.append(f"first_merge.count must be a whole number; got {count!r}.")
    elif count != expected["count"] and not pair_problem and given["pair"] == expected["pair"]:
        problems.append(f"({given['pair']}) is right, but its count is not {count}: add up the "
                        "pair in every word, times the word's count.")
    elif count != expected["count"]:
        problems.append(f"The count {count} is not that of the first merge.")
    return problems


def compare_pair_counts(given: Any, expected: dict) -> list[str]:
    if not isinstance(given, dict):
        return [f"pair_counts must be a mapping \"a b\": count; got {given!r}."]
    problems = []
    bad = [key for key in given if _pair_problem(key, "a key") or type(given[key]) is not int]
    if bad:
        problems.append(f"Each entry must be \"a b\": count (a pair and a whole number); not {_show([str(b) for b in bad])}.")
    missing = [pair for pair in expected if pair not in given]
    extra = [pair for pair in given if pair not in expected and pair not in bad]
    wrong = [pair for pair in expected if pair in given and given[pair] != expected[pair]]
    if missing:
        problems.append(f"Missing pairs: {_show(missing)}.")
    if extra:
        problems.append(f"Not adjacent pairs at that step: {_show(extra)}.")
    if wrong:
        problems.append(f"Wrong counts for {_show(wrong)}.")
    return problems


def compare_vocabulary(given: Any, expected: list) -> list[str]:
    if not isinstance(given, list) or not all(isinstance(token, str) for token in given):
        return [f"vocabulary must be a list of tokens; got {given!r}."]
    problems = []
    repeated = sorted({token for token in given if given.count(token) > 1})
    if repeated:
        problems.append(f"Listed more than once: {_show(repeated)}.")
    missing = [token for token in expected if token not in given]
    extra = sorted(set(given) - set(expected))
    if missing:
        problems.append(f"Missing tokens: {_show(missing)}.")
    if extra:
        problems.append(f"Not in the vocabulary: {_show(extra)}.")
    return problems


def compare_tokens(given: Any, expected: list) -> list[str]:
    if not isinstance(given, list) or not all(isinstance(token, str) for token in given):
        return [f"The tokens must be a list of strings; got {given!r}."]
    if given != expected:
        problems = [f"{given!r} is not the tokenization with the learned merges."]
        marker = _marker_left_out(given, expected)
        if marker:
            problems.append(f"A word's tokens end with the end-of-word marker {marker!r} (or a "
                            f"token ending in it): write it too, as training does.")
        return problems
    return []


def _marker_left_out(given: list, expected: list) -> Optional[str]:
    """The end-of-word marker when ``given`` is the word without it: its characters are the
    expected ones but for a tail that ends the last expected token (``</w>``)."""
    written, right = "".join(given), "".join(expected)
    tail = right[len(written):]
    if expected and len(tail) > 1 and right.startswith(written) and expected[-1].endswith(tail):
        return tail
    return None


def compare_tie(given: Any, expected: dict) -> list[str]:
    if not isinstance(given, dict):
        return [f"tie must be a mapping with step:, tied:, chosen: and rule:; got {given!r}."]
    problems = []
    if given.get("step") != expected["step"]:
        problems.append(f"Step {given.get('step')!r} is not the first step with a tie at the top count.")
    tied = given.get("tied")
    if not isinstance(tied, list) or sorted(map(str, tied)) != sorted(expected["tied"]):
        problems.append("The tied pairs are not those tied for the top count at that step.")
    if given.get("chosen") != expected["chosen"]:
        problems.append(f"The rule does not merge {given.get('chosen')!r} there.")
    if given.get("rule") != expected["rule"]:
        problems.append(f"The rule is not {given.get('rule')!r}: name the rule the exercise states.")
    return problems


_COMPARE: dict[str, Callable[[Any, Any], list[str]]] = {
    "first-merge": compare_first_merge,
    "pair-counts": compare_pair_counts,
    "vocabulary": compare_vocabulary,
    "tokens": compare_tokens,
    "tie": compare_tie,
}
