"""One student-style submission per catalogued mistake, graded for real, for every exercise.

Each shipped exercise is audited once (every submission graded once through the sandbox, the
results reused by all assertions; an exercise's tests share one test process). Each mistaken
submission must fail every milestone that checks the function it lives in, pass the others
(except a milestone that calls the mistaken function through the student's own code), and the
diagnosis of a visible failing check must name the mistake. The audit as a whole must pass.

The submissions themselves are checked first, cheaply, in this process: on generated inputs
each one answers exactly what its catalogue entry computes, so "the diagnosis names it" is a
property of the grader, not luck of the cases.
"""

from __future__ import annotations

import functools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.grading.audit import affected_milestones, exercise_without_efficiency
from grader.grading.engine import grade_submission
from grader.families.bpe.catalogue import REAL_ENCODE_MISTAKES, REAL_TRAIN_MISTAKES, ROLES
from grader.families.bpe.book import BOOK
from grader.families.bpe.catalogue import mistakes_for
from grader.families.bpe.expected import to_merge_form
from grader.families.bpe.real_code import NoPairLeft
from grader.families.bpe.students import STUDENT_MISTAKES
from grader.spec import load_exercise
from grader.spec.registry import depends_on, family_of
from grader.spec.loading import exercise_ids
from grader.families.byte_level.mistakes import REFERENCES as BYTE_REFERENCES
from grader.families.byte_level.mistakes import canonical as byte_canonical
from grader.families.wordpiece.mistakes import canonical
from grader.families.wordpiece.mistakes import REAL_CODE_MISTAKES as WORDPIECE_REAL_CODE
from grader.families.unigram.mistakes import REAL_CODE_MISTAKES as UNIGRAM_REAL_CODE
from reference import encode, train_bpe
from reference.corpus import word_counts
from reference.plain import count_pairs, initial_segmentation, merge_words
from reference.wordpiece import first_divergence, train_wordpiece
from support.audits import audit_of, in_audit_group, sample

WORDPIECE_ROLES = ("train_wordpiece", "first_divergence")
BYTE_ROLES = ("train_byte_bpe", "encode_byte_bpe", "decode_byte_bpe")
EOT = "<|endoftext|>"


def run_byte(exercise, mistake_id, role, text, implementation=None):
    """``role``'s output on ``text`` (with EOT between two copies), by the student-style
    submission or by ``implementation``; encoding and decoding use the reference's training."""
    text = f"{text}{EOT}{text} é"
    function = implementation or student_namespace(exercise.id, mistake_id)[exercise.function(role).name]
    if role == "train_byte_bpe":
        return function(text, 256 + 1 + 6, [EOT])
    vocab, merges = BYTE_REFERENCES["train_byte_bpe"](text, 256 + 1 + 6, [EOT])
    if role == "encode_byte_bpe":
        return function(text, vocab, merges, [EOT])
    return function(BYTE_REFERENCES["encode_byte_bpe"](text, vocab, merges, [EOT]), vocab)

EXERCISES = {exercise_id: exercise for exercise_id in exercise_ids()
             if family_of(exercise := load_exercise(exercise_id)).submission is None}
# answers files: tests/families/hand
# The exercises whose catalogue entries the equivalence tests below know how to drive (corpora of
# words and merge counts); another family's own tests check its students answer as its entries.
DRIVEN = {exercise_id: exercise for exercise_id, exercise in EXERCISES.items()
          if hasattr(exercise.conventions, "corpus_form")}


def applicable_mistakes(exercise):
    return family_of(exercise).students.applicable(exercise)


def combined_mistakes(exercise):
    return family_of(exercise).students.combined(exercise)


def student_source(exercise, mistake_id=None):
    return family_of(exercise).students.source(exercise, mistake_id)
