"""What a character-BPE stub says: its conventions, its ties, and each role's doctests.

Every convention sentence is generated from the spec's declared values (corpus form, marker,
tie rule, merge form, time limits), and the tie paragraph works a tie of the exercise's own
cases (:mod:`grader.families.bpe.prose`); the author's tie example is shown only when it
agrees with the declared rule. Doctests come from the public cases, with the reference's
expected values. WordPiece builds on these.
"""

from __future__ import annotations

from grader.families.bpe.expected import case_encodings, case_lengths, expected_merges
from grader.families.bpe.prose import prose_problems, tie_paragraph
from grader.families.bpe.spec import BpeCase as Case
from grader.families.api import Doctest, Exercise, StubText
from reference.tie_breaks import DESCRIPTIONS


REAL_WORK_NOTE = """\
Points need real work: a milestone's property checks, and its cases whose right answer is
what doing nothing gives (no merges, a word's bare characters), earn points only once the
same milestone also passes a case or generated input that needs real work. Generated inputs
and the timed corpus change with a secret seed, so only a real solution passes them."""


def stub_text(exercise: Exercise, ranked_by: str = "count", ties: str = "") -> StubText:
    """The stub's conventions, tie paragraph (``ties``, else BPE's, worked by the reference),
    the author's consistent tie example, and what earns points."""
    return StubText(convention_lines(exercise, ranked_by), ties or tie_paragraph(exercise),
                    _consistent_tie_example(exercise), REAL_WORK_NOTE)


def convention_lines(exercise: Exercise, ranked_by: str = "count") -> list[str]:
    """The conventions a student needs, one sentence each; pairs are ranked by ``ranked_by``."""
    conventions = exercise.conventions
    marker = conventions.end_of_word
    lines = [
        "Corpus: "
        + (
            "a list of texts; split each text on whitespace (text.split()) and count every word."
            if conventions.corpus_form == "texts"
            else "a dict word -> count; each word occurs count times."
        ),
        (
            f"End of word: each word starts as its characters followed by {marker!r} as a "
            f"separate symbol, so 'low' starts as ['l', 'o', 'w', {marker!r}]."
            if marker
            else "End of word: no marker; each word starts as its characters."
        ),
        f"Ties: when pairs share the highest {ranked_by}, take "
        f"{DESCRIPTIONS[conventions.tie_break]} (rule {conventions.tie_break!r}; a worked tie "
        "below).",
        "Merges: "
        + (
            "a list of (left, right) tuples in the order learned, e.g. ('e', 's')."
            if conventions.merge_form == "pairs"
            else "a list of ((left, right), left + right) tuples in the order learned, "
            "e.g. (('e', 's'), 'es')."
        ),
        (
            "Tuples or lists: the grader also accepts lists where tuples are asked for "
            "(['e', 's'] for ('e', 's')); the doctests show tuples."
            if conventions.accept_lists_for_tuples
            else "Tuples: return real tuples where tuples are asked for; lists are marked wrong."
        ),
        "Stopping: training stops early when no word has two symbols left to pair.",
        "Inputs: do not modify the arguments you receive; return new lists.",
        _time_line(exercise),
    ]
    return lines


def _time_line(exercise: Exercise) -> str:
    """The time limits, each stated once, from the spec's values."""
    line = (f"Time: each call must finish within {exercise.limits.call_seconds:g} seconds of "
            "wall-clock time")
    timed = [m for m in exercise.milestones if m.check("efficiency") is not None]
    if timed:
        settings = exercise.efficiency
        line += (f", except in the milestone \"{timed[0].title}\", where training on a large "
                 f"generated corpus ({settings.total_words:,} words, {settings.num_merges} merges) "
                 f"may take at most {settings.max_seconds:g} seconds of CPU time and at most "
                 f"{settings.max_ratio:g} times the reference's time")
    return line + "."


def _consistent_tie_example(exercise: Exercise) -> str:
    """The author's tie example, or "" when it contradicts the declared rule (``grade check``
    reports that) or there is none; the generated paragraph always states the rule."""
    text = exercise.conventions.tie_example
    if not text:
        return ""
    if any(loc == ("conventions", "tie_example") for loc, _ in prose_problems(exercise)):
        return ""
    return text.strip()


def train_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    """The doctest of a public case for the trainer: its corpus and the merges learned."""
    return [
        doctest.statement("corpus", case.corpus)
        + doctest.call(f"{name}(corpus, {case.num_merges})", expected_merges(exercise, case))
    ]


def encode_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    """The case's merges, then each word it encodes with them and the tokens."""
    if not case.encode:
        return []
    lines = [doctest.statement("merges", expected_merges(exercise, case))]
    for item, tokens in case_encodings(exercise, case):
        lines.append(doctest.call(f"{name}({item.word!r}, merges)", tokens).lstrip("\n"))
    return ["\n".join(lines)]


def lengths_examples(exercise: Exercise, name: str, case: Case, doctest: Doctest) -> list[str]:
    """The case's merges, then the sequence lengths of its sentence."""
    if case.sentence is None:
        return []
    lengths = case_lengths(exercise, case)
    assert lengths is not None
    return [
        doctest.statement("merges", expected_merges(exercise, case))
        + f"\n>>> lengths = {name}({case.sentence!r}, merges)"
        + '\n>>> lengths["char"], lengths["bpe"], lengths["word"]\n'
        + f"({lengths['char']}, {lengths['bpe']}, {lengths['word']})"
    ]
