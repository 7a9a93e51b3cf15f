"""How ``vocab_tradeoff`` is checked: its cases, its doctests, generated inputs and its laws.

A case's ``tradeoff`` (documents, sizes, ``d_model``) is one item. Generated inputs are a few
short documents in the exercise's letters (some decorated, some empty) with sizes around the
base vocabulary, below it too, and an embedding dimension. The laws: one row per size in the
order given; ``params`` is ``size * d_model``; every average lies between the word-level and
the character-level one; and a larger vocabulary never gives more tokens per document. A law
broken only because the student's own trainer or encoder is wrong is not charged here, nor,
in a case, a crash where the student's own trainer or encoder crashes.

A differential check passes as evidence of work, so its judge does not accept rows right only
for the student's functions when they are what do-nothing code gives and the reference's are
not; a trainer that learns nothing on one generated input then loses the check, which is why
the lesson's spec grades this role, as it does sequence lengths, by cases and properties only.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Optional

from grader.families.bpe import generated as inputs
from grader.families.bpe.tradeoff import (
    TRADEOFF,
    details,
    extremes,
    own_failure,
    own_rows,
    reference_rows,
    row_difference,
    rows_match,
    trivial_rows,
)
from grader.families.api import (
    Calls,
    CaseItem,
    CaseLabel,
    Exercise,
    Failure,
    Generated,
    Property,
    Shown,
    StudentAnswer,
    Verdict,
    deterministic,
    failed_call,
    inputs_unmodified,
    observed,
    st,
)
from reference.vocab_tradeoff import base_vocabulary_size

MAX_DOCUMENTS = 4
WORDS_PER_DOCUMENT = 4
MAX_SIZES = 3
D_MODELS = (1, 3, 8, 768)
SLACK = 1e-9

Example = tuple[list[str], list[int], int]


# --------------------------------------------------------------------------- cases


def serves(case: Any) -> bool:
    return getattr(case, "tradeoff", None) is not None


def case_items(calls: Calls, case: Any, label: CaseLabel) -> list[CaseItem]:
    tradeoff = case.tradeoff
    example = (list(tradeoff.documents), list(tradeoff.sizes), tradeoff.d_model)
    title = f"trade-off of sizes {tradeoff.sizes} with d_model {tradeoff.d_model}"
    return [CaseItem(label.check_id, label.title(title), label.visibility,
                     partial(judge_case, calls, example), real_work(calls.exercise, example))]


def judge_case(calls: Calls, example: Example) -> Verdict:
    documents, sizes, d_model = example
    reference = reference_rows(calls.exercise, documents, sizes, d_model)
    answer = calls.call(TRADEOFF, documents, sizes, d_model)
    seen = observed(given_of(example), answer)
    if answer.ok and rows_match(reference, answer.value):
        return Verdict(True, observation=seen)
    own = own_rows(calls, documents, sizes, d_model, reference)  # follow-through
    expected = own.expected if own else reference
    if answer.ok and own and rows_match(expected, answer.value):
        return Verdict(True, own.passed_note(calls),
                       trivial=trivial_rows(calls.exercise, documents, expected))
    if not answer.ok:
        cause = own_failure(calls, documents, sizes)
        if cause is not None and answer.kind == "exception":  # their own crash, charged there
            return Verdict(True, f"{calls.function_name(TRADEOFF)} fails because {cause}; "
                           "that function's own milestone charges it.", trivial=True)
        return Verdict(False, answer.failure or "", details(*example, expected, None), seen)
    note = f" {own.failed_note(calls, reference)}" if own else ""
    message = (f"{calls.function_name(TRADEOFF)}(corpus, {sizes!r}, {d_model}): "
               f"{row_difference(expected, answer.value)}{note}")
    return Verdict(False, message, details(*example, expected, answer.value), seen)


def real_work(exercise: Exercise, example: Example) -> bool:
    documents, sizes, d_model = example
    return not trivial_rows(exercise, documents, reference_rows(exercise, documents, sizes, d_model))


def given_of(example: Example) -> dict[str, Any]:
    documents, sizes, d_model = example
    return {"corpus": list(documents), "sizes": list(sizes), "d_model": d_model}


def stub_examples(exercise: Exercise, name: str, case: Any, doctest: Any) -> list[str]:
    """The case's documents, then its rows as (size, avg_tokens, params) tuples."""
    if not serves(case):
        return []
    tradeoff = case.tradeoff
    rows = reference_rows(exercise, tradeoff.documents, tradeoff.sizes, tradeoff.d_model)
    return [doctest.statement("corpus", list(tradeoff.documents))
            + f"\n>>> rows = {name}(corpus, {list(tradeoff.sizes)!r}, {tradeoff.d_model})"
            + doctest.call('[(row["size"], row["avg_tokens"], row["params"]) for row in rows]',
                           [(row["size"], row["avg_tokens"], row["params"]) for row in rows])]


# --------------------------------------------------------------------------- generated inputs


def strategy(exercise: Exercise) -> Any:
    """``(documents, sizes, d_model)``: sizes are offsets from the base vocabulary, one
    below it at the least (no merges), so the base is counted the way the reference does."""
    alphabet = "".join(sorted(set(exercise.properties.alphabet)))
    most = exercise.properties.max_merges
    word = inputs.word_strategy(exercise)
    document = st.one_of(st.lists(word, min_size=1, max_size=WORDS_PER_DOCUMENT).map(" ".join),
                         st.just(""))
    drawn = st.tuples(
        inputs.letter_count_strategy(exercise),
        st.lists(document, min_size=1, max_size=MAX_DOCUMENTS),
        st.lists(st.integers(-1, most), min_size=1, max_size=MAX_SIZES),
        st.sampled_from(D_MODELS), inputs.decoration_strategy(),
    )

    def build(values: tuple) -> Example:
        count, documents, offsets, d_model, look = values
        documents = inputs.decorate(inputs.fold_letters(documents, alphabet, count), look)
        base = base_vocabulary_size(documents, exercise.conventions.end_of_word)
        return documents, [max(0, base + offset) for offset in offsets], d_model

    return drawn.map(build)