SINGLE_CASES = [
    (exercise_id, mistake.id)
    for exercise_id, exercise in EXERCISES.items()
    for mistake in applicable_mistakes(exercise)
]
COMBINED_CASES = [
    (exercise_id, mistake.id)
    for exercise_id, exercise in EXERCISES.items()
    for mistake in combined_mistakes(exercise)
]
CASES = SINGLE_CASES + COMBINED_CASES
REAL_CODE_IDS = {m.id for m in REAL_TRAIN_MISTAKES + REAL_ENCODE_MISTAKES
                 + WORDPIECE_REAL_CODE + UNIGRAM_REAL_CODE}
NAMED_EXACTLY = [case for case in SINGLE_CASES if case[1] in REAL_CODE_IDS] + COMBINED_CASES
NO_FALSE_NAMES = ("wordpiece", "unigram")
"""Families whose every student-style file is checked to name nothing but its own mistake."""
ALSO_TRUE = {
    "wordpiece-raw-frequency": {"divergence-raw-frequency"},
    "wordpiece-continuation-prefix": {"divergence-continuation-prefix"},
    "wordpiece-symbols-counted-per-pair": {"divergence-symbols-counted-per-pair"},
}
"""A trainer's mistake the file's ``first_divergence`` makes too (its shared scoring code):
the name of that ``first_divergence`` mistake is true of the file as well."""


def words_after(corpus, merges, end_of_word):
    words = initial_segmentation(word_counts(corpus), end_of_word)
    for pair in merges:
        words = merge_words(words, pair)
    return words


def catalogue(exercise):
    family = family_of(exercise)
    entries = {m.id: m for role in exercise.roles() for m in family.mistakes.for_role(role)}
    entries.update({m.id: family.students.combination(m.id) for m in combined_mistakes(exercise)})
    return entries


def outcome(run, *args, **options):
    """What a call gives, or the crash of a trainer that does not stop when no pair is left."""
    try:
        return run(*args, **options)
    except NoPairLeft:
        return "crash"
    except ValueError as error:  # the student's own max()/min() of nothing
        assert "empty sequence" in str(error)
        return "crash"


# --------------------------------------------------------------------------- the submissions


words = st.text(alphabet="aab", min_size=1, max_size=6)
decorated_words = st.text(alphabet="aabA.,(", min_size=1, max_size=6)


def corpora(form):
    if form == "texts":
        return st.lists(st.lists(words, max_size=5).map(" ".join), min_size=1, max_size=3)
    return st.dictionaries(words, st.integers(min_value=1, max_value=4), min_size=1, max_size=5)


@functools.lru_cache(maxsize=None)
def student_namespace(exercise_id, mistake_id):
    namespace: dict = {}
    source = student_source(EXERCISES[exercise_id], mistake_id)
    exec(compile(source, f"<{mistake_id}>", "exec"), namespace)
    return namespace


def run_student(exercise, mistake_id, role, *args):
    return student_namespace(exercise.id, mistake_id)[exercise.function(role).name](*args)


def test_every_catalogued_mistake_has_a_student_style_submission():
    assert set(STUDENT_MISTAKES) == {m.id for role in ROLES for m in mistakes_for(role)}


@pytest.mark.parametrize("exercise_id", list(DRIVEN))
@settings(max_examples=40)
@given(data=st.data())
def test_mistakes_left_out_of_an_audit_cannot_happen_in_that_exercise(exercise_id, data):
    """An entry not audited is the exercise's own tie rule or equals the reference there."""
    exercise = EXERCISES[exercise_id]
    conventions = exercise.conventions
    audited = {m.id for m in applicable_mistakes(exercise) + combined_mistakes(exercise)}
    corpus = data.draw(corpora(conventions.corpus_form))
    num_merges = data.draw(st.integers(min_value=0, max_value=8))
    for mistake_id, entry in catalogue(exercise).items():
        if mistake_id in audited or entry.convention.get("tie_break") == conventions.tie_break:
            continue
        assert entry.role == "train", mistake_id
        if "count_pairs" in exercise.roles() and mistake_id in (
                "pairs-once-per-word", "overlap-right-to-left", "merge-by-string-replace",
                "merge-first-occurrence"):
            continue  # the counter's and the merger's own mistakes stand for them there
        assert entry.run(corpus, num_merges, tie_break=conventions.tie_break,
                         end_of_word=conventions.end_of_word) == train_bpe(
            corpus, num_merges, tie_break=conventions.tie_break,
            end_of_word=conventions.end_of_word), mistake_id


