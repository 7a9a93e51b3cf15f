"""Student-style character-BPE submissions that each make one known mistake.

``grade audit`` and the tests grade these files through the real grading path, sandbox
included, exactly as they would grade a student: so the code is written the way a student
writes it (a dict of words, a loop of merges, small functions), never imported from
``grader.families.bpe.catalogue``. A submission is assembled from parts: a correct program for the
exercise's conventions (corpus form, tie-break rule, merge form, marker, function names),
with the part where the mistake lives replaced.

Each entry here is keyed by the id of the catalogue entry it reproduces; tests prove each
file answers exactly what that entry computes on generated inputs, and that every catalogue
entry has a file here.
"""

from __future__ import annotations

import re
from string import Template
from typing import Optional

from grader.families.bpe import merging, pair_counts, tradeoff_mistakes
from grader.families.bpe.merging import FIRST_OCCURRENCE as MERGE_FIRST_OCCURRENCE
from grader.families.bpe.merging import RIGHT_TO_LEFT as MERGE_RIGHT_TO_LEFT
from grader.families.bpe.merging import STRING_REPLACE as MERGE_BY_STRING_REPLACE
from grader.families.bpe.pair_counts import ONCE_PER_WORD as PAIRS_ONCE_PER_WORD
from grader.families.bpe.real_students import COMBINED, combined, real_code_students
from grader.families.api import Exercise, StudentMistake
from reference.tie_breaks import CONCATENATED, FIRST_SEEN, LEXICOGRAPHIC, REVERSE_LEXICOGRAPHIC

# --------------------------------------------------------------------------- correct parts

READ_WORDS = {
    "texts": '''
def read_words(corpus):
    """Each word of the texts as a tuple of symbols, with how often it occurs."""
    words = {}
    for text in corpus:
        for word in text.split():
            symbols = start_symbols(word)
            words[symbols] = words.get(symbols, 0) + 1
    return words
''',
    "word-counts": '''
def read_words(corpus):
    """Each word as a tuple of symbols, with its count."""
    words = {}
    for word, count in corpus.items():
        symbols = start_symbols(word)
        words[symbols] = words.get(symbols, 0) + count
    return words
''',
}

COUNT_PAIRS = '''
def count_pairs(words):
    pairs = {}
    for symbols, freq in words.items():
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs
'''

BEST_PAIR = {
    LEXICOGRAPHIC: '''
def best_pair(pairs):
    # most frequent; on a tie the smallest pair
    return min(pairs, key=lambda p: (-pairs[p], p))
''',
    CONCATENATED: '''
def best_pair(pairs):
    # most frequent; on a tie the pair whose joined text comes first alphabetically
    return min(pairs, key=lambda p: (-pairs[p], p[0] + p[1], p))
''',
    FIRST_SEEN: '''
def best_pair(pairs):
    return max(pairs, key=pairs.get)
''',
    REVERSE_LEXICOGRAPHIC: '''
def best_pair(pairs):
    return max(pairs, key=lambda p: (pairs[p], p))
''',
}

MERGE_WORD = '''
def merge_word(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)
'''

TRAIN_LOOP = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    for _ in range($merge_count):
        pairs = count_pairs(words)
        if not pairs:
            break
        best = best_pair(pairs)
        merges.append($record)
        new_words = {}
        for symbols, freq in words.items():
            merged = merge_word(symbols, best)
            new_words[merged] = new_words.get(merged, 0) + freq
        words = new_words
    return $returned
'''

ENCODE = '''
def $encode_name(word, merges):
    rank = {}
    for i, pair in enumerate(as_pairs(merges)):
        rank.setdefault(pair, i)
    tokens = $start
    while True:
        found = [p for p in zip(tokens, tokens[1:]) if p in rank]
        if not found:
            return $finish
        tokens = apply_merge(tokens, min(found, key=rank.get))
'''

LENGTHS = '''
def $lengths_name(sentence, merges):
    words = sentence.split()
    return {
        "char": $char,
        "bpe": $bpe,
        "word": $word,
    }
'''

CORRECT_LENGTHS = {
    "char": "sum(len(start_symbols(w)) for w in words)",
    "bpe": "sum(len($encode_name(w, merges)) for w in words)",
    "word": "len(words)",
}

SHARED_FUNCTIONS = '''
EOW = $eow


