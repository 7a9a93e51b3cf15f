# exercise: byte-bpe
"""Byte-level BPE in CS336's conventions: correct, but too slow for CS336's speed test.

Its trainer recounts every pair of every distinct pre-token after each merge and rebuilds
the whole table of pre-tokens, where a fast one updates only the pre-tokens holding the
merged pair (student_correct.py). It gets the train, encode and decode milestones right
and fails efficiency, whose message says what to change.

GPT-2's pattern needs the regex module, which the exercise allows; where it cannot be
imported (running the file elsewhere), the same pattern written for re (equal except on
numerals such as '²' that are not decimal digits).
"""

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


def pretokens(text, special_tokens):
    return [p for chunk in split_specials(text, special_tokens)[::2] for p in PAT.findall(chunk)]


def best_pair(counts):
    return max(counts, key=lambda p: (counts[p], p))


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


def train_bpe(text, vocab_size, special_tokens):
    vocab = {}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    for value in range(256):
        vocab[len(vocab)] = bytes([value])
    words = {}
    for piece in pretokens(text, special_tokens):
        key = tuple(bytes([b]) for b in piece.encode("utf-8"))
        words[key] = words.get(key, 0) + 1
    merges = []
    while len(vocab) < vocab_size:
        counts = {}
        for word, freq in words.items():
            for pair in zip(word, word[1:]):
                counts[pair] = counts.get(pair, 0) + freq
        if not counts:
            break
        best = best_pair(counts)
        merges.append(best)
        vocab[len(vocab)] = best[0] + best[1]
        merged = {}
        for word, freq in words.items():
            new = merge_word(word, best)
            merged[new] = merged.get(new, 0) + freq
        words = merged
    return vocab, merges


def encode(text, vocab, merges, special_tokens):
    ids_of = {token: i for i, token in vocab.items()}
    rank = {}
    for i, pair in enumerate(merges):
        rank.setdefault(tuple(pair), i)
    ids = []
    for index, part in enumerate(split_specials(text, special_tokens)):
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


def encode_iterable(lines, vocab, merges, special_tokens):
    pending = ""
    for line in lines:
        pending += line
        # A run of spaces and newlines, or a word, can go on in the next line: keep the last
        # run of whitespace and what follows it until then, and encode what comes before.
        last = re.search(r"\s+\S*\Z", pending)
        cut = last.start() if last else 0
        if cut:
            yield from encode(pending[:cut], vocab, merges, special_tokens)
            pending = pending[cut:]
    if pending:
        yield from encode(pending, vocab, merges, special_tokens)


def decode(ids, vocab):
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