def targeted(exercise: Exercise) -> list[Example]:
    """Documents of unequal length, one empty, with ties at several merges, and the sizes
    from no merges to many, also out of order."""
    letters = ("".join(sorted(set(exercise.properties.alphabet))) * 3)[:3]
    x, y, z = letters[0], letters[1 % len(letters)], letters[2 % len(letters)]
    long_doc = " ".join([x * 3, x + z + z, x + z + z, x + z + z, y + x + x + z])
    short_doc = y + x + x + z
    base = base_vocabulary_size([long_doc, short_doc], exercise.conventions.end_of_word)
    return [([long_doc, short_doc], [base, base + 2, base + 5], 768),
            ([long_doc, "", short_doc], [base + 6, base - 1, base + 3], 4)]


def differential_judge(calls: Calls) -> Any:
    def judge(example: Example) -> Optional[Failure]:
        documents, sizes, d_model = example
        expected = reference_rows(calls.exercise, documents, sizes, d_model)
        answer = calls.remembered(TRADEOFF, documents, sizes, d_model)
        if answer.ok and rows_match(expected, answer.value):
            return None
        own = own_rows(calls, documents, sizes, d_model, expected)
        if (own is not None and trivial_rows(calls.exercise, documents, own.expected)
                and not trivial_rows(calls.exercise, documents, expected)):
            own = None  # rows of a do-nothing trainer or encoder are no evidence of work
        if answer.ok and own is not None and rows_match(own.expected, answer.value):
            return None
        return Failure(example, answer, own.expected if own else expected)

    return judge


def call_text(calls: Calls, example: Example) -> str:
    documents, sizes, d_model = example
    return f"{calls.function_name(TRADEOFF)}({documents!r}, {sizes!r}, {d_model})"


def shown(calls: Calls, failure: Failure) -> Shown:
    if not failure.answer.ok:
        return Shown(failure.expected)
    return Shown(failure.expected, failure.answer.value,
                 row_difference(failure.expected, failure.answer.value))


GENERATED = Generated(
    strategy=strategy, targeted=targeted, count=inputs.count, settings=inputs.settings_key,
    judge=differential_judge, call_text=call_text,
    given=lambda calls, example: given_of(example),
    observed=lambda exercise, example: given_of(example), shown=shown, real_work=real_work,
)


# --------------------------------------------------------------------------- properties


def properties(calls: Calls) -> list[Property]:
    exercise = calls.exercise

    def answer_of(example: Example) -> StudentAnswer:
        return calls.remembered(TRADEOFF, *example)

    def own_doing(example: Example, answer: StudentAnswer) -> bool:
        """Whether the answer is right for the student's own trainer and encoder."""
        own = own_rows(calls, *example, reference_rows(exercise, *example))
        return own is not None and rows_match(own.expected, answer.value)

    def one_row_per_size(example: Example) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        sizes = example[1]
        given = [row["size"] for row in answer.value]
        if given != list(sizes):
            return Failure(example, answer, explanation=(
                f"the rows are for sizes {given!r}, but the sizes asked for are {list(sizes)!r}: "
                "one row per size, in the order given"))
        return None

    def params(example: Example) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        d_model = example[2]
        for row in answer.value:
            if row["params"] != row["size"] * d_model:
                return Failure(example, answer, explanation=(
                    f"size {row['size']} with d_model {d_model} has {row['params']} parameters; "
                    f"an embedding table has one row of d_model numbers per token: "
                    f"{row['size'] * d_model}"))
        return None

    def between_extremes(example: Example) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        most, least = extremes(exercise, example[0])
        outside = [row for row in answer.value
                   if not least - SLACK <= row["avg_tokens"] <= most + SLACK]
        if outside and not own_doing(example, answer):
            return Failure(example, answer, explanation=(
                f"size {outside[0]['size']} averages {outside[0]['avg_tokens']!r} tokens per "
                f"document, outside word level ({least!r}) to character level ({most!r})"))
        return None

    def fewer_with_more(example: Example) -> Optional[Failure]:
        answer = answer_of(example)
        if not answer.ok:
            return failed_call(example, answer)
        by_size = sorted((row["size"], row["avg_tokens"]) for row in answer.value)
        for (small, fewer), (large, more) in zip(by_size, by_size[1:]):
            if more > fewer + SLACK and not own_doing(example, answer):
                return Failure(example, answer, explanation=(
                    f"size {large} averages {more!r} tokens per document, more than size "
                    f"{small} ({fewer!r}): a larger vocabulary only adds merges, and a merge "
                    "never lengthens a word"))
        return None

    return [
        deterministic("same input, same rows", answer_of,
                      lambda example: calls.call(TRADEOFF, *example)),
        Property("one-row-per-size", "one row per size, in the order given", one_row_per_size),
        Property("params", "params is size * d_model", params),
        Property("between-extremes", "averages lie between word and character level",
                 between_extremes),
        Property("fewer-with-more", "a larger vocabulary never averages more tokens",
                 fewer_with_more),
        inputs_unmodified(answer_of),
    ]
