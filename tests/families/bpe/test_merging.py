"""The ``merge_pair`` role (the lessons' ``merge_vocab``): the worked examples' merges, replayed.

The deck (shared/seeds/000_…, slides 13 and 42) applies each merge to its vocabulary and shows
the rewritten words and the tokens of 'lowest' after each merge; the episode (003_…, §3.1)
builds its ten merges the same way. The reference's one merge over every word reproduces both.
"""

from __future__ import annotations

from pathlib import Path

from grader.families.bpe import merging
from grader.families.bpe.merging import MISTAKES, merge_pair
from grader.families.bpe.pair_counts import steps_of
from grader.grading.audit import write_student
from grader.grading.engine import grade_submission
from grader.grading.search import generated_examples
from grader.spec import load_exercise
from reference.plain import count_pairs, initial_segmentation

EXERCISE = load_exercise("bpe-steps")
DECK = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
EPISODE = {"low": 5, "lower": 2, "lowest": 4, "newer": 6, "wider": 3, "new": 2}
BY_ID = {m.id: m for m in MISTAKES}


def replay(corpus, pairs):
    words = initial_segmentation(corpus)
    for pair in pairs:
        best = max(count_pairs(words), key=count_pairs(words).get)  # the lessons' loop
        assert best == pair
        words = merge_pair(pair, words)
    return words


def test_the_decks_first_merge_rewrites_newest_and_widest():
    """Slide 13: "Every occurrence of adjacent e s in the corpus is replaced by es"."""
    merged = merge_pair(("e", "s"), initial_segmentation(DECK))
    assert merged == {("l", "o", "w", "</w>"): 5, ("l", "o", "w", "e", "r", "</w>"): 2,
                      ("n", "e", "w", "es", "t", "</w>"): 6, ("w", "i", "d", "es", "t", "</w>"): 3}


def test_the_decks_and_the_episodes_loops_replay_their_merges():
    deck = [("e", "s"), ("es", "t"), ("est", "</w>"), ("l", "o"), ("lo", "w"), ("n", "e")]
    assert replay(DECK, deck)[("ne", "w", "est</w>")] == 6
    episode = [("w", "e"), ("l", "o"), ("r", "</w>"), ("we", "r</w>"), ("n", "e"), ("w", "</w>"),
               ("ne", "wer</w>"), ("lo", "w</w>"), ("lo", "we"), ("lowe", "s")]
    words = replay(EPISODE, episode)
    assert words[("lowes", "t", "</w>")] == 4 and words[("lo", "wer</w>")] == 2


def test_lowest_after_each_of_the_decks_first_merges():
    """Slide 13, "After merge rule / Token sequence for 'lowest'"."""
    table = [("init", "l o w e s t </w>"), (("e", "s"), "l o w es t </w>"),
             (("es", "t"), "l o w est </w>"), (("est", "</w>"), "l o w est</w>")]
    word = {tuple("lowest") + ("</w>",): 1}
    for rule, shown in table:
        if rule != "init":
            word = merge_pair(rule, word)
        assert " ".join(next(iter(word))) == shown


def test_string_replace_merges_inside_a_longer_symbol_at_the_cases_step():
    steps = steps_of(EXERCISE, {"bc": 1, "abab": 1, "cabc": 1}, 4)
    words, pair = steps[2]
    assert pair == ("b", "c</w>") and ("c", "ab", "c</w>") in words
    assert merge_pair(pair, words)[("c", "ab", "c</w>")] == 1
    assert ("c", "abc</w>") in BY_ID["merge-pair-string-replace"].run(pair, words)


def test_overlapping_runs_merge_from_the_left():
    run = {("a", "a", "a", "</w>"): 3}
    assert merge_pair(("a", "a"), run) == {("aa", "a", "</w>"): 3}
    assert BY_ID["merge-pair-right-to-left"].run(("a", "a"), run) == {("a", "aa", "</w>"): 3}


def test_each_merge_mistake_is_caught_and_named_in_the_merge_milestone(tmp_path):
    for mistake in MISTAKES:
        path = write_student(EXERCISE, tmp_path, mistake.id)
        report = grade_submission(path, EXERCISE, seed_secret="merging")
        merge = next(m for m in report.milestones if m.id == "merge")
        named = {d.id for c in merge.checks if not c.passed for d in c.diagnoses}
        assert not merge.passed and named == {mistake.id}, (mistake.id, named)
        count = next(m for m in report.milestones if m.id == "count")
        assert count.passed, mistake.id  # a merging mistake costs nothing in counting


def test_pairs_inside_longer_symbols_are_found_adjacent_ones_first():
    words = {("ca", "b", "</w>"): 1, ("a", "b"): 2, ("a", "bc"): 1}
    traps = merging.inside_longer_symbols(words)
    assert traps[0] == ("a", "b")  # adjacent in a b, and inside ca b and a bc
    replaced = BY_ID["merge-pair-string-replace"].run(("a", "b"), words)
    assert replaced != merge_pair(("a", "b"), words)
    assert merging.inside_longer_symbols({("a", "b", "c"): 1}) == []


def test_generated_merges_often_hold_a_pair_inside_longer_symbols():
    """String replacement departs on a good share of the generated inputs (about 3% did when
    every pair was the next merge or another adjacent pair), so the generated check of the
    milestone where the mistake lives catches it, not training only."""
    wrong = BY_ID["merge-pair-string-replace"].run
    examples = generated_examples(EXERCISE, "merge_pair", 60, seed=7)
    departing = [example for example in examples
                 if wrong(*merging.pair_of(EXERCISE, example)) != merge_pair(*merging.pair_of(EXERCISE, example))]
    assert len(departing) >= 6, len(departing)


def test_string_replace_costs_the_merge_milestone_its_generated_check(tmp_path):
    path = write_student(EXERCISE, tmp_path, "merge-pair-string-replace")
    report = grade_submission(path, EXERCISE, seed_secret="merging")
    merge = next(m for m in report.milestones if m.id == "merge")
    generated = [c for c in merge.checks if c.id == "differential"]
    assert generated and not any(c.passed for c in generated)
    # train calls the student's own merge_vocab: its merges are right for that merge_vocab
    # (follow-through), so the bug costs in merge only
    train = next(m for m in report.milestones if m.id == "train")
    assert merge.score < merge.max_score and train.score == train.max_score, (
        merge.score, train.score)
    followed = next(c for c in train.checks if c.id == "differential")
    assert "where your merge_vocab differs from the reference's" in followed.message
    assert "agrees with the reference" not in followed.message


def test_a_trainers_own_bug_is_still_charged_with_correct_helpers(tmp_path):
    path = write_student(EXERCISE, tmp_path, "stale-counts")
    report = grade_submission(path, EXERCISE, seed_secret="merging")
    scores = {m.id: (m.score, m.max_score) for m in report.milestones}
    assert scores["count"][0] == scores["count"][1] and scores["merge"][0] == scores["merge"][1]
    assert scores["train"][0] < scores["train"][1], scores
