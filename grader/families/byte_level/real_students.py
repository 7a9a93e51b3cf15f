"""Student-style parts for the mistakes of real CS336 solutions (:mod:`.real_code`), each a
published pattern (``grade audit`` requires its own name).

Each plugs into the correct program of :mod:`grader.families.byte_level.students` through its
knobs: ``recount``/``drop`` (pair counts kept in one dict across merges, the merged pair
deleted), ``no_pair`` (the check before ``max()``), ``pretokens`` (how the text becomes
pre-tokens), ``piece_bytes`` (a pre-token's bytes), ``override`` (a whole trainer defined
after the others, named ``TRAIN_NAME`` or ``ENCODE_NAME``) and ``definitions`` (functions the part needs, defined beside
``split_specials``).
"""

from __future__ import annotations

from dataclasses import replace

from grader.families.api import StudentMistake

TRAIN = "train_byte_bpe"

STRIP_SPECIALS = '''

def strip_specials(text, special_tokens):
    for token in special_tokens:
        text = text.replace(token, "")
    return text
'''

BYTE_RANGES = '''
import os


def byte_ranges(text, count):
    """Cut the UTF-8 bytes into count ranges, as the chunking starter code first does."""
    data = text.encode("utf-8")
    size = len(data) // count
    cuts = sorted({i * size for i in range(count)} | {len(data)})
    return [data[a:b].decode("utf-8", errors="ignore") for a, b in zip(cuts, cuts[1:])]
'''

NEIGHBOURS_FROM_OLD_WORD = '''

def TRAIN_NAME(text, vocab_size, special_tokens):
    """Pair counts kept up to date: only the pre-tokens holding the merged pair are revisited."""
    vocab = {}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    for value in range(256):
        vocab[len(vocab)] = bytes([value])
    counted = {}
    for piece in pretokens(text, special_tokens):
        counted[piece] = counted.get(piece, 0) + 1
    words = [tuple(bytes([b]) for b in piece.encode("utf-8")) for piece in counted]
    freqs = list(counted.values())
    counts, holders = {}, {}
    for index, word in enumerate(words):
        for pair in zip(word, word[1:]):
            counts[pair] = counts.get(pair, 0) + freqs[index]
            holders.setdefault(pair, set()).add(index)
    merges = []
    while len(vocab) < vocab_size and counts:
        best = max(counts.items(), key=lambda item: (item[1], item[0]))[0]
        merges.append(best)
        joined = best[0] + best[1]
        vocab[len(vocab)] = joined
        for index in holders.pop(best, set()):
            old = words[index]
            new = merge_word(old, best)
            if len(new) == len(old):
                continue
            freq = freqs[index]
            for pair in zip(old, old[1:]):
                counts[pair] = counts.get(pair, 0) - freq
                if not counts[pair]:
                    del counts[pair]
            made = []
            for i in range(len(old) - 1):
                if (old[i], old[i + 1]) == best:
                    if i > 0:
                        made.append((old[i - 1], joined))
                    if i + 2 < len(old):
                        made.append((joined, old[i + 2]))
            made += [pair for pair in zip(new, new[1:]) if joined not in pair]
            for pair in made:
                counts[pair] = counts.get(pair, 0) + freq
                holders.setdefault(pair, set()).add(index)
            words[index] = new
    return vocab, merges
'''

ENCODE_UNGUARDED_SPLIT = '''

def ENCODE_NAME(text, vocab, merges, special_tokens):
    ids_of = {token: i for i, token in vocab.items()}
    rank = {tuple(pair): i for i, pair in reversed(list(enumerate(merges)))}
    pattern = "|".join(re.escape(t) for t in sorted(special_tokens, key=len, reverse=True))
    ids = []
    for index, part in enumerate(re.split("(" + pattern + ")", text)):
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
'''

REAL_CODE_STUDENTS: tuple[StudentMistake, ...] = tuple(replace(student, published=True) for student in (
    StudentMistake("byte-merges-zero-count-pairs", TRAIN, settings={
        "recount": "for pair in counts:\n            counts[pair] = 0",
        "drop": "\n        del counts[best]"}),
    StudentMistake("byte-max-of-no-pair", TRAIN, settings={
        "no_pair": "# the vocabulary fills up before the pairs run out"}),
    StudentMistake("byte-specials-removed-with-replace", TRAIN, settings={
        "definitions": STRIP_SPECIALS,
        "pretokens": "PAT.findall(strip_specials(text, special_tokens))"}),
    StudentMistake("byte-empty-specials-split-every-character", TRAIN, settings={
        "pretokens": ('[p for chunk in re.split("(" + "|".join(re.escape(t) for t in '
                      'sorted(special_tokens, key=len, reverse=True)) + ")", text)[::2] '
                      'for p in PAT.findall(chunk)]')}),
    StudentMistake("byte-chunks-cut-mid-pretoken", TRAIN, settings={
        "definitions": BYTE_RANGES,
        "pretokens": ("[p for chunk in (split_specials(text, special_tokens)[::2] if "
                      "special_tokens else byte_ranges(text, max(2, os.cpu_count() or 1))) "
                      "for p in PAT.findall(chunk)]")}),
    StudentMistake("byte-splits-only-on-endoftext", TRAIN, settings={
        "pretokens": '[p for chunk in text.split("<|endoftext|>") for p in PAT.findall(chunk)]'}),
    StudentMistake("byte-neighbours-from-old-word", TRAIN,
                   settings={"override": NEIGHBOURS_FROM_OLD_WORD}),
    StudentMistake("byte-encode-crash-without-specials", "encode_byte_bpe",
                   settings={"override": ENCODE_UNGUARDED_SPLIT}),
    StudentMistake("byte-pretokenized-bytes", TRAIN, settings={
        "pretokens": ('[p for chunk in split_specials(text, special_tokens)[::2] '
                      'for p in PAT.findall(chunk.encode("utf-8").decode("latin-1"))]'),
        "piece_bytes": 'piece.encode("latin-1")'}),
))