@pytest.mark.parametrize("exercise_id, mistake_id", [case for case in CASES if case[0] in DRIVEN])
@settings(max_examples=20)
@given(data=st.data())
def test_each_submission_answers_what_its_catalogue_entry_computes(exercise_id, mistake_id, data):
    exercise = EXERCISES[exercise_id]
    conventions = exercise.conventions
    entry = catalogue(exercise)[mistake_id]
    corpus = data.draw(corpora(conventions.corpus_form))
    num_merges = data.draw(st.integers(min_value=0, max_value=8))
    if entry.role in BYTE_ROLES:
        text = "".join(data.draw(corpora("texts")))
        assert byte_canonical(entry.role, outcome(run_byte, exercise, mistake_id, entry.role, text)) == \
            byte_canonical(entry.role, outcome(run_byte, exercise, None, entry.role, text, entry.run))
        return
    if entry.role in WORDPIECE_ROLES:
        actual = outcome(run_student, exercise, mistake_id, entry.role, corpus, num_merges)
        options = {"tie_break": conventions.tie_break, "end_of_word": conventions.end_of_word}
        computed = outcome(entry.run, corpus, num_merges, **options)
        assert (actual == computed == "crash") or canonical(entry.role, actual) == canonical(
            entry.role, computed)
        return
    if entry.role == "train":
        actual = outcome(run_student, exercise, mistake_id, "train", corpus, num_merges)
        pairs = actual if actual == "crash" else [
            tuple(item[0]) if conventions.merge_form == "pairs-with-token" else tuple(item)
            for item in actual]
        assert pairs == outcome(entry.run, corpus, num_merges, tie_break=conventions.tie_break,
                                end_of_word=conventions.end_of_word)
        return
    if entry.role == "vocab_tradeoff":
        documents = data.draw(st.lists(st.lists(words, max_size=4).map(" ".join), min_size=1,
                                       max_size=3))
        sizes = data.draw(st.lists(st.integers(0, 20), min_size=1, max_size=3))
        actual = run_student(exercise, mistake_id, entry.role, documents, sizes, 8)
        assert BOOK.canonical(entry.role, actual) == BOOK.canonical(entry.role, entry.run(
            documents, sizes, 8, tie_break=conventions.tie_break, end_of_word=conventions.end_of_word))
        return
    merges = train_bpe(corpus, num_merges, tie_break=conventions.tie_break,
                       end_of_word=conventions.end_of_word)
    if entry.role == "count_pairs":
        vocabulary = words_after(corpus, merges, conventions.end_of_word)
        assert run_student(exercise, mistake_id, "count_pairs", vocabulary) == entry.run(vocabulary)
        return
    if entry.role == "merge_pair":
        vocabulary = words_after(corpus, merges, conventions.end_of_word)
        pairs = sorted(count_pairs(vocabulary))
        pair = pairs[data.draw(st.integers(0, len(pairs) - 1))] if pairs else ("a", "b")
        assert run_student(exercise, mistake_id, "merge_pair", pair, vocabulary) == entry.run(
            pair, vocabulary)
        return
    given_merges = to_merge_form(merges, conventions.merge_form)
    if entry.role == "encode":
        word = data.draw(st.one_of(words, decorated_words))
        actual = run_student(exercise, mistake_id, "encode", word, given_merges)
        assert actual == entry.run(word, merges, end_of_word=conventions.end_of_word)
    else:
        sentence = " ".join(data.draw(st.lists(words, max_size=4)))
        actual = run_student(exercise, mistake_id, "sequence_lengths", sentence, given_merges)
        assert actual == entry.run(sentence, merges, end_of_word=conventions.end_of_word)


