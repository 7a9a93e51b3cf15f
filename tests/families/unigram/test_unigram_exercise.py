"""The unigram-lm exercise: its stub, its examples graded in the sandbox, its mistakes named.

The student-style submissions of every catalogued mistake answer what their catalogue entry
computes (run here in-process, on the cases, the targeted inputs and seeded random ones);
the properties hold for the reference and fail for the mistakes they are about; the spec
rules, shapes and feedback say what is wrong.
"""

from __future__ import annotations

import doctest
import math
import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.families.unigram import shapes
from grader.families.unigram.do_nothing import sources as do_nothing_sources
from grader.families.unigram.expected import ARGUMENTS, REFERENCE, keywords
from grader.families.unigram.feedback import segment_message
from grader.families.unigram.generated import LONG_PIECES, LONG_TEXT, TARGETED
from grader.families.unigram.judges import case_inputs, serves
from grader.families.unigram.mistakes import BOOK, canonical, telling_crash
from grader.families.unigram.properties import (
    em_properties,
    likelihood_properties,
    prune_properties,
    segment_properties,
)
from grader.families.unigram.students import STUDENT_MISTAKES, student_source
from grader.grading.engine import grade_submission
from grader.spec.hooks import ShapeError
from grader.spec.hooks import StudentAnswer
from grader.spec.mistake_book import NOT_COMPARABLE
from grader.spec import SpecError, load_exercise, parse_exercise
from grader.spec.stubs import render_stub
from reference.unigram import SPACE

ROOT = Path(__file__).resolve().parents[3]
EXERCISE = load_exercise("unigram-lm")
EXAMPLES = ROOT / "examples" / "unigram-lm"
SPEC_TEXT = (ROOT / "exercises" / "unigram-lm.yaml").read_text(encoding="utf-8")
TEXT_ROLES = ("segment", "log_likelihood")


def random_inputs(role: str, count: int = 40) -> list[tuple]:
    draw = random.Random(role)
    found = []
    for _ in range(count):
        letters = "abc"[: draw.randint(1, 3)]
        texts = [" ".join("".join(draw.choice(letters) for _ in range(draw.randint(1, 5)))
                          for _ in range(draw.randint(1, 3))) for _ in range(draw.randint(1, 3))]
        pieces = {symbol: -draw.randint(1, 12) / 2 for symbol in SPACE + letters}
        for _ in range(draw.randint(0, 6)):
            piece = (SPACE if draw.random() < 0.4 else "") + "".join(
                draw.choice(letters) for _ in range(draw.randint(1, 3)))
            if len(piece) > 1:
                pieces.setdefault(piece, -draw.randint(1, 12) / 2)
        if role in TEXT_ROLES:
            found.append((texts[0], pieces))
        elif role == "em_step":
            found.append((texts, pieces))
        else:
            found.append((texts, pieces, draw.randint(0, len(pieces))))
    return found


def inputs_of(role: str) -> list[tuple]:
    cases = [case_inputs(role, case) for case in EXERCISE.cases if serves(role)(case)]
    key = {"segment": "text", "log_likelihood": "text", "em_step": "corpus", "prune": "prune"}[role]
    return cases + [tuple(example) for example in TARGETED[key]] + random_inputs(role)


def namespace(mistake_id=None) -> dict:
    found: dict = {}
    exec(compile(student_source(EXERCISE, mistake_id), "student.py", "exec"), found)
    return found


class Crash(str):
    """What a call that raised gives: ValueError (multiplied probabilities: log of 0.0), or
    TypeError (a back pointer left None, where no path passes an unknown character)."""


def outcome(run, *args):
    try:
        return run(*args)
    except (ValueError, TypeError) as error:
        return Crash(error)


# --------------------------------------------------------------------------- the stub


