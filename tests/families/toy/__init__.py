"""A toy family defined outside the grader: a word-level vocabulary, one role, one mistake.

It exists to prove that a new family is one folder: its students write
``word_vocabulary(corpus, size)``, the ``size`` most frequent words of a list of texts (split
on whitespace), most frequent first, ties in alphabetical order. Its one known mistake
breaks ties in the order the words were first met. Nothing in the grader names it; the tests
register it (``register_family("toy", "tests.families.toy")``) or load it from a course
folder, and grade its submissions in the sandbox.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any, ClassVar, Literal

from pydantic import ConfigDict, Field

from grader.spec.hooks import CaseItem, CaseLabel, Verdict
from grader.grading.naming import observed
from grader.grading.shapes import describe
from grader.spec.hooks import ShapeError
from grader.spec.mistake_book import Mistake, MistakeBook, StudentMistake, Students
from grader.spec import Exercise, Family, Role
from grader.spec.models import Case, FunctionSpec, functions_field, milestone_model
from grader.spec.hooks import StubText

ROLE = "word_vocabulary"
ROLES = (ROLE,)


# --------------------------------------------------------------------------- the spec


class ToyCase(Case):
    """A list of texts and how many words the vocabulary keeps."""

    corpus: list[str]
    size: int = Field(ge=0)


ToyMilestone = milestone_model(ROLES, "ToyMilestone", __name__)


class ToyExercise(Exercise):
    model_config = ConfigDict(title="toy exercise (word-level vocabulary)")
    role_order: ClassVar[tuple[str, ...]] = ROLES

    family: Literal["toy"] = "toy"
    functions: dict[str, FunctionSpec] = functions_field(ROLES)
    milestones: list[ToyMilestone] = Field(min_length=1)  # type: ignore[valid-type]
    cases: list[ToyCase] = Field(default_factory=list)


# --------------------------------------------------------------------------- the algorithm


def vocabulary(corpus: list[str], size: int) -> list[str]:
    counts = Counter(word for text in corpus for word in text.split())
    return sorted(counts, key=lambda word: (-counts[word], word))[:size]


def vocabulary_first_seen(corpus: list[str], size: int) -> list[str]:
    counts = Counter(word for text in corpus for word in text.split())
    return sorted(counts, key=lambda word: -counts[word])[:size]  # stable: first seen


# --------------------------------------------------------------------------- grading


def shape(exercise: Exercise, value: Any, name: str) -> list[str]:
    if type(value) is not list or not all(type(word) is str for word in value):
        raise ShapeError(f"{name} must return a list of str words; it returned {describe(value)}")
    return list(value)


def judge(calls: Any, case: ToyCase) -> Verdict:
    expected = vocabulary(case.corpus, case.size)
    answer = calls.call(ROLE, case.corpus, case.size)
    seen = observed({"corpus": case.corpus, "size": case.size}, answer)
    if answer.ok and answer.value == expected:
        return Verdict(True, observation=seen)
    if not answer.ok:
        return Verdict(False, answer.failure or "", observation=seen)
    details = {"kind": "tokens", "input": {"corpus": case.corpus, "size": case.size},
               "expected": expected, "actual": answer.value}
    return Verdict(False, f"expected {expected!r}, got {answer.value!r}", details, seen)


def case_items(calls: Any, case: ToyCase, label: CaseLabel) -> list[CaseItem]:
    return [CaseItem(label.check_id, label.title(f"the {case.size} most frequent words"),
                     label.visibility, partial(judge, calls, case),
                     real_work=bool(vocabulary(case.corpus, case.size)))]


def examples(exercise: Exercise, name: str, case: ToyCase, doctest: Any) -> list[str]:
    return [doctest.statement("corpus", case.corpus)
            + doctest.call(f"{name}(corpus, {case.size})", vocabulary(case.corpus, case.size))]


def stub_text(exercise: Exercise) -> StubText:
    return StubText(["Corpus: a list of texts; split each text on whitespace.",
                     "Order: most frequent first; words with the same count alphabetically."])


# --------------------------------------------------------------------------- mistakes


MISTAKE = Mistake(
    id="toy-ties-first-seen",
    title="Ties kept in the order the words were met",
    hint="Words with the same count go in alphabetical order: sort by (-count, word).",
    role=ROLE,
    run=vocabulary_first_seen,
    witness={"corpus": ["b a"], "size": 2},
)

CORRECT_SOURCE = '''# exercise: {id}
from collections import Counter


def {name}(corpus, size):
    counts = Counter(word for text in corpus for word in text.split())
    return sorted(counts, key=lambda word: {key})[:size]
'''
KEYS = {None: "(-counts[word], word)", MISTAKE.id: "-counts[word]"}


def source(exercise: Exercise, mistake_id: str | None = None) -> str:
    return CORRECT_SOURCE.format(id=exercise.id, name=exercise.function(ROLE).name,
                                 key=KEYS[mistake_id])


FAMILY = Family(
    name="toy",
    summary="a word-level vocabulary: the most frequent words of a corpus",
    roles=(Role(name=ROLE, arguments=("corpus", "size"), checks=frozenset({"cases"}),
                send=lambda exercise, args: [list(args[0]), args[1]], shape=shape,
                case_items=case_items, stub_examples=examples,
                audit_advice="a case whose corpus has a tie that shows it"),),
    exercise=ToyExercise,
    conventions=stub_text,
    mistakes=MistakeBook(entries=(MISTAKE,), reference={ROLE: vocabulary}),
    students=Students(applicable=lambda exercise: [StudentMistake(MISTAKE.id, ROLE)],
                      source=source),
)
