# exercise: byte-bpe
"""Byte-level BPE with incremental pair counts whose new pairs are read from the old word:
at each occurrence of the merged pair, the neighbours of the word before the merge."""

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


def train_bpe(text, vocab_size, special_tokens):
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
            # neighbours of each occurrence, read from the old word
            new_pairs = []
            for i in range(len(old) - 1):
                if (old[i], old[i + 1]) == best:
                    if i > 0:
                        new_pairs.append((old[i - 1], best[0] + best[1]))
                    if i + 2 < len(old):
                        new_pairs.append((best[0] + best[1], old[i + 2]))
            for pair in zip(new, new[1:]):
                if best[0] + best[1] not in pair:
                    new_pairs.append(pair)
            for pair in new_pairs:
                pair_counts[pair] += freq
                holders[pair].add(index)
            words[index] = new
    return vocab, merges


def encode(text, vocab, merges, special_tokens):
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


def encode_iterable(lines, vocab, merges, special_tokens):
    for line in lines:
        yield from encode(line, vocab, merges, special_tokens)


def decode(ids, vocab):
    return b"".join(vocab[i] for i in ids).decode("utf-8", errors="replace")