def test_the_stubs_doctests_hold_for_the_reference():
    stub = render_stub(EXERCISE)
    assert "def segment(text: str, pieces: dict[str, float]) -> list[str]:" in stub
    assert "Ties: Ties" not in stub and "min(pieces.values()) - 10" in stub
    written: dict = {}
    exec(compile(stub, "student.py", "exec"), written)
    globs = {spec.name: REFERENCE[role] for role, spec in EXERCISE.roles().items()}
    runner = doctest.DocTestRunner()
    for spec in EXERCISE.roles().values():
        docstring = written[spec.name].__doc__
        runner.run(doctest.DocTestParser().get_doctest(docstring, dict(globs), spec.name,
                                                      "student.py", 0))
    assert runner.failures == 0 and runner.tries >= 12


# --------------------------------------------------------------------------- the examples


def test_the_correct_example_scores_full_marks():
    report = grade_submission(EXAMPLES / "student_correct.py", EXERCISE, seed_secret="unigram")
    assert report.score == report.max_score == 100 and not report.errors


def test_the_greedy_example_is_named_greedy_longest_match():
    report = grade_submission(EXAMPLES / "student_wrong.py", EXERCISE, seed_secret="unigram")
    by_id = {milestone.id: milestone for milestone in report.milestones}
    assert by_id["segment"].score < by_id["segment"].max_score
    assert all(by_id[m].score == by_id[m].max_score for m in ("likelihood", "em", "prune"))
    visible = [c for c in by_id["segment"].checks if not c.passed and c.visibility == "visible"]
    assert visible and all([d.id for d in c.diagnoses] == ["unigram-greedy-longest-match"]
                           for c in visible)
    shown = next(c for c in visible if c.id == "cases:shorter-first-piece").message
    assert "(log-probability -3.0000)" in shown and "(log-probability -6.0000)" in shown


def test_every_do_nothing_source_defines_every_function():
    for kind, source in do_nothing_sources(EXERCISE).items():
        found: dict = {}
        exec(compile(source, kind, "exec"), found)
        assert all(spec.name in found for spec in EXERCISE.roles().values()), kind


# --------------------------------------------------------------------------- the mistakes


@pytest.mark.parametrize("mistake_id", sorted(STUDENT_MISTAKES))
def test_each_student_source_answers_what_its_catalogue_entry_computes(mistake_id):
    student = STUDENT_MISTAKES[mistake_id]
    entry = BOOK.by_id(mistake_id)
    functions = namespace(mistake_id)
    correct = namespace()
    departs = 0
    for inputs in inputs_of(student.role):
        for role, spec in EXERCISE.roles().items():
            if role == student.role:
                continue
            other = inputs_of(role)[0]
            assert canonical(role, functions[spec.name](*other)) == canonical(
                role, correct[spec.name](*other)), (role, "changed by the mistake")
        theirs = outcome(functions[EXERCISE.function(student.role).name], *inputs)
        catalogued = outcome(lambda *a: entry.run(**keywords(student.role, a)), *inputs)
        assert _same(student.role, theirs, catalogued), inputs
        departs += not _same(student.role, theirs, outcome(REFERENCE[student.role], *inputs))
    assert departs, f"{mistake_id} never departs from the reference"


def _same(role, left, right):
    if isinstance(left, Crash) or isinstance(right, Crash):
        return isinstance(left, Crash) and isinstance(right, Crash) and left == right
    return canonical(role, left) == canonical(role, right)


def test_the_correct_student_source_is_the_reference():
    functions = namespace()
    for role, spec in EXERCISE.roles().items():
        for inputs in inputs_of(role):
            assert canonical(role, functions[spec.name](*inputs)) == canonical(
                role, REFERENCE[role](*inputs)), (role, inputs)


def test_products_of_probabilities_crash_on_the_long_text_and_that_crash_is_telling():
    pieces = dict(LONG_PIECES)
    run = namespace("unigram-likelihood-underflow")["log_likelihood"]
    assert REFERENCE["log_likelihood"](LONG_TEXT, pieces) < -745  # below the smallest float
    with pytest.raises(ValueError, match="math domain error"):
        run(LONG_TEXT, pieces)
    assert math.isclose(run("abc ab", pieces), REFERENCE["log_likelihood"]("abc ab", pieces))
    assert telling_crash("log_likelihood", "log_likelihood raised ValueError: math domain error")
    assert not telling_crash("segment", "segment raised ValueError: math domain error")


