"""What ``grade check`` verifies of a character-BPE spec: every expected value an author wrote.

A wrong expected merge list is explained the way the hand exercises explain a step: the first
step that departs, the pair counts at that step, which pairs tie and what the declared rule
picks, and which other tie rule (if any) would reproduce the author's list. Written tokens and
lengths are recomputed with the reference's merges for the case, and written trade-off rows
with the reference's trade-off. A warning says when no public
case tells the declared tie rule from another.
"""

from __future__ import annotations

from grader.families.bpe.expected import (
    expected_lengths,
    expected_merges,
    expected_tokens,
    reference_pairs,
    reference_steps,
)
from grader.families.bpe.prose import corpus_yaml, tie_cases, undistinguished_rules
from grader.families.bpe.spec import BpeCase as Case
from grader.families.bpe.tradeoff import verify_case as verify_tradeoff
from grader.families.api import Exercise, Pair, Problem, Verification, in_file_order
from reference import TIE_BREAKS
from reference.plain import Step
from reference.tie_breaks import DESCRIPTIONS

SHOWN_PAIR_COUNTS = 8
NEXT = "\n    "  # explanations continue on indented lines under the problem's first line


def verify(exercise: Exercise) -> Verification:
    """Every case's written merges, tokens and lengths checked against the reference."""
    report = Verification()
    for index, case in enumerate(exercise.cases):
        _check_case(exercise, index, case, report)
        verify_tradeoff(exercise, index, case, report)
    report.problems = in_file_order(report.problems)
    report.warnings += _tie_warnings(exercise)
    return report


def _tie_warnings(exercise: Exercise) -> list[Problem]:
    """A warning when no public case tells the declared tie rule from some other rule."""
    left = undistinguished_rules(exercise)
    if not left:
        return []
    conventions = exercise.conventions
    suggestion = tie_cases(conventions.corpus_form, conventions.end_of_word, count=1)
    example = (f" such as corpus {corpus_yaml(suggestion[0])} with num_merges 4, on which the "
               "four rules learn four different lists" if suggestion else "")
    rule = conventions.tie_break
    return [exercise.problem(("conventions", "tie_break"), (
        f"warning: no public case tells tie_break {rule!r} from {', '.join(map(repr, left))}: "
        "a student breaking ties that way passes every public example and the stub's doctests. "
        f"Add a public case{example}."
    ))]


def _check_case(exercise: Exercise, index: int, case: Case, report: Verification) -> None:
    loc = ("cases", index)
    merges = expected_merges(exercise, case)
    if case.merges is None:
        report.computed += 1
    else:
        report.verified += 1
        report.problems += [
            exercise.problem(loc + ("merges",) + sub, message)
            for sub, message in explain_merges(exercise, case)
        ]
    for item_index, item in enumerate(case.encode):
        tokens = expected_tokens(exercise, merges, item.word)
        if item.tokens is None:
            report.computed += 1
            continue
        report.verified += 1
        if item.tokens != tokens:
            report.problems.append(
                exercise.problem(
                    loc + ("encode", item_index, "tokens"),
                    f"encoding {item.word!r} with this case's merges gives {_tokens(tokens)}, "
                    f"not {_tokens(item.tokens)}",
                )
            )
    if case.sentence is not None:
        lengths = expected_lengths(exercise, merges, case.sentence)
        if case.lengths is None:
            report.computed += 1
            return
        report.verified += 1
        for name, value in lengths.items():
            written = getattr(case.lengths, name)
            if written != value:
                report.problems.append(
                    exercise.problem(
                        loc + ("lengths", name),
                        f"is {value} for this sentence and merges, not {written} "
                        f"({_length_rule(name)})",
                    )
                )


def _length_rule(name: str) -> str:
    return {
        "char": "each word's characters plus one for the end-of-word marker",
        "bpe": "the sum of the words' token counts",
        "word": "the number of whitespace-separated words",
    }[name]


def _tokens(tokens: list[str]) -> str:
    return "[" + ", ".join(tokens) + "]"


def _pair(pair: Pair) -> str:
    return f"({pair[0]}, {pair[1]})"


def explain_merges(exercise: Exercise, case: Case) -> list[tuple[tuple, str]]:
    """Where the case's written merges depart from the reference, and why; empty when equal.

    Each item is (location under ``merges``, message).
    """
    written = case.expected_pairs() or []
    steps = reference_steps(exercise, case)
    reference = [step.pair for step in steps]
    if written == reference:
        return []
    departs = next(
        (i for i, (a, b) in enumerate(zip(written, reference)) if a != b),
        min(len(written), len(reference)),
    )
    if departs < len(written) and departs < len(reference):
        sub: tuple = (departs,)
        message = _wrong_step(exercise, steps[departs], written[departs])
    elif departs < len(reference):
        sub = ()
        message = (
            f"lists {len(written)} merges, but num_merges is {case.num_merges} and the reference "
            f"goes on: step {departs + 1} merges {_pair(reference[departs])}."
            f"{_counts_at(steps[departs])}"
        )
    else:
        sub = (departs,)
        message = (
            f"lists {len(written)} merges, but training stops after {len(reference)}: "
            + (
                "num_merges is only " + str(case.num_merges) + "."
                if len(reference) == case.num_merges
                else "no word has two symbols left, so no pair remains."
            )
        )
    return [(sub, message + _other_rules(exercise, case, written))]


def _wrong_step(exercise: Exercise, step: Step, written: Pair) -> str:
    rule = exercise.conventions.tie_break
    counts = step.pair_counts
    if written not in counts:
        why = f"{_pair(written)} is not an adjacent pair at that step"
    elif counts[written] < step.count:
        why = f"{_pair(written)} occurs {counts[written]} times, fewer than {step.count}"
    else:
        why = (
            f"{', '.join(_pair(p) for p in step.tied)} tie at {step.count}, and the declared "
            f"tie_break {rule} ({DESCRIPTIONS[rule]}) picks {_pair(step.pair)}"
        )
    return (
        f"step {step.number} departs from the reference: written {_pair(written)}, but the "
        f"reference merges {_pair(step.pair)}.{NEXT}{why[0].upper()}{why[1:]}.{_counts_at(step)}"
    )


def _counts_at(step: Step) -> str:
    ordered = sorted(step.pair_counts.items(), key=lambda item: -item[1])
    shown = ", ".join(f"{_pair(p)}={c}" for p, c in ordered[:SHOWN_PAIR_COUNTS])
    more = len(ordered) - SHOWN_PAIR_COUNTS
    rest = f", and {more} more" if more > 0 else ""
    return f"{NEXT}Pair counts at step {step.number}: {shown}{rest}."


def _other_rules(exercise: Exercise, case: Case, written: list[Pair]) -> str:
    matching = [
        rule
        for rule in TIE_BREAKS
        if rule != exercise.conventions.tie_break
        and reference_pairs(exercise, case, tie_break=rule) == written
    ]
    if not matching:
        return f"{NEXT}No tie_break rule reproduces the written list: recount it by hand or drop it."
    return (
        f"{NEXT}The written list is what tie_break {' or '.join(matching)} gives: "
        "change conventions.tie_break if that is the rule you mean."
    )