# --------------------------------------------------------------------------- graded for real


def per_exercise(cases):
    """Parameters whose tests of one exercise run in one test process (``--dist loadgroup``),
    so each exercise is audited once however the suite is spread over processes (other
    modules' tests of its gradings join the same process: ``support.audits``)."""
    return in_audit_group(cases)


@pytest.mark.parametrize("exercise_id", per_exercise([(e,) for e in EXERCISES]))
def test_the_correct_submission_scores_full_marks(exercise_id):
    reference = audit_of(exercise_id).reference
    assert reference.full_marks, reference.failed_checks + reference.errors


@pytest.mark.parametrize("exercise_id, mistake_id", per_exercise(CASES))
def test_each_mistake_fails_exactly_its_milestones_and_is_named(exercise_id, mistake_id):
    exercise = EXERCISES[exercise_id]
    audit = audit_of(exercise_id)
    report = audit.reports[mistake_id]
    result = next(m for m in audit.mistakes if m.id == mistake_id)
    assert report.errors == []
    affected = set(affected_milestones(exercise, result.role))
    may_also_fail = {
        m.id for m in exercise.milestones if result.role in depends_on(exercise, m.function)
    }
    failed = {m.id for m in report.milestones if not m.passed}
    assert affected <= failed, f"passes {sorted(affected - failed)}"
    assert failed <= affected | may_also_fail, f"also fails {sorted(failed - affected)}"
    assert result.named_in, (
        f"no visible failing check names {mistake_id}; diagnoses: "
        f"{[(c.id, [d.id for d in c.diagnoses]) for m in report.milestones for c in m.checks if not c.passed]}")


@pytest.mark.parametrize("exercise_id, mistake_id", per_exercise(NAMED_EXACTLY))
def test_real_code_mistakes_and_their_combinations_are_named_exactly(exercise_id, mistake_id):
    """The one name shown for the mistaken milestone is the mistake (both, for a combination)."""
    exercise = EXERCISES[exercise_id]
    report = audit_of(exercise_id).reports[mistake_id]
    role = catalogue(exercise)[mistake_id].role
    for milestone_id in affected_milestones(exercise, role):
        milestone = next(m for m in report.milestones if m.id == milestone_id)
        shown = {d.id for c in milestone.checks if not c.passed for d in c.diagnoses}
        assert shown == {mistake_id}, (milestone_id, shown)


@pytest.mark.parametrize("exercise_id, mistake_id", per_exercise(
    [case for case in CASES if EXERCISES[case[0]].family in NO_FALSE_NAMES]))
def test_a_student_style_file_names_nothing_but_its_own_mistake(exercise_id, mistake_id):
    """Every name anywhere in the report is the file's own mistake (a false name is worse
    than none); a milestone of another function may stay unnamed."""
    report = audit_of(exercise_id).reports[mistake_id]
    allowed = {mistake_id} | ALSO_TRUE.get(mistake_id, set())
    shown = {d.id for m in report.milestones for c in m.checks for d in c.diagnoses}
    assert shown <= allowed, sorted(shown - allowed)


@pytest.mark.parametrize("exercise_id", per_exercise([(e,) for e in EXERCISES]))
def test_the_audit_grades_the_combinations_real_code_makes(exercise_id):
    audited = {m.id for m in audit_of(exercise_id).mistakes}
    combined = {m.id for m in combined_mistakes(EXERCISES[exercise_id])}
    assert combined <= audited
    if EXERCISES[exercise_id].family == "bpe":  # others: none yet
        assert combined and any("+" in mistake_id for mistake_id in audited)


@pytest.mark.parametrize("exercise_id", per_exercise([(e,) for e in EXERCISES]))
def test_every_shipped_exercise_passes_its_audit(exercise_id):
    audit = audit_of(exercise_id)
    assert audit.ok, [m.to_json() for m in audit.mistakes if not m.caught] or audit.unexpected