def test_floats_compare_within_the_tolerance():
    assert canonical("log_likelihood", -1.0) == canonical("log_likelihood", -1.0 + 1e-9)
    assert canonical("log_likelihood", -1.0) != canonical("log_likelihood", -1.001)
    assert canonical("em_step", {"a": -0.5}) == canonical("em_step", {"a": -0.5 + 1e-9})
    assert canonical("em_step", {"a": "x"}) is NOT_COMPARABLE


# --------------------------------------------------------------------------- the properties


class ReferenceCalls:
    """Answers every call with the reference's (or a mistake's) value, as StudentCalls would."""

    def __init__(self, override=None):
        self.exercise = EXERCISE
        self.override = override or {}

    def remembered(self, role, *args):
        run = self.override.get(role) or REFERENCE[role]
        return StudentAnswer(value=run(*args))

    answer = call = remembered


LAWS = {"segment": segment_properties, "log_likelihood": likelihood_properties,
        "em_step": em_properties, "prune": prune_properties}


@pytest.mark.parametrize("role", sorted(LAWS))
def test_the_properties_hold_for_the_reference(role):
    for prop in LAWS[role](ReferenceCalls()):
        for inputs in inputs_of(role):
            assert prop.judge(inputs) is None, (prop.id, inputs)


@pytest.mark.parametrize("mistake_id, law", [
    ("unigram-em-counts-not-normalized", "normalized"),
    ("unigram-prune-drops-characters", "characters-kept"),
    ("unigram-forgot-space-symbol", "joins-back"),
    ("unigram-greedy-longest-match", "no-better-neighbour"),
])
def test_a_property_catches_the_mistake_it_is_about(mistake_id, law):
    entry = BOOK.by_id(mistake_id)
    wrong = ReferenceCalls({entry.role: lambda *a: entry.run(**keywords(entry.role, a))})
    prop = next(p for p in LAWS[entry.role](wrong) if p.id == law)
    failures = [prop.judge(inputs) for inputs in inputs_of(entry.role)]
    assert any(failure is not None for failure in failures)


# --------------------------------------------------------------------------- spec, shapes, feedback


def test_a_corpus_needs_its_characters_as_pieces():
    broken = SPEC_TEXT.replace('corpus: ["ab", "ba ab"]', 'corpus: ["ab", "ba abz"]', 1)
    assert broken != SPEC_TEXT
    with pytest.raises(SpecError) as raised:
        parse_exercise(broken, "unigram-lm.yaml")
    assert any("missing 'z'" in problem.message for problem in raised.value.problems)


def test_shapes_take_plain_values_and_name_the_wrong_ones():
    assert shapes.pieces_list(EXERCISE, ["a"], "segment") == ["a"]
    assert shapes.number(EXERCISE, -2, "log_likelihood") == -2.0
    for bad in (["a", 1], ("a",), None):
        with pytest.raises(ShapeError):
            shapes.pieces_list(EXERCISE, bad, "segment")
    with pytest.raises(ShapeError, match="finite float"):
        shapes.number(EXERCISE, True, "log_likelihood")
    with pytest.raises(ShapeError, match="'a' maps to"):
        shapes.scores(EXERCISE, {"a": "x"}, "em_step")


def test_feedback_says_a_forgotten_space_symbol_and_a_lower_score():
    pieces = {SPACE: -1.0, "a": -1.0, "b": -1.0, SPACE + "a": -0.5}
    message = segment_message("ab", pieces, [SPACE + "a", "b"], ["a", "b"])
    assert "does not join back" in message and "each word starts with" in message
    message = segment_message("ab", pieces, [SPACE + "a", "b"], [SPACE, "a", "b"])
    assert "-1.5000" in message and "-3.0000" in message and "highest total" in message


def test_every_role_has_public_and_hidden_cases():
    for role in ARGUMENTS:
        served = [case for case in EXERCISE.cases if serves(role)(case)]
        assert any(case.public for case in served) and any(not case.public for case in served), role
