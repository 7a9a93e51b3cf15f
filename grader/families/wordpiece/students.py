"""Student-style WordPiece submissions, correct or making one known WordPiece mistake.

The counterpart of :mod:`grader.families.bpe.students` for exercises whose functions are
``train_wordpiece`` and ``first_divergence``: a plain program as a student writes it (a dict of
words, a loop of merges, exact scores with ``fractions.Fraction``), with the part where a
mistake of :mod:`grader.families.wordpiece.mistakes` lives replaced. ``grade audit`` grades these files
through the real grading path; the tests check each answers what its catalogue entry computes.
"""

from __future__ import annotations

from string import Template
from typing import Optional

from grader.families.bpe.students import BEST_PAIR, COUNT_PAIRS, MERGE_WORD, READ_WORDS
from grader.families.api import Exercise, StudentMistake

SHARED = '''
from fractions import Fraction

EOW = $eow


def start_symbols(word):
    return tuple(word) + (EOW,) if EOW else tuple(word)


def count_symbols(words):
    symbols = {}
    for word, freq in words.items():
        for symbol in word:
            symbols[symbol] = symbols.get(symbol, 0) + freq
    return symbols
'''

SCORES = {
    "exact": '''
def scores_of(words, pairs):
    symbols = count_symbols(words)
    return {p: Fraction(c, symbols[p[0]] * symbols[p[1]]) for p, c in pairs.items()}
''',
    "raw": '''
def scores_of(words, pairs):
    return dict(pairs)
''',
    "unweighted": '''
def scores_of(words, pairs):
    symbols = {}
    for word in words:
        for symbol in word:
            symbols[symbol] = symbols.get(symbol, 0) + 1
    return {p: Fraction(c, symbols[p[0]] * symbols[p[1]]) for p, c in pairs.items()}
''',
    "by_sum": '''
def scores_of(words, pairs):
    symbols = count_symbols(words)
    return {p: Fraction(c, symbols[p[0]] + symbols[p[1]]) for p, c in pairs.items()}
''',
    "per_pair": '''
def scores_of(words, pairs):
    symbols = {}
    for word, freq in words.items():
        for a, b in zip(word, word[1:]):
            symbols[a] = symbols.get(a, 0) + freq
            symbols[b] = symbols.get(b, 0) + freq
    return {p: Fraction(c, symbols[p[0]] * symbols[p[1]]) for p, c in pairs.items()}
''',
    "rounded": '''
def scores_of(words, pairs):
    symbols = count_symbols(words)
    return {p: round(c / (symbols[p[0]] * symbols[p[1]]), 3) for p, c in pairs.items()}
''',
}

MERGE_ALL = '''
def merge_all(words, pair):
    new_words = {}
    for symbols, freq in words.items():
        merged = merge_word(symbols, pair)
        new_words[merged] = new_words.get(merged, 0) + freq
    return new_words
'''

TRAIN = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        best = best_pair(scores_of(words, pairs))
        merges.append(best)
        words = merge_all(words, best)
    return merges
'''

TRAIN_NO_PAIR_CHECK = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        best = best_pair(scores_of(words, pairs))
        merges.append(best)
        words = merge_all(words, best)
    return merges
'''

TRAIN_HF_COURSE = '''
def $train_name(corpus, num_merges):
    word_freqs = {}
    for word, freq in read_words(corpus).items():
        plain = "".join(word)
        if EOW and plain.endswith(EOW):
            plain = plain[: -len(EOW)]
        word_freqs[plain] = word_freqs.get(plain, 0) + freq
    splits = {w: [c if i == 0 else "##" + c for i, c in enumerate(w)] for w in word_freqs}
    merges = []
    for _ in range(num_merges):
        letter_freqs, pair_freqs = {}, {}
        for word, freq in word_freqs.items():
            split = splits[word]
            for i, symbol in enumerate(split):
                letter_freqs[symbol] = letter_freqs.get(symbol, 0) + freq
                if i + 1 < len(split):
                    pair = (split[i], split[i + 1])
                    pair_freqs[pair] = pair_freqs.get(pair, 0) + freq
        if not pair_freqs:
            break
        best, max_score = None, None
        for pair, freq in pair_freqs.items():
            score = freq / (letter_freqs[pair[0]] * letter_freqs[pair[1]])
            if max_score is None or max_score < score:
                best, max_score = pair, score
        merges.append(best)
        a, b = best
        new_token = a + b[2:] if b.startswith("##") else a + b
        for word in word_freqs:
            split = splits[word]
            i = 0
            while i < len(split) - 1:
                if split[i] == a and split[i + 1] == b:
                    split = split[:i] + [new_token] + split[i + 2:]
                else:
                    i += 1
            splits[word] = split
    return merges
'''
"""A port of the Hugging Face course's loop: ``##`` pieces, float scores, the first pair
scored strictly highest kept."""

DIVERGENCE = '''
def $divergence_name(corpus, num_merges):
    words = read_words(corpus)
    for step in range(1, num_merges + 1):
        pairs = count_pairs(words)
        if not pairs:
            return None
        bpe = best_pair(pairs)
        wordpiece = best_pair($divergence_scores(words, pairs))
        if bpe != wordpiece:
            return $returned
        words = merge_all(words, bpe)
    return None
'''

PIECES = '''
def pieces_of(word):
    return tuple(c if i == 0 else "##" + c for i, c in enumerate(word))


def merge_pieces(symbols, pair):
    a, b = pair
    joined = a + (b[2:] if b.startswith("##") else b)
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(joined)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
'''
"""The HF course's pieces: a word's first character, then ``##`` ones; a merge drops the
right side's ``##``."""