WRONG_SAMPLES = {
    "bpe-train-encode": {"train": "ties-first-seen", "encode": "encode-longest-match"},
    "lesson97-bpe": {"train": "ties-lexicographic", "sequence-lengths": "lengths-char-letters-only"},
    "wordpiece": {"train": "wordpiece-raw-frequency", "divergence": "divergence-zero-based"},
    "byte-bpe": {"train": "byte-whitespace-pretokenize", "decode": "byte-decode-each-token"},
    "bpe-steps": {"count": "count-pairs-once-per-word", "train": "pairs-once-per-word"},
}


@pytest.mark.parametrize("exercise_id", list(WRONG_SAMPLES))
def test_each_wrong_sample_fails_where_it_is_wrong_and_names_its_mistakes(exercise_id):
    exercise = exercise_without_efficiency(EXERCISES[exercise_id])
    report = grade_submission(sample(exercise_id, "wrong"), exercise)
    assert report.errors == []
    expected = WRONG_SAMPLES[exercise_id]
    for milestone in report.milestones:
        named = {d.id for check in milestone.checks for d in check.diagnoses}
        if milestone.id in expected:
            assert not milestone.passed and expected[milestone.id] in named, milestone.id
        else:
            assert milestone.passed, milestone.id


def test_every_exercise_has_a_correct_and_a_wrong_sample_with_its_header():
    for exercise_id in EXERCISES:
        for kind in ("correct", "wrong"):
            first_line = sample(exercise_id, kind).read_text(encoding="utf-8").splitlines()[0]
            assert first_line == f"# exercise: {exercise_id}"


@settings(max_examples=40)
@given(data=st.data())
def test_the_generated_correct_submissions_agree_with_the_reference(data):
    for exercise_id, exercise in DRIVEN.items():
        conventions = exercise.conventions
        corpus = data.draw(corpora(conventions.corpus_form))
        num_merges = data.draw(st.integers(min_value=0, max_value=8))
        if "train_byte_bpe" in exercise.roles():
            text = "".join(corpus) if isinstance(corpus, list) else " ".join(corpus)
            for role in BYTE_ROLES:
                assert byte_canonical(role, run_byte(exercise, None, role, text)) == byte_canonical(
                    role, run_byte(exercise, None, role, text, BYTE_REFERENCES[role]))
            continue
        if "train" not in exercise.roles():
            options = {"tie_break": conventions.tie_break, "end_of_word": conventions.end_of_word}
            assert canonical("train_wordpiece", run_student(
                exercise, None, "train_wordpiece", corpus, num_merges)) == train_wordpiece(
                corpus, num_merges, **options)
            assert canonical("first_divergence", run_student(
                exercise, None, "first_divergence", corpus, num_merges)) == canonical(
                "first_divergence", first_divergence(corpus, num_merges, **options))
            continue
        actual = run_student(exercise, None, "train", corpus, num_merges)
        pairs = [tuple(item[0]) if conventions.merge_form == "pairs-with-token" else tuple(item)
                 for item in actual]
        merges = train_bpe(corpus, num_merges, tie_break=conventions.tie_break,
                           end_of_word=conventions.end_of_word)
        assert pairs == merges
        word = data.draw(words)
        given_merges = to_merge_form(merges, conventions.merge_form)
        assert run_student(exercise, None, "encode", word, given_merges) == encode(
            word, merges, end_of_word=conventions.end_of_word)
        if "count_pairs" in exercise.roles():
            vocabulary = words_after(corpus, merges[:2], conventions.end_of_word)
            assert run_student(exercise, None, "count_pairs", vocabulary) == count_pairs(vocabulary)
            for pair in list(count_pairs(vocabulary))[:3]:
                assert run_student(exercise, None, "merge_pair", pair, vocabulary) == merge_words(
                    vocabulary, pair)
