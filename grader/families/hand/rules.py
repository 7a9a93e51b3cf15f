"""The semantic checks of a hand exercise (an answers file), which runs no code.

Such an exercise names no functions and has no cases: each milestone grades questions of the
student's answers file, and ``answers`` says how each student's variant is drawn. The draws
must be able to satisfy the variant's requirements, so the shipped settings are tried here.
"""

from __future__ import annotations

from collections.abc import Iterator

from grader.families.hand.variants import VariantError, draw_variant
from grader.families.api import Exercise, Loc


def spec_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    settings = exercise.answers
    if settings is None:
        yield ("answers",), "an exercise of kind: answers needs answers: settings (word_pool, encode_pool)"
    if exercise.roles():
        yield ("functions",), "an answers exercise runs no code: leave functions out"
    if exercise.cases:
        yield ("cases",), "an answers exercise draws each student's corpus: leave cases out"
    asked: dict[str, int] = {}
    for index, milestone in enumerate(exercise.milestones):
        loc: Loc = ("milestones", index)
        if milestone.function is not None:
            yield loc + ("function",), "an answers milestone grades questions, not a function"
        if not milestone.questions:
            yield loc + ("questions",), "name the questions this milestone grades"
        for check_index, check in enumerate(milestone.checks):
            if check.kind != "answers":
                yield loc + ("checks", check_index, "kind"), (
                    f"{check.kind!r} checks run code; an answers milestone has one check: answers"
                )
        for question in milestone.questions:
            if question in asked:
                yield loc + ("questions",), (
                    f"question {question!r} is already graded by milestones[{asked[question]}]"
                )
            asked[question] = index
    if settings is None:
        return
    if settings.pair_counts_step > settings.num_merges:
        yield ("answers", "pair_counts_step"), (
            f"must be at most num_merges ({settings.num_merges}): the variant guarantees its "
            "ties only within the first num_merges merges"
        )
    if settings.corpus_words > len(set(settings.word_pool)):
        yield ("answers", "corpus_words"), "the word pool has fewer distinct words than that"
    if settings.encode_words > len(set(settings.encode_pool)):
        yield ("answers", "encode_words"), "the encode pool has fewer distinct words than that"
    for field, words in (("word_pool", settings.word_pool), ("encode_pool", settings.encode_pool)):
        for index, word in enumerate(words):
            if not word or any(char.isspace() for char in word):
                yield ("answers", field, index), "a word is one or more characters without whitespace"
    try:
        draw_variant(exercise, "grade-check", "grade-check")
    except VariantError as error:
        yield ("answers",), str(error)