CONTINUATION = PIECES + '''

start_symbols = pieces_of
merge_word = merge_pieces
'''
"""Both functions on the HF course's pieces: these replace the shared definitions."""

DIVERGENCE_CONTINUATION = PIECES + '''

def $divergence_name(corpus, num_merges):
    words = {}
    for word, freq in read_words(corpus).items():
        plain = "".join(word)
        if EOW and plain.endswith(EOW):
            plain = plain[: -len(EOW)]
        pieces = pieces_of(plain)
        words[pieces] = words.get(pieces, 0) + freq
    for step in range(1, num_merges + 1):
        pairs = count_pairs(words)
        if not pairs:
            return None
        bpe = best_pair(pairs)
        wordpiece = best_pair(scores_of(words, pairs))
        if bpe != wordpiece:
            return (step, bpe, wordpiece)
        new_words = {}
        for symbols, freq in words.items():
            merged = merge_pieces(symbols, bpe)
            new_words[merged] = new_words.get(merged, 0) + freq
        words = new_words
    return None
'''
"""A divergence on the HF course's pieces, beside a trainer on the exercise's own."""

OTHER_SCORES = {
    "pair_counted_scores": SCORES["per_pair"].replace("def scores_of", "def pair_counted_scores"),
}
"""Wrong scores a ``first_divergence`` can use beside a right trainer."""

STUDENT_MISTAKES: dict[str, StudentMistake] = {
    mistake.id: mistake
    for mistake in (
        StudentMistake("wordpiece-raw-frequency", "train_wordpiece", {"scores": SCORES["raw"]}),
        StudentMistake("wordpiece-unweighted-symbols", "train_wordpiece",
                       {"scores": SCORES["unweighted"]}),
        StudentMistake("wordpiece-rounded-scores", "train_wordpiece", {"scores": SCORES["rounded"]}),
        StudentMistake("wordpiece-continuation-prefix", "train_wordpiece",
                       {"pieces": CONTINUATION}),
        StudentMistake("divergence-continuation-prefix", "first_divergence",
                       {"divergence": DIVERGENCE_CONTINUATION}),
        StudentMistake("wordpiece-hf-course", "train_wordpiece", {"train": TRAIN_HF_COURSE},
                       published=True),
        StudentMistake("wordpiece-score-by-sum", "train_wordpiece", {"scores": SCORES["by_sum"]},
                       published=True),
        StudentMistake("wordpiece-symbols-counted-per-pair", "train_wordpiece",
                       {"scores": SCORES["per_pair"]}, published=True),
        StudentMistake("wordpiece-no-pair-crash", "train_wordpiece", {"train": TRAIN_NO_PAIR_CHECK},
                       published=True),
        StudentMistake("divergence-zero-based", "first_divergence",
                       settings={"returned": "(step - 1, bpe, wordpiece)"}),
        StudentMistake("divergence-pairs-swapped", "first_divergence",
                       settings={"returned": "(step, wordpiece, bpe)"}),
        StudentMistake("divergence-raw-frequency", "first_divergence",
                       settings={"divergence_scores": "raw_scores"}),
        StudentMistake("divergence-symbols-counted-per-pair", "first_divergence",
                       {"other_scores": OTHER_SCORES["pair_counted_scores"]},
                       settings={"divergence_scores": "pair_counted_scores"}),
    )
}

RAW_SCORES = '''
def raw_scores(words, pairs):
    return dict(pairs)
'''




def applicable_mistakes(exercise: Exercise) -> list[StudentMistake]:
    roles = exercise.roles()
    return [mistake for mistake in STUDENT_MISTAKES.values() if mistake.role in roles]


def student_source(exercise: Exercise, mistake_id: Optional[str] = None) -> str:
    """The source of a WordPiece submission: correct, or with mistake ``mistake_id``."""
    mistake = STUDENT_MISTAKES[mistake_id] if mistake_id is not None else None
    parts = {"scores": SCORES["exact"], "pieces": "", "divergence": DIVERGENCE, "train": TRAIN,
             "other_scores": ""}
    if mistake is not None:
        parts.update({key: str(value) for key, value in mistake.parts.items()})
    functions = exercise.roles()
    settings = {
        "eow": repr(exercise.conventions.end_of_word),
        "train_name": (functions["train_wordpiece"].name if "train_wordpiece" in functions
                       else "train_wordpiece"),
        "divergence_name": (functions["first_divergence"].name if "first_divergence" in functions
                            else "first_divergence"),
        "returned": "(step, bpe, wordpiece)",
        "divergence_scores": "scores_of",
    }
    if mistake is not None:
        settings.update(mistake.settings)
    body = [SHARED, READ_WORDS[exercise.conventions.corpus_form], COUNT_PAIRS,
            BEST_PAIR[exercise.conventions.tie_break], MERGE_WORD, MERGE_ALL, parts["scores"],
            RAW_SCORES, parts["other_scores"], parts["pieces"]]
    if "train_wordpiece" in functions:
        body.append(parts["train"])
    if "first_divergence" in functions:
        body.append(parts["divergence"])
    what = f"known mistake {mistake_id}" if mistake_id else "no known mistake (a correct submission)"
    header = f'# exercise: {exercise.id}\n"""A student-style submission with {what}."""\n'
    return header + Template("\n".join(body)).substitute(settings)
