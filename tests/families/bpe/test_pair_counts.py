"""The ``count_pairs`` role and the ``bpe-steps`` exercise: the lessons' worked tables, reproduced.

The lesson deck (shared/seeds/000_…, slides 13 and 42) and the episode (003_…, §3.1) build BPE
from ``get_stats``/``get_pair_freqs``, a pair counter weighted by word frequency; their
tables of pair counts and merges are reproduced here by the reference the exercise grades
with, and by the exercise's own cases. One statement of the deck is a slip (noted below); the
reference is not bent to it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader.families.bpe.pair_counts import MISTAKES, steps_of
from grader.grading.engine import grade_submission
from grader.spec import load_exercise
from reference.plain import count_pairs, initial_segmentation

ROOT = Path(__file__).resolve().parents[3]
EXERCISE = load_exercise("bpe-steps")
DECK = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
EPISODE = {"low": 5, "lower": 2, "lowest": 4, "newer": 6, "wider": 3, "new": 2}

# deck slide 13, "Character sequence / Frequency"
DECK_VOCABULARY = {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2,
                   ("n", "e", "w", "e", "s", "t", "</w>"): 6, ("w", "i", "d", "e", "s", "t", "</w>"): 3}
# deck slide 13, "Step / Pair merged / Pair freq / New symbol", and slide 42's trace
DECK_STEPS = [(("e", "s"), 9, "es"), (("es", "t"), 9, "est"), (("est", "</w>"), 9, "est</w>"),
              (("l", "o"), 7, "lo"), (("lo", "w"), 7, "low"), (("n", "e"), 6, "ne")]
# episode §3.1, "Merge k: pair (freq=…)"
EPISODE_STEPS = [(("w", "e"), 12), (("l", "o"), 11), (("r", "</w>"), 11), (("we", "r</w>"), 8),
                 (("n", "e"), 8), (("w", "</w>"), 7), (("ne", "wer</w>"), 6), (("lo", "w</w>"), 5),
                 (("lo", "we"), 4), (("lowe", "s"), 4)]


def case(case_id):
    return next(c for c in EXERCISE.cases if c.id == case_id)


def test_the_decks_vocabulary_is_the_initial_segmentation():
    assert initial_segmentation(DECK) == DECK_VOCABULARY


def test_the_decks_first_pair_counts():
    """Slide 13: "(e, s) appears in newest (x6) and widest (x3) -> freq 9. (l, o) in low and
    lower -> freq 7. (e, s) wins merge 1." Both counts hold. The slide lists (l, o) as if it
    came next, which is a slip: (s, t) and (t, </w>) are also at 9 and (w, e) is at 8; (e, s)
    wins the three-way tie at 9 because the scan meets it first."""
    pairs = count_pairs(DECK_VOCABULARY)
    assert pairs[("e", "s")] == 9 and pairs[("l", "o")] == 7
    assert pairs[("s", "t")] == pairs[("t", "</w>")] == 9 and pairs[("w", "e")] == 8
    assert max(pairs, key=pairs.get) == ("e", "s")


@pytest.mark.parametrize("corpus, table", [(DECK, [(p, n) for p, n, _ in DECK_STEPS]),
                                           (EPISODE, EPISODE_STEPS)], ids=["deck", "episode"])
def test_each_step_merges_the_tables_pair_at_the_tables_count(corpus, table):
    steps = steps_of(EXERCISE, corpus, len(table))
    assert [(pair, count_pairs(words)[pair]) for words, pair in steps] == table
    for words, pair in steps:  # the counts the step chose from: the pair is at the top
        counts = count_pairs(words)
        assert counts[pair] == max(counts.values())


def test_the_decks_new_symbols_join_the_pairs():
    assert [a + b for (a, b), _, _ in DECK_STEPS] == [symbol for _, _, symbol in DECK_STEPS]


def test_the_exercises_cases_state_the_tables():
    """grade check verifies every merge list and token list a case writes (test_spec_check)."""
    assert [tuple(pair) for pair in case("lesson-corpus").merges] == [p for p, _, _ in DECK_STEPS]
    assert [tuple(pair) for pair in case("episode-corpus").merges] == [p for p, _ in EPISODE_STEPS]
    tokens = {item.word: item.tokens for item in case("episode-corpus").encode}
    assert tokens == {"lowering": ["lowe", "r", "i", "n", "g", "</w>"],  # episode §3.1
                      "newest": ["ne", "we", "s", "t", "</w>"], "wow": ["w", "o", "w</w>"]}


def test_a_pair_twice_in_one_word_counts_twice():
    words = initial_segmentation({"banana": 2, "ban": 1})
    assert count_pairs(words)[("a", "n")] == 5
    once = next(m for m in MISTAKES if m.id == "count-pairs-once-per-word")
    assert once.run(words)[("a", "n")] == 3


def test_the_mistakes_say_what_the_lessons_code_does_instead():
    by_id = {m.id: m for m in MISTAKES}
    assert by_id["count-pairs-unweighted"].run(DECK_VOCABULARY)[("e", "s")] == 2
    across = by_id["count-pairs-across-words"].run(DECK_VOCABULARY)
    assert ("</w>", "l") in across and ("</w>", "l") not in count_pairs(DECK_VOCABULARY)


def grade(name):
    return grade_submission(ROOT / "examples" / "bpe-steps" / f"student_{name}.py", EXERCISE,
                            seed_secret="pair counts")


def test_the_lessons_code_scores_full_marks():
    report = grade("correct")
    assert report.score == report.max_score == 100, [
        (c.id, c.message) for m in report.milestones for c in m.checks if not c.passed]


def test_a_counter_that_takes_each_words_pairs_once_is_named_in_its_milestone():
    report = grade("wrong")
    count = next(m for m in report.milestones if m.id == "count")
    failing = [c for c in count.checks if not c.passed]
    assert failing and 0 < count.score < count.max_score
    visible = [c for c in failing if c.visibility == "visible"]
    assert all(d.id == "count-pairs-once-per-word" for c in visible for d in c.diagnoses)
    assert any(c.diagnoses for c in visible)
    case_check = next(c for c in visible if c.id.startswith("cases:repeated-pair"))
    assert "(a, n) counted 3, expected 5" in case_check.message
    json.dumps(report.to_json())  # every detail is JSON (pairs shown as lists)
    encode = next(m for m in report.milestones if m.id == "encode")
    assert encode.score == encode.max_score
