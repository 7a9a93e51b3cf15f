"""Student-style parts for the mistakes of real CS336 solutions (:mod:`.real_code`).

Each plugs into the correct program of :mod:`grader.families.byte_level.students` through its
knobs: ``recount``/``drop`` (pair counts kept in one dict across merges, the merged pair
deleted), ``no_pair`` (the check before ``max()``), ``pretokens`` (how the text becomes
pre-tokens), ``piece_bytes`` (a pre-token's bytes) and ``definitions`` (functions the part needs, defined beside
``split_specials``).
"""

from __future__ import annotations

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

REAL_CODE_STUDENTS: tuple[StudentMistake, ...] = (
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
    StudentMistake("byte-pretokenized-bytes", TRAIN, settings={
        "pretokens": ('[p for chunk in split_specials(text, special_tokens)[::2] '
                      'for p in PAT.findall(chunk.encode("utf-8").decode("latin-1"))]'),
        "piece_bytes": 'piece.encode("latin-1")'}),
)
