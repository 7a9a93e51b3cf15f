"""The generated inputs of the differential and property checks: deterministic, in range,
in the exercise's corpus form, and shaped so that mistakes show."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.families.bpe import generated as generated_inputs
from grader.families.bpe.generated import fold_letters, word_pieces
from grader.grading import search
from grader.grading.engine import grade_submission
from grader.grading.search import generated_examples
from grader.spec import load_exercise

SUBMISSIONS = Path(__file__).parents[2] / "submissions"


def test_folding_letters_keeps_the_shape_and_adds_up_counts():
    assert fold_letters("abc cab", "abc", 1) == "aaa aaa"
    assert fold_letters(["abc", "b c"], "abc", 2) == ["aba", "b a"]
    assert fold_letters({"ab": 2, "aa": 3, "c": 1}, "abc", 1) == {"aa": 5, "a": 1}
    assert fold_letters({"ab": 2}, "abc", 3) == {"ab": 2}


def test_word_pieces_are_every_substring_shortest_first():
    assert word_pieces(["ab a"]) == ["a", "b", "ab"]
    assert word_pieces({"aba": 1}) == ["a", "b", "ab", "ba", "aba"]
    assert word_pieces([]) == []


@pytest.mark.parametrize("exercise_id, form", [("bpe-train-encode", list), ("lesson97-bpe", dict)])
def test_generated_inputs_follow_the_exercise_settings(exercise_id, form):
    exercise = load_exercise(exercise_id)
    props = exercise.properties
    train = generated_examples(exercise, "train", props.examples)
    assert len(train) == props.examples
    # the alphabet, and what decorations and the targeted inputs add to it
    letters = set(props.alphabet) | set(props.alphabet.upper()) | set(".,7é()")
    for corpus, num_merges in train:
        assert isinstance(corpus, form)
        assert 0 <= num_merges <= props.max_merges
        words = list(corpus) if form is dict else [w for text in corpus for w in text.split()]
        assert all(set(word) <= letters and 0 < len(word) <= props.max_word_length + 1
                   for word in words)
    encode = generated_examples(exercise, "encode", props.examples)
    assert all(isinstance(word, str) and set(word) <= letters for _, _, word in encode)


@pytest.mark.parametrize("exercise_id", ["bpe-train-encode", "lesson97-bpe"])
def test_generated_words_are_more_than_lowercase_letters(exercise_id):
    exercise = load_exercise(exercise_id)
    for role in ("train", "encode"):
        examples = generated_examples(exercise, role, exercise.properties.examples)
        text = repr(examples)
        for kind, present in {
            "capital": any(ch.isupper() for ch in text),
            "punctuation": "." in text or "," in text,
            "digit": "7" in text,
            "non-ASCII": "é" in text,
        }.items():
            assert present, (role, kind)
    words = [word for _, _, word in generated_examples(exercise, "encode", 60)]
    assert any(word[-1] in ".,)" for word in words) and any(word[0].isupper() for word in words)


def test_decorating_changes_every_other_word_and_adds_up_counts():
    assert generated_inputs.decorate("ab ab", 0) == "Ab ab"
    assert generated_inputs.decorate({"ab": 1, "b": 2, "Ab": 3}, 0) == {"Ab": 4, "b": 2}
    assert generated_inputs.decorate(["ab"], len(generated_inputs.DECORATIONS)) == ["ab"]


def test_targeted_inputs_separate_rank_order_from_longest_and_leftmost_tokens():
    from grader.families.bpe.catalogue import mistake_by_id
    from reference import encode

    exercise = load_exercise("bpe-train-encode")
    targeted = generated_inputs.targeted_examples(exercise, "encode")
    for mistake_id in ("encode-longest-anywhere", "encode-longest-match", "encode-left-to-right",
                       "encode-lowercased", "encode-stripped"):
        run = mistake_by_id(mistake_id).run
        assert any(
            run(word, merges) != encode(word, merges)
            for corpus, k, word in targeted
            for merges in [generated_inputs.reference_merges(exercise, corpus, k)]
        ), mistake_id
    generated = generated_examples(exercise, "encode", exercise.properties.examples)
    assert generated[search.TARGETED_AT] == targeted[0]


def test_generation_is_deterministic_and_independent_of_earlier_runs():
    exercise = load_exercise("bpe-train-encode")
    first = generated_examples(exercise, "encode", 30)
    search._GENERATED.clear()  # generate again from scratch
    assert generated_examples(exercise, "encode", 30) == first


def test_generated_inputs_make_ties_and_repeats_common():
    exercise = load_exercise("bpe-train-encode")
    train = generated_examples(exercise, "train", exercise.properties.examples)
    one_letter = [corpus for corpus, _ in train if corpus and len(set("".join(corpus)) - {" "}) == 1]
    assert len(one_letter) >= 5  # runs like "aaa" that overlapping merges trip over
    encode = generated_examples(exercise, "encode", exercise.properties.examples)
    from_corpus = [word for corpus, _, word in encode if glued_from(word, set(word_pieces(corpus)), 3)]
    assert len(from_corpus) >= len(encode) // 2  # mostly pieces of the corpus, alone or glued


def glued_from(word: str, pieces: set[str], parts: int) -> bool:
    """Whether ``word`` is at most ``parts`` of ``pieces`` written one after the other."""
    if word in pieces:
        return True
    return parts > 1 and any(
        word[:cut] in pieces and glued_from(word[cut:], pieces, parts - 1) for cut in range(1, len(word))
    )


def test_a_sequence_lengths_mistake_fails_its_milestone_only_and_is_named():
    exercise = load_exercise("lesson97-bpe")
    properties = exercise.properties.model_copy(update={"examples": 12})
    exercise = exercise.model_copy(update={"properties": properties})
    report = grade_submission(SUBMISSIONS / "lesson97_wrong_char.py", exercise)
    scores = {m.id: (m.score, m.max_score) for m in report.milestones}
    assert scores["train"] == (35, 35) and scores["tokenize"] == (30, 30)
    lengths = next(m for m in report.milestones if m.id == "sequence-lengths")
    case = next(c for c in lengths.checks if c.id == "cases:deck-full-solution")
    assert "char is 44 (expected 50)" in case.message
    assert [d.id for d in case.diagnoses][:1] == ["lengths-char-letters-only"]
    ordered = next(c for c in lengths.checks if c.id == "property:ordered")
    assert not ordered.passed and "char >= bpe >= word" in ordered.message
    assert any(d.id == "lengths-char-letters-only" for d in ordered.diagnoses)


def test_the_search_for_a_smaller_failure_stops_when_its_evaluations_are_spent(monkeypatch):
    exercise = load_exercise("bpe-train-encode")
    monkeypatch.setattr(search, "SHRINK_EVALUATIONS", 3)
    judged: list[object] = []

    def judge(example):  # every input fails: Hypothesis would shrink on and on
        judged.append(example)
        return search.Failure(example, answer=_wrong_answer())

    failure = search.smallest_failure(exercise, "train", judge)
    kept = search.FAILURES_KEPT
    assert kept < len(judged) <= kept + 1 + 3, "judged: the first failures, then 1 + 3 more"
    searched = judged[kept:]
    shortest = min(searched, key=lambda example: (len(repr(example)), repr(example)))
    assert failure is not None and repr(failure.example) == repr(shortest)


def _wrong_answer():
    from grader.spec.hooks import StudentAnswer

    return StudentAnswer(value=[("x", "y")])
