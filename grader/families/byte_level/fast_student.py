"""The correct byte-level submission ``grade audit`` grades: a CS336-grade fast trainer.

The audit's correct submission must score full marks, efficiency included, and the
efficiency check allows about 4x the reference's time, as CS336's speed test does; the
student-style program the mistakes are written into (:mod:`.students`) recounts every pair
after each merge, which is several times slower than that. So the correct submission is this
program: pre-tokens counted once with their frequency, pair counts updated incrementally
through an index from each pair to the pre-tokens holding it. ``examples/byte-bpe/
student_correct.py`` is its rendering for the ``byte-bpe`` exercise (a test keeps them equal).
"""

from __future__ import annotations

from string import Template
from typing import Optional

from grader.families.byte_level import students
from grader.families.api import Exercise

PROGRAM = r'''"""Byte-level BPE in CS336's conventions: a correct solution, fast as CS336 asks.

Training counts each distinct pre-token once, with its frequency, and keeps the pair counts
up to date across merges: an index from each pair to the pre-tokens holding it means a merge
only revisits those pre-tokens, instead of recounting every pair of the text.

GPT-2's pattern needs the regex module, which the exercise allows; where it cannot be
imported (running the file elsewhere), the same pattern written for re (equal except on
numerals such as '²' that are not decimal digits).
"""

import re
from collections import Counter, defaultdict

try:
    import regex
    PAT = regex.compile(r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
except ImportError:
    PAT = re.compile(r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?(?:[^\s\w]|_)+|\s+(?!\S)|\s+""")

BYTES = [bytes([value]) for value in range(256)]


def split_specials(text, special_tokens):
    """Ordinary chunks at even indexes, special tokens at odd ones."""
    if not special_tokens:
        return [text]
    longest_first = sorted(special_tokens, key=len, reverse=True)
    return re.split("(" + "|".join(re.escape(t) for t in longest_first) + ")", text)


def pretoken_counts(text, special_tokens):
    """Each distinct pre-token of the text and how often it occurs."""
    counts = Counter()
    for chunk in split_specials(text, special_tokens)[::2]:
        counts.update(PAT.findall(chunk))
    return counts


def merge_word(word, pair):
    first, second = pair
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and word[i] == first and word[i + 1] == second:
            out.append(first + second)
            i += 2
        else:
            out.append(word[i])
            i += 1
    return out


def $train_name(text, vocab_size, special_tokens):
    vocab = {}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    for token in BYTES:
        vocab[len(vocab)] = token
    counted = pretoken_counts(text, special_tokens)
    words = [[BYTES[b] for b in piece.encode("utf-8")] for piece in counted]
    freqs = list(counted.values())

    pair_counts = defaultdict(int)
    holders = defaultdict(set)  # pair -> the pre-tokens that (may) hold it
    for index, word in enumerate(words):
        for pair in zip(word, word[1:]):
            pair_counts[pair] += freqs[index]
            holders[pair].add(index)

    merges = []
    while len(vocab) < vocab_size and pair_counts:
        best = max(pair_counts.items(), key=lambda item: (item[1], item[0]))[0]
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        for index in holders.pop(best):
            old = words[index]
            new = merge_word(old, best)
            if len(new) == len(old):
                continue  # it lost the pair to an earlier merge
            freq = freqs[index]
            for pair in zip(old, old[1:]):
                pair_counts[pair] -= freq
                if not pair_counts[pair]:
                    del pair_counts[pair]
            for pair in zip(new, new[1:]):
                pair_counts[pair] += freq
                holders[pair].add(index)
            words[index] = new
    return vocab, merges


def $encode_name(text, vocab, merges, special_tokens):
    ids_of = {}
    for i, token in vocab.items():
        ids_of.setdefault(token, i)
    rank = {}
    for i, pair in enumerate(merges):
        rank.setdefault(tuple(pair), i)
    cache = {}
    ids = []
    for index, part in enumerate(split_specials(text, special_tokens)):
        if index % 2:
            ids.append(ids_of[part.encode("utf-8")])
            continue
        for piece in PAT.findall(part):
            if piece not in cache:
                word = [BYTES[b] for b in piece.encode("utf-8")]
                while len(word) > 1:
                    known = [(rank[p], p) for p in zip(word, word[1:]) if p in rank]
                    if not known:
                        break
                    word = merge_word(word, min(known)[1])
                cache[piece] = [ids_of[token] for token in word]
            ids.extend(cache[piece])
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
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
'''


def fast_source(exercise: Exercise) -> str:
    """The fast correct program, with the exercise's function names."""
    functions = exercise.roles()
    names = {}
    for key, role, default in (("train_name", "train_byte_bpe", "train_bpe"),
                               ("encode_name", "encode_byte_bpe", "encode"),
                               ("decode_name", "decode_byte_bpe", "decode"),
                               ("iterable_name", "encode_iterable_byte_bpe", "encode_iterable")):
        names[key] = functions[role].name if role in functions else default
    return f"# exercise: {exercise.id}\n" + Template(PROGRAM).substitute(names)


def source(exercise: Exercise, mistake_id: Optional[str] = None) -> str:
    """The audit's submissions: this fast program when correct, else the student-style
    program with the mistake (graded without the efficiency check)."""
    if mistake_id is None:
        return fast_source(exercise)
    return students.student_source(exercise, mistake_id)
