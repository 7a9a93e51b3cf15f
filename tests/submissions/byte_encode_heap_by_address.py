# exercise: byte-bpe
"""Byte-level BPE in CS336's conventions; the encoder merges each pre-token with a heap.

Each pre-token's bytes are a linked list of nodes; the heap holds (rank, id(node), node) for
every adjacent pair with a merge, so the lowest rank pops first and ties never compare nodes.
"""

import heapq
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
            for pair in zip(new, new[1:]):
                pair_counts[pair] += freq
                holders[pair].add(index)
            words[index] = new
    return vocab, merges


class Node:
    __slots__ = ("token", "prev", "next", "alive")

    def __init__(self, token):
        self.token, self.prev, self.next, self.alive = token, None, None, True


def merge_pretoken(piece, rank):
    nodes = [Node(BYTES[b]) for b in piece.encode("utf-8")]
    for left, right in zip(nodes, nodes[1:]):
        left.next, right.prev = right, left
    heap = []

    def push(node):
        if node is not None and node.next is not None:
            r = rank.get((node.token, node.next.token))
            if r is not None:
                heapq.heappush(heap, (r, id(node), node))

    for node in nodes:
        push(node)
    while heap:
        r, _, node = heapq.heappop(heap)
        right = node.next
        if not node.alive or right is None or rank.get((node.token, right.token)) != r:
            continue  # stale: this pair changed since it was pushed
        node.token = node.token + right.token
        right.alive = False
        node.next = right.next
        if right.next is not None:
            right.next.prev = node
        push(node.prev)
        push(node)
    tokens, node = [], nodes[0] if nodes else None
    while node is not None:
        tokens.append(node.token)
        node = node.next
    return tokens


def encode(text, vocab, merges, special_tokens):
    ids_of = {}
    for i, token in vocab.items():
        ids_of.setdefault(token, i)
    rank = {}
    for i, pair in enumerate(merges):
        rank.setdefault(tuple(pair), i)
    ids = []
    for index, part in enumerate(split_specials(text, special_tokens)):
        if index % 2:
            ids.append(ids_of[part.encode("utf-8")])
            continue
        for piece in PAT.findall(part):
            ids.extend(ids_of[token] for token in merge_pretoken(piece, rank))
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
