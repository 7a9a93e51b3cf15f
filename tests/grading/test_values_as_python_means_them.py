"""Correct code earns full marks in any ordinary Python type: a ``defaultdict``, a ``Counter``,
an ``OrderedDict``, a namedtuple or a ``str`` subclass is graded as its plain value, in every
family whose roles return such types; a value whose class lies about itself is refused with a
message that says so; a value the grader cannot use (``10**400`` for a float) is a shape
message, never a grader fault."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from grader.grading.engine import grade_submission
from grader.spec import load_exercise

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

EPISODE_STEPS = '''\
from collections import defaultdict


def word_to_symbols(word):
    return tuple(word) + ("</w>",)


def get_stats(vocab):
    pairs = defaultdict(int)
    for symbols, freq in vocab.items():
        for i in range(len(symbols) - 1):
            pairs[(symbols[i], symbols[i + 1])] += freq
    return pairs


def merge_vocab(pair, vocab):
    new_vocab = {}
    for symbols, freq in vocab.items():
        new_symbols, i = [], 0
        while i < len(symbols):
            if i < len(symbols) - 1 and (symbols[i], symbols[i + 1]) == pair:
                new_symbols.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                new_symbols.append(symbols[i])
                i += 1
        new_vocab[tuple(new_symbols)] = freq
    return new_vocab


def train_bpe(corpus, num_merges):
    vocab = {word_to_symbols(w): freq for w, freq in corpus.items()}
    merges = []
    for step in range(num_merges):
        pairs = get_stats(vocab)
        if not pairs:
            break
        best = max(pairs, key=pairs.get)
        vocab = merge_vocab(best, vocab)
        merges.append(best)
    return merges


def encode(word, merges):
    symbols = list(word_to_symbols(word))
    for pair in merges:
        i, new_symbols = 0, []
        while i < len(symbols):
            if i < len(symbols) - 1 and (symbols[i], symbols[i + 1]) == pair:
                new_symbols.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                new_symbols.append(symbols[i])
                i += 1
        symbols = new_symbols
    return symbols
'''
"""The explainer episode's BPE (its ``get_pair_freqs`` returns a ``defaultdict(int)``), with
the names bpe-steps asks for and the episode's training loop made a function."""

RETYPING = '''

# Each graded function below returns its plain answer in another ordinary type.
from collections import Counter as _Counter, OrderedDict as _OrderedDict
from collections import defaultdict as _defaultdict, namedtuple as _namedtuple

_Pair = _namedtuple("_Pair", "left right")


class _Token(str):
    def shout(self):
        return self.upper()


class _Ids(list):
    pass


def _retyped(name, convert):
    plain = globals()[name]

    def retyped(*args):
        return convert(plain(*args))

    globals()[name] = retyped
'''


def retyped(exercise_id: str, conversions: str, directory: Path) -> Path:
    """The exercise's correct example with each named function's answer converted."""
    source = (EXAMPLES / exercise_id / "student_correct.py").read_text(encoding="utf-8")
    path = directory / "student.py"
    path.write_text(source + RETYPING + conversions, encoding="utf-8")
    return path


def score(path: Path, exercise_id: str):
    report = grade_submission(path, load_exercise(exercise_id))
    return report.score, [(m.id, m.score) for m in report.milestones if m.score < m.max_score]


def test_the_episodes_own_bpe_steps_code_scores_full_marks(tmp_path):
    path = tmp_path / "student.py"
    path.write_text(EPISODE_STEPS, encoding="utf-8")
    assert score(path, "bpe-steps") == (100, [])


RETYPED = {
    "bpe-steps": '''
_retyped("get_stats", _Counter)
_retyped("merge_vocab", _OrderedDict)
_retyped("train_bpe", lambda merges: [_Pair(*pair) for pair in merges])
_retyped("encode", lambda tokens: [_Token(token) for token in tokens])
''',
    "lesson97-bpe": '''
_retyped("train_bpe", lambda merges: [_Pair(*pair) for pair in merges])
_retyped("tokenize", lambda tokens: [_Token(token) for token in tokens])
_retyped("sequence_lengths", lambda lengths: _OrderedDict(lengths))
_retyped("vocab_tradeoff", lambda rows: [_defaultdict(int, row) for row in rows])
''',
    "wordpiece": '''
_Divergence = _namedtuple("_Divergence", "step bpe_pair wordpiece_pair")
_retyped("train_wordpiece", lambda merges: [_Pair(*pair) for pair in merges])
_retyped("first_divergence", lambda found: found and _Divergence(
    found[0], _Pair(*found[1]), _Pair(*found[2])))
''',
    "byte-bpe": '''
_Trained = _namedtuple("_Trained", "vocab merges")
_retyped("train_bpe", lambda trained: _Trained(
    _OrderedDict(trained[0]), [_Pair(*pair) for pair in trained[1]]))
_retyped("encode", _Ids)
_retyped("decode", _Token)
''',
    "unigram-lm": '''
_retyped("segment", lambda pieces: [_Token(piece) for piece in pieces])
_retyped("em_step", lambda scores: _defaultdict(float, scores))
_retyped("prune", _OrderedDict)
''',
}


@pytest.mark.parametrize("exercise_id", sorted(RETYPED))
def test_correct_answers_in_ordinary_types_score_full_marks(exercise_id, tmp_path):
    assert score(retyped(exercise_id, RETYPED[exercise_id], tmp_path), exercise_id) == (100, [])


def test_a_dict_that_lies_about_equality_is_refused_with_the_reason(tmp_path):
    path = retyped("bpe-steps", '''
class _AlwaysEqual(dict):
    def __eq__(self, other):
        return True


_retyped("get_stats", _AlwaysEqual)
''', tmp_path)
    report = grade_submission(path, load_exercise("bpe-steps"))
    count = next(m for m in report.milestones if m.id == "count")
    assert count.score == 0 and report.score == 80
    messages = {c.message for c in count.checks if c.visibility == "visible" and not c.passed}
    assert any("it returned a _AlwaysEqual object, a dict subclass that redefines __eq__, "
               "so it is not read as a dict: return a plain dict" in m
               for m in messages), messages


HUGE = {
    "unigram-lm": ("def log_likelihood(text, pieces):",
                   "log_likelihood must return a finite float; it returned a int 1000"),
    "lesson97-bpe": ("def vocab_tradeoff(corpus, sizes, d_model):",
                     "in item 0 'avg_tokens' is a int 1000"),
}


@pytest.mark.parametrize("exercise_id", sorted(HUGE))
def test_an_int_too_large_for_a_float_is_a_shape_message_not_a_grader_fault(exercise_id,
                                                                            tmp_path):
    header, message = HUGE[exercise_id]
    source = (EXAMPLES / exercise_id / "student_correct.py").read_text(encoding="utf-8")
    assert header in source
    if exercise_id == "unigram-lm":
        body = "    return 10**400\n\n\ndef _unused(text, pieces):"
    else:
        body = ('    return [{"size": size, "avg_tokens": 10**400, "params": size * d_model}\n'
                "            for size in sizes]\n\n\ndef _unused(corpus, sizes, d_model):")
    path = tmp_path / "student.py"
    path.write_text(source.replace(header, header + "\n" + body), encoding="utf-8")
    result = CliRunner().invoke(main, ["submit", str(path), "--exercise", exercise_id],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert message in " ".join(result.output.split())
    assert "internal error" not in result.output