def start_symbols(word):
    return tuple(word) + (EOW,) if EOW else tuple(word)


def as_pairs(merges):
    return [$pair_of_item for item in merges]


def apply_merge(tokens, pair):
    out, i = [], 0
    while i < len(tokens):
        if i + 1 < len(tokens) and (tokens[i], tokens[i + 1]) == pair:
            out.append(tokens[i] + tokens[i + 1])
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out
'''

# --------------------------------------------------------------------------- mistaken parts

TIE_LAST_SEEN = '''
def best_pair(pairs):
    best, best_count = None, -1
    for pair, count in pairs.items():
        if count >= best_count:
            best, best_count = pair, count
    return best
'''

WITHOUT_MARKER = {
    "texts": '''
def read_words(corpus):
    words = {}
    for text in corpus:
        for word in text.split():
            symbols = tuple(word)
            words[symbols] = words.get(symbols, 0) + 1
    return words
''',
    "word-counts": '''
def read_words(corpus):
    return {tuple(word): count for word, count in corpus.items()}
''',
}


def _read_words_with(symbols_expr: str, count_expr: str = "") -> dict[str, str]:
    """read_words for both corpus forms with another way to spell a word's symbols."""
    texts_count = count_expr or "words.get(symbols, 0) + 1"
    counts_count = count_expr or "words.get(symbols, 0) + count"
    return {
        "texts": f'''
def read_words(corpus):
    words = {{}}
    for text in corpus:
        for word in text.split():
            symbols = {symbols_expr}
            words[symbols] = {texts_count}
    return words
''',
        "word-counts": f'''
def read_words(corpus):
    words = {{}}
    for word, count in corpus.items():
        symbols = {symbols_expr}
        words[symbols] = {counts_count}
    return words
''',
    }


MARKER_GLUED = _read_words_with("tuple(word[:-1]) + (word[-1] + EOW,)")
MARKER_SPLIT = _read_words_with("tuple(word + EOW)")
UNWEIGHTED = _read_words_with("start_symbols(word)", count_expr="1")

ACROSS_WORDS = {
    "texts": '''
def read_words(corpus):
    # every text as one long sequence of symbols
    words = {}
    for text in corpus:
        symbols = []
        for word in text.split():
            symbols += start_symbols(word)
        symbols = tuple(symbols)
        words[symbols] = words.get(symbols, 0) + 1
    return words
''',
    "word-counts": '''
def read_words(corpus):
    # all the words, each as often as it occurs, as one long sequence of symbols
    symbols = []
    for word, count in corpus.items():
        for _ in range(count):
            symbols += start_symbols(word)
    return {tuple(symbols): 1}
''',
}

TEXTS_NOT_SPLIT = {
    "texts": '''
def read_words(corpus):
    words = {}
    for text in corpus:
        symbols = tuple(text) + (EOW,)
        words[symbols] = words.get(symbols, 0) + 1
    return words
''',
}

TRAIN_STALE_COUNTS = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    pairs = count_pairs(words)
    merges = []
    while pairs and len(merges) < num_merges:
        best = best_pair(pairs)
        merges.append($record)
        del pairs[best]
    return merges
'''

TRAIN_MERGE_DISCARDED = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        best = best_pair(pairs)
        merges.append($record)
        new_words = {}
        for symbols, freq in words.items():
            merged = merge_word(symbols, best)
            new_words[merged] = new_words.get(merged, 0) + freq
    return merges
