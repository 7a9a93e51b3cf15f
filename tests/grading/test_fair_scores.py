"""Fair scores both ways: real work with one mistake earns what its mistake leaves intact, one
crash costs only the inputs where it happens, and code that does nothing still earns nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.grading.engine import grade_submission
from grader.report import render
from grader.spec import load_exercise
from support.audits import audit_group, audited

ROOT = Path(__file__).resolve().parents[2]
TRAIN_ENCODE = load_exercise("bpe-train-encode")
LESSON = load_exercise("lesson97-bpe")
CORRECT = (ROOT / "examples" / "bpe-train-encode" / "student_correct.py").read_text(encoding="utf-8")
LESSON_CORRECT = (ROOT / "examples" / "lesson97-bpe" / "student_correct.py").read_text(encoding="utf-8")
SMALLEST_FIRST = "best = min(pairs, key=lambda p: (-pairs[p], p))"
STOP = "        if not pairs:\n            break\n"
# Tests reading a catalogued mistake's train milestone take it from the bpe-train-encode audit
# (tests/support/audits.py), which grades the same student-style file under the same secret.
IN_TRAIN_ENCODE_AUDIT = pytest.mark.xdist_group(audit_group("bpe-train-encode"))


def grade_source(tmp_path: Path, source: str, exercise=TRAIN_ENCODE):
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    return grade_submission(path, exercise)


def milestone(report, milestone_id):
    return next(m for m in report.milestones if m.id == milestone_id)


def test_a_trainer_whose_only_mistake_is_the_tie_rule_earns_its_work(tmp_path):
    assert SMALLEST_FIRST in CORRECT
    largest = CORRECT.replace(SMALLEST_FIRST, "best = max(pairs, key=lambda p: (pairs[p], p))")
    report = grade_source(tmp_path, largest)
    train = milestone(report, "train")
    assert train.work_explained_by == "ties-reverse-lexicographic"
    # It keeps every check a tie does not decide, and loses every case a tie decides.
    assert 0 < train.score < train.max_score / 2
    assert all(c.score == c.max_score for c in train.checks if c.passed)
    assert milestone(report, "efficiency").score == milestone(report, "efficiency").max_score
    text = render(report, "text")
    assert "no points until" not in text
    assert "Likely mistake: Ties broken by the largest pair" in text


@IN_TRAIN_ENCODE_AUDIT
def test_every_tie_rule_of_the_catalogue_earns_on_train():
    report = audited("bpe-train-encode", "ties-last-seen")
    train = milestone(report, "train")
    assert train.score > 0 and train.work_explained_by is not None


def test_the_missing_stop_costs_the_crashing_inputs_only(tmp_path):
    assert STOP in LESSON_CORRECT
    report = grade_source(tmp_path, LESSON_CORRECT.replace(STOP, ""), LESSON)
    train = milestone(report, "train")
    lost = {c.id: c.max_score - c.score for c in train.checks if c.score < c.max_score}
    assert lost
    # Each check loses the share of the inputs it crashes on, and keeps the rest: the
    # differential check and each property the share of the generated inputs answered.
    differential = next(c for c in train.checks if c.id == "differential")
    assert 0 < differential.score < differential.max_score
    properties = [c for c in train.checks if c.id.startswith("property:")]
    assert all(c.passed and 0 < c.score < c.max_score for c in properties)
    assert all("earns their share" in c.message for c in properties)
    assert milestone(report, "tokenize").score == milestone(report, "tokenize").max_score
    assert train.score > 0.6 * train.max_score


def test_a_function_that_always_crashes_earns_nothing(tmp_path):
    source = CORRECT.replace("    vocab = get_vocab(corpus)\n",
                             "    raise ValueError('max() arg is an empty sequence')\n", 1)
    report = grade_source(tmp_path, source)
    train = milestone(report, "train")
    assert train.score == 0
    assert milestone(report, "efficiency").score == 0
    properties = [c for c in train.checks if c.id.startswith("property:")]
    assert properties and all(c.message.startswith("not checked:") for c in properties)


def test_crashing_wherever_the_answer_is_not_trivial_earns_nothing(tmp_path):
    # Answers [] when there is nothing to learn, crashes on everything else: every answer it
    # gives is a do-nothing answer, so neither the properties nor the differential earn.
    source = CORRECT.replace("    vocab = get_vocab(corpus)\n",
                             "    vocab = get_vocab(corpus)\n"
                             "    if any(len(s) > 1 for s in vocab):\n"
                             "        raise ValueError('not done yet')\n", 1)
    report = grade_source(tmp_path, source)
    assert milestone(report, "train").score == 0
    assert milestone(report, "efficiency").score == 0


@IN_TRAIN_ENCODE_AUDIT
@pytest.mark.parametrize("mistake_id", ["merge-first-occurrence", "unweighted-counts"])
def test_a_named_mistake_on_real_work_keeps_the_checks_it_leaves_intact(mistake_id):
    report = audited("bpe-train-encode", mistake_id)
    train = milestone(report, "train")
    assert all(c.score == c.max_score for c in train.checks if c.passed), mistake_id


HF_PICK = '''        best_pair = ""
        max_freq = None
        for pair, freq in pairs.items():
            if max_freq is None or max_freq < freq:
                best_pair, max_freq = pair, freq
        best = pick(*best_pair)
'''


def test_the_hf_courses_form_of_the_missing_stop_is_named(tmp_path):
    # The HF course picks the best pair by hand, starting from "", and unpacks it into a
    # helper: with no pair left, that is a TypeError, not max()'s ValueError.
    stopped = STOP + "        best = max(pairs, key=pairs.get)  # a tie goes to the pair met first\n"
    assert stopped in LESSON_CORRECT
    source = LESSON_CORRECT.replace(stopped, HF_PICK) + "\n\ndef pick(a, b):\n    return (a, b)\n"
    report = grade_source(tmp_path, source, LESSON)
    train = milestone(report, "train")
    differential = next(c for c in train.checks if c.id == "differential")
    assert "TypeError" in differential.message
    assert "no-pair-crash" in {d.id for d in differential.diagnoses}
    assert train.score > 0.6 * train.max_score


def test_follow_through_on_a_tokenize_that_applies_no_merge_earns_nothing(tmp_path):
    applying = "    for pair, _token in merges:\n        tokens = merge_word(tokens, tuple(pair))\n"
    assert applying in LESSON_CORRECT
    report = grade_source(tmp_path, LESSON_CORRECT.replace(applying, ""), LESSON)
    lengths = milestone(report, "sequence-lengths")
    assert lengths.passed  # right for the student's own tokenize ...
    assert lengths.score == 0  # ... which does nothing: no evidence of work
    assert milestone(report, "train").score == milestone(report, "train").max_score


def test_a_known_mistake_plus_one_quirk_keeps_a_partial_name(tmp_path):
    # The marker dropped (a catalogued mistake), and capitalised words as one unknown token
    # (a quirk no entry has): the name explains most failing inputs and says it is not all.
    lone_marker = "            return list(symbols)\n"
    assert lone_marker in CORRECT
    source = CORRECT.replace(
        lone_marker,
        "            return [s for s in symbols if s != END] if symbols[-1] == END "
        "else list(symbols)\n", 1)
    source = source.replace("def encode(word, merges):\n",
                            "def encode(word, merges):\n    if word[:1].isupper():\n"
                            "        return ['[UNK]']\n    return _encode(word, merges)\n\n\n"
                            "def _encode(word, merges):\n", 1)
    report = grade_source(tmp_path, source)
    encode = milestone(report, "encode")
    names = {d.id: d for c in encode.checks for d in c.diagnoses}
    assert set(names) == {"encode-marker-dropped"}
    assert "your code differs from it too" in names["encode-marker-dropped"].evidence
    assert encode.work_explained_by is None  # a partial name is no evidence of work


@IN_TRAIN_ENCODE_AUDIT
def test_a_pair_that_is_not_adjacent_is_said_first_and_no_tie_is_explained():
    report = audited("bpe-train-encode", "marker-glued")
    messages = [c.message for c in milestone(report, "train").checks
                if not c.passed and c.visibility == "visible" and "not an adjacent pair" in c.message]
    assert messages
    assert all("tie rule" not in message for message in messages)


def test_merges_no_entry_explains_still_get_a_structural_signal(tmp_path):
    # A glued marker plus a quirk of its own (the last merge dropped): no entry, pair of
    # entries or partial name fits, but the merges join 't</w>', a symbol the words never have.
    start = "            symbols = tuple(word) + (END,)\n"
    assert start in CORRECT
    source = CORRECT.replace(start, "            symbols = tuple(word[:-1]) + (word[-1] + END,)\n", 1)
    source = source.replace("    return merges\n",
                            "    return merges[:-1] if len(merges) > 3 else merges\n", 1)
    report = grade_source(tmp_path, source)
    diagnoses = {d.id: d for c in milestone(report, "train").checks for d in c.diagnoses}
    assert set(diagnoses) == {"signal-unknown-symbol"}
    assert "'t</w>', which is not a symbol of these words" in diagnoses[
        "signal-unknown-symbol"].message


def test_a_function_stuck_in_a_loop_leaves_the_others_their_share_of_the_time(tmp_path):
    from exercise_variants import quick

    exercise = quick(TRAIN_ENCODE, examples=6)
    exercise = exercise.model_copy(update={"limits": exercise.limits.model_copy(
        update={"call_seconds": 0.5, "total_seconds": 4.0})})
    exercise = exercise.model_copy(update={"milestones": [
        m for m in exercise.milestones if m.id != "efficiency"]})
    assert STOP in CORRECT
    looping = CORRECT.replace(STOP, "        if not pairs:\n            while True:\n"
                                    "                pass\n", 1)
    report = grade_source(tmp_path, looping, exercise)
    assert milestone(report, "encode").score == milestone(report, "encode").max_score
    train = milestone(report, "train")
    assert any("has used its share of the time budget" in c.message for c in train.checks
               if c.visibility == "visible")
