"""Student-style byte-level BPE submissions, correct or making one known byte-level mistake.

The counterpart of :mod:`grader.families.bpe.students` for the byte-level roles: a plain program
as a student of CS336's assignment writes it (a dict of pre-token byte tuples, a loop of
merges that recounts every pair), with the part where a mistake of
:mod:`grader.families.byte_level.mistakes` lives replaced. It imports ``regex`` for GPT-2's pattern
and falls back to an ``re`` spelling of it where ``regex`` cannot be imported (the sandbox
shows student code only the standard library); the two agree except on numerals outside
Unicode's decimal digits (``²``, ``½``), which the exercise's texts avoid.
"""

from __future__ import annotations

from string import Template
from typing import Optional

from grader.families.byte_level.real_students import REAL_CODE_STUDENTS
from grader.families.api import Exercise, StudentMistake

PROGRAM = r'''
import re

try:
    import regex
    PAT = regex.compile(r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
except ImportError:
    PAT = re.compile(r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")


def split_specials(text, special_tokens):
    """Ordinary chunks at even indexes, special tokens at odd ones."""
    if not special_tokens:
        return [text]
    longest_first = sorted(special_tokens, key=len, reverse=True)
    return re.split("(" + "|".join(re.escape(t) for t in longest_first) + ")", text)
$definitions

def pretokens(text, special_tokens):
    return $pretokens


def best_pair(counts):
    return $best


def merge_word(word, pair):
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def $train_name(text, vocab_size, special_tokens):
    vocab = {}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    for value in range(256):
        vocab[len(vocab)] = bytes([value])
    words = {}
    for piece in pretokens(text, special_tokens):
        key = tuple(bytes([b]) for b in $piece_bytes)
        words[key] = words.get(key, 0) + 1
    merges = []
    counts = {}
    while len(vocab) < vocab_size:
        $recount
        for word, freq in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + freq
        $no_pair
        best = best_pair(counts)$drop
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        merged = {}
        for word, freq in words.items():
            new = merge_word(word, best)
            merged[new] = merged.get(new, 0) + freq
        words = merged
    return $returned


def $encode_name(text, vocab, merges, special_tokens):
    ids_of = {token: i for i, token in vocab.items()}
    rank = {}
    for i, pair in enumerate(merges):
        rank.setdefault(tuple(pair), i)
    ids = []
    for index, part in enumerate(split_specials(text, $encode_specials)):
        if index % 2:
            ids.append(ids_of[part.encode("utf-8")])
            continue
        for piece in PAT.findall(part):
            word = tuple(bytes([b]) for b in piece.encode("utf-8"))
            while len(word) > 1:
                known = [rank[p] for p in zip(word, word[1:]) if p in rank]
                if not known:
                    break
                word = merge_word(word, tuple(merges[min(known)]))
            ids.extend(ids_of[token] for token in word)
    return ids


def $iterable_name(lines, vocab, merges, special_tokens):
    pending = ""
    for line in lines:
        pending += line
        # A run of spaces and newlines, or a word, can go on in the next line: keep the last
        # run of whitespace and what follows it until then, and encode what comes before.
        last = re.search(r"\s+\S*\Z", pending)
        cut = last.start() if last else 0
        if cut:
            yield from $encode_name(pending[:cut], vocab, merges, special_tokens)
            pending = pending[cut:]
    if pending:
        yield from $encode_name(pending, vocab, merges, special_tokens)


def $decode_name(ids, vocab):
    return $decoded
$override'''

CORRECT = {
    "pretokens": "[p for chunk in split_specials(text, special_tokens)[::2] for p in PAT.findall(chunk)]",
    "best": "max(counts, key=lambda p: (counts[p], p))",
    "returned": "vocab, merges",
    "encode_specials": "special_tokens",
    "decoded": 'b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")',
    "definitions": "",
    "recount": "counts = {}",
    "no_pair": "if not counts:\n            break",
    "drop": "",
    "piece_bytes": 'piece.encode("utf-8")',
    "override": "",
}

STUDENT_MISTAKES: dict[str, StudentMistake] = {
    mistake.id: mistake
    for mistake in (
        StudentMistake("byte-whitespace-pretokenize", "train_byte_bpe", settings={
            "pretokens": "[w for chunk in split_specials(text, special_tokens)[::2] for w in chunk.split()]"}),
        StudentMistake("byte-2024-specials-not-split", "train_byte_bpe",
                       settings={"pretokens": "PAT.findall(text)"}),
        StudentMistake("byte-ties-smaller", "train_byte_bpe",
                       settings={"best": "min(counts, key=lambda p: (-counts[p], p))"}),
        StudentMistake("byte-str-tokens", "train_byte_bpe", settings={
            "returned": ('{i: t.decode("latin-1") for i, t in vocab.items()}, '
                         '[(a.decode("latin-1"), b.decode("latin-1")) for a, b in merges]')}),
        StudentMistake("byte-encode-specials-as-text", "encode_byte_bpe",
                       settings={"encode_specials": "[]"}),
        StudentMistake("byte-decode-each-token", "decode_byte_bpe", settings={
            "decoded": '"".join(vocab[i].decode("utf-8", errors="replace") for i in ids)'}),
    ) + REAL_CODE_STUDENTS
}


def applicable_mistakes(exercise: Exercise) -> list[StudentMistake]:
    roles = exercise.roles()
    return [mistake for mistake in STUDENT_MISTAKES.values() if mistake.role in roles]


def student_source(exercise: Exercise, mistake_id: Optional[str] = None) -> str:
    """The source of a byte-level submission: correct, or with mistake ``mistake_id``."""
    settings = dict(CORRECT)
    if mistake_id is not None:
        settings.update(STUDENT_MISTAKES[mistake_id].settings)
    functions = exercise.roles()
    for key, role, default in (("train_name", "train_byte_bpe", "train_bpe"),
                               ("encode_name", "encode_byte_bpe", "encode"),
                               ("decode_name", "decode_byte_bpe", "decode"),
                               ("iterable_name", "encode_iterable_byte_bpe", "encode_iterable")):
        settings[key] = functions[role].name if role in functions else default
    settings["override"] = settings["override"].replace(
        "TRAIN_NAME", settings["train_name"]).replace("ENCODE_NAME", settings["encode_name"])
    what = f"known mistake {mistake_id}" if mistake_id else "no known mistake (a correct submission)"
    header = f'# exercise: {exercise.id}\n"""A student-style submission with {what}."""\n'
    return header + Template(PROGRAM).substitute(settings)