'''

TRAIN_REPEAT_LAST = '''
def $train_name(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    best = None
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if pairs:
            best = best_pair(pairs)
            new_words = {}
            for symbols, freq in words.items():
                merged = merge_word(symbols, best)
                new_words[merged] = new_words.get(merged, 0) + freq
            words = new_words
        if best is not None:
            merges.append($record)
    return merges
'''

ENCODE_LEFT_TO_RIGHT = '''
def $encode_name(word, merges):
    known = set(as_pairs(merges))
    tokens = list(start_symbols(word))
    while True:
        for i in range(len(tokens) - 1):
            if (tokens[i], tokens[i + 1]) in known:
                tokens = tokens[:i] + [tokens[i] + tokens[i + 1]] + tokens[i + 2:]
                break
        else:
            return tokens
'''

ENCODE_LONGEST_MATCH = '''
def $encode_name(word, merges):
    vocab = {a + b for a, b in as_pairs(merges)}
    symbols = list(start_symbols(word))
    tokens = []
    i = 0
    while i < len(symbols):
        end = len(symbols)
        while end > i + 1 and "".join(symbols[i:end]) not in vocab:
            end -= 1
        tokens.append("".join(symbols[i:end]))
        i = end
    return tokens
'''

ENCODE_FIRST_OCCURRENCE_ONLY = '''
def $encode_name(word, merges):
    tokens = list(start_symbols(word))
    for a, b in as_pairs(merges):
        for i in range(len(tokens) - 1):
            if tokens[i] == a and tokens[i + 1] == b:
                tokens = tokens[:i] + [a + b] + tokens[i + 2:]
                break
    return tokens
'''

ENCODE_REVERSE_RANK = '''
def $encode_name(word, merges):
    tokens = list(start_symbols(word))
    for pair in reversed(as_pairs(merges)):
        tokens = apply_merge(tokens, pair)
    return tokens
'''

ENCODE_MOST_FREQUENT_IN_WORD = '''
def $encode_name(word, merges):
    known = set(as_pairs(merges))
    tokens = list(start_symbols(word))
    while True:
        counts = {}
        for pair in zip(tokens, tokens[1:]):
            if pair in known:
                counts[pair] = counts.get(pair, 0) + 1
        if not counts:
            return tokens
        tokens = apply_merge(tokens, max(counts, key=counts.get))
'''

LENGTHS_OVERRIDES = {
    "char-letters-only": {"char": "sum(len(w) for w in words)"},
    "char-with-spaces": {"char": "len(sentence)"},
    "marker-never-counted": {
        "char": "sum(len(w) for w in words)",
        "bpe": "sum(len([t for t in $encode_name(w, merges) if t != EOW]) for w in words)",
    },
    "word-with-marker": {"word": "len(words) * (2 if EOW else 1)"},
    "bpe-whole-sentence": {"bpe": "len($encode_name(sentence, merges))"},
    "distinct-words": {"word": "len(set(words))"},
}


# --------------------------------------------------------------------------- the catalogue


def _texts_only(exercise: Exercise) -> bool:
    return exercise.conventions.corpus_form == "texts"


def _counts_in_the_trainer(exercise: Exercise) -> bool:
    """A trainer's pair counting is its own mistake unless the exercise asks for the counter,
    whose mistakes then stand for it."""
    return pair_counts.COUNT not in exercise.roles()


def _merges_in_the_trainer(exercise: Exercise) -> bool:
    """Likewise for merging a word: the merger's own mistakes stand for it when asked for."""
    return merging.MERGE not in exercise.roles()


def _has_marker(exercise: Exercise) -> bool:
    return bool(exercise.conventions.end_of_word)


def _splittable_marker(exercise: Exercise) -> bool:
    """Whether the marker can be split: a one-character marker split into its characters is
    the same symbol, so the marker-split mistakes cannot happen there."""
    return len(exercise.conventions.end_of_word) > 1


def _tie_rule_mistakes() -> list[StudentMistake]:
    return [
        StudentMistake(f"ties-{rule}", "train", {"best_pair": source},
                       convention={"tie_break": rule})
        for rule, source in BEST_PAIR.items()
    ]


STUDENT_MISTAKES: dict[str, StudentMistake] = {
    mistake.id: mistake
    for mistake in [
        *_tie_rule_mistakes(),
        StudentMistake("ties-last-seen", "train", {"best_pair": TIE_LAST_SEEN}),
        StudentMistake("no-end-of-word", "train", {"read_words": WITHOUT_MARKER}, applies=_has_marker),
        StudentMistake("marker-glued", "train", {"read_words": MARKER_GLUED}, applies=_has_marker),
        StudentMistake("marker-split", "train", {"read_words": MARKER_SPLIT},
                       applies=_splittable_marker),
        StudentMistake("unweighted-counts", "train", {"read_words": UNWEIGHTED}),
        StudentMistake("pairs-once-per-word", "train", {"count_pairs": PAIRS_ONCE_PER_WORD},
                       applies=_counts_in_the_trainer),
        StudentMistake("across-word-boundaries", "train", {"read_words": ACROSS_WORDS}),
        StudentMistake("raw-text", "train", {"read_words": TEXTS_NOT_SPLIT}, applies=_texts_only),
        StudentMistake("stale-counts", "train", {"train": TRAIN_STALE_COUNTS}),
        StudentMistake("merge-discarded", "train", {"train": TRAIN_MERGE_DISCARDED}),
        StudentMistake("overlap-right-to-left", "train", {"merge_word": MERGE_RIGHT_TO_LEFT},
                       applies=_merges_in_the_trainer),
        StudentMistake("merge-by-string-replace", "train", {"merge_word": MERGE_BY_STRING_REPLACE},
                       applies=_merges_in_the_trainer),
        StudentMistake("merge-first-occurrence", "train", {"merge_word": MERGE_FIRST_OCCURRENCE},
                       applies=_merges_in_the_trainer),
        StudentMistake("one-merge-too-many", "train", settings={"merge_count": "num_merges + 1"}),
        StudentMistake("one-merge-too-few", "train", settings={"merge_count": "num_merges - 1"}),
        StudentMistake("no-stop-when-done", "train", {"train": TRAIN_REPEAT_LAST}),
        StudentMistake("merges-sorted", "train", settings={"returned": "sorted(merges)"}),
        StudentMistake("encode-left-to-right", "encode", {"encode": ENCODE_LEFT_TO_RIGHT}),
        StudentMistake("encode-longest-match", "encode", {"encode": ENCODE_LONGEST_MATCH}),
        StudentMistake("encode-first-occurrence-only", "encode", {"encode": ENCODE_FIRST_OCCURRENCE_ONLY}),
        StudentMistake("encode-reverse-rank", "encode", {"encode": ENCODE_REVERSE_RANK}),
        StudentMistake("encode-most-frequent", "encode", {"encode": ENCODE_MOST_FREQUENT_IN_WORD}),
        StudentMistake("encode-no-end-of-word", "encode",
                       settings={"start": "list(word)"}, applies=_has_marker),
        StudentMistake("encode-marker-after-merging", "encode",
                       settings={"start": "list(word)", "finish": "tokens + [EOW]"}, applies=_has_marker),
        StudentMistake("encode-marker-dropped", "encode",
                       settings={"finish": "[t for t in tokens if t != EOW]"}, applies=_has_marker),
        StudentMistake("encode-marker-glued", "encode",
                       settings={"start": "list(word[:-1]) + [word[-1:] + EOW]"}, applies=_has_marker),
        StudentMistake("encode-marker-split", "encode",
                       settings={"start": "list(word + EOW)"}, applies=_splittable_marker),
        *[
            StudentMistake(f"lengths-{name}", "sequence_lengths", settings=dict(overrides))
            for name, overrides in LENGTHS_OVERRIDES.items()
        ],
    ]
}


# --------------------------------------------------------------------------- assembling


def applicable_mistakes(exercise: Exercise) -> list[StudentMistake]:
    """The mistakes a student of ``exercise`` can make: its roles, its conventions, and every
    tie-break rule but its own."""
    roles = exercise.roles()
    return [
        mistake
        for mistake in STUDENT_MISTAKES.values()
        if mistake.role in roles
        and mistake.convention.get("tie_break") != exercise.conventions.tie_break
        and mistake.applies(exercise)
    ]


def student_source(exercise: Exercise, mistake_id: Optional[str] = None) -> str:
    """The source of a submission to ``exercise``: correct, or with mistake ``mistake_id``."""
    mistake = student_mistake(mistake_id) if mistake_id is not None else None
    if mistake is not None and not mistake.applies(exercise):
        raise ValueError(f"mistake {mistake_id!r} cannot happen under the conventions of {exercise.id!r}")
    parts = _correct_parts(exercise)
    if mistake is not None:
        for part, source in mistake.parts.items():
            parts[part] = _for_form(source, exercise)
    settings = _settings(exercise, mistake)
    roles = exercise.roles()
    body = [SHARED_FUNCTIONS, parts["read_words"], parts["count_pairs"], parts["best_pair"], parts["merge_word"]]
    if merging.MERGE in roles:
        body.append(merging.MERGE_PAIR)
    if "train" in roles:
        body.append(parts["train"])
    if "encode" in roles:
        body.append(parts["encode"])
    if "sequence_lengths" in roles:
        body.append(parts["lengths"])
    if tradeoff_mistakes.TRADEOFF in roles:
        body.append(tradeoff_mistakes.TRADEOFF_FUNCTION)
    what = f"known mistake {mistake_id}" if mistake_id else "no known mistake (a correct submission)"
    header = f'# exercise: {exercise.id}\n"""A student-style submission with {what}."""\n'
    source = Template("\n".join(body)).substitute(settings).replace("\n\n\n\n", "\n\n\n")
    return header + _named_as_asked(source, exercise)


def _named_as_asked(source: str, exercise: Exercise) -> str:
    """The program's helpers renamed to the functions the exercise asks for, where it asks
    for them (``count_pairs`` as the lessons' ``get_stats``, say)."""
    roles = exercise.roles()
    if pair_counts.COUNT in roles:
        source = re.sub(r"\bcount_pairs\(", f"{roles[pair_counts.COUNT].name}(", source)
    return source


def _correct_parts(exercise: Exercise) -> dict[str, str]:
    return {
        "read_words": READ_WORDS[exercise.conventions.corpus_form],
        "count_pairs": COUNT_PAIRS,
        "best_pair": BEST_PAIR[exercise.conventions.tie_break],
        "merge_word": MERGE_WORD,
        "train": TRAIN_LOOP,
        "encode": ENCODE,
        "lengths": LENGTHS,
    }


def _for_form(source: object, exercise: Exercise) -> str:
    if isinstance(source, dict):
        return source[exercise.conventions.corpus_form]
    return str(source)


def _settings(exercise: Exercise, mistake: Optional[StudentMistake]) -> dict[str, str]:
    with_token = exercise.conventions.merge_form == "pairs-with-token"
    functions = exercise.roles()
    settings = {
        "eow": repr(exercise.conventions.end_of_word),
        "train_name": functions["train"].name if "train" in functions else "train_bpe",
        "encode_name": functions["encode"].name if "encode" in functions else "encode",
        "lengths_name": (functions["sequence_lengths"].name if "sequence_lengths" in functions
                         else "sequence_lengths"),
        "merge_name": functions[merging.MERGE].name if merging.MERGE in functions else "merge_pair",
        "record": "(best, best[0] + best[1])" if with_token else "best",
        "pair_of_item": "tuple(item[0])" if with_token else "tuple(item)",
        "merge_count": "num_merges",
        "returned": "merges",
        "start": "list(start_symbols(word))",
        "finish": "tokens",
        **CORRECT_LENGTHS,
        **tradeoff_mistakes.settings(exercise),
    }
    if mistake is not None:
        settings.update(mistake.settings)
    # Length expressions name the encode function; substitute it inside them first.
    for key in CORRECT_LENGTHS:
        settings[key] = Template(settings[key]).substitute(settings)
    return settings


STUDENT_MISTAKES.update({mistake.id: mistake for mistake in real_code_students()})
STUDENT_MISTAKES.update({mistake.id: mistake for mistake in pair_counts.STUDENTS})
STUDENT_MISTAKES.update({mistake.id: mistake for mistake in merging.STUDENTS})
STUDENT_MISTAKES.update({mistake.id: mistake for mistake in tradeoff_mistakes.STUDENTS})


def student_mistake(mistake_id: str) -> StudentMistake:
    """The student-style entry for ``mistake_id``; ``first+second`` is the two combined."""
    first, plus, second = mistake_id.partition("+")
    if plus:
        return combined(STUDENT_MISTAKES[first], STUDENT_MISTAKES[second])
    return STUDENT_MISTAKES[mistake_id]


def combined_mistakes(exercise: Exercise) -> list[StudentMistake]:
    """The combinations of published code a student of ``exercise`` can make."""
    roles = exercise.roles()
    rule = exercise.conventions.tie_break
    found = []
    for first_id, second_id in COMBINED:
        mistake = student_mistake(f"{first_id}+{second_id}")
        if (mistake.role in roles and mistake.convention.get("tie_break") != rule
                and mistake.applies(exercise)):
            found.append(mistake)
    return found
