"""BPE without the end-of-word marker (a mistake: the exercise wants '</w>')."""
from collections import defaultdict


def statistics(words):
    table = defaultdict(int)
    for pieces, times in words:
        for n in range(1, len(pieces)):
            table[pieces[n - 1], pieces[n]] += times
    return table


def rewrite(pieces, a, b):
    out = []
    skip = False
    for n, piece in enumerate(pieces):
        if skip:
            skip = False
            continue
        if piece == a and n + 1 < len(pieces) and pieces[n + 1] == b:
            out.append(a + b)
            skip = True
        else:
            out.append(piece)
    return out


def train_bpe(corpus, num_merges):
    freq = defaultdict(int)
    for doc in corpus:
        for token in doc.split():
            freq[token] += 1
    words = [(list(token), times) for token, times in freq.items()]
    result = []
    while len(result) < num_merges:
        table = statistics(words)
        if not table:
            break
        best_count = max(table.values())
        a, b = min(pair for pair in table if table[pair] == best_count)
        result.append((a, b))
        words = [(rewrite(pieces, a, b), times) for pieces, times in words]
    return result


def encode(word, merges):
    pieces = list(word)
    for a, b in merges:
        pieces = rewrite(pieces, a, b)
    return pieces
