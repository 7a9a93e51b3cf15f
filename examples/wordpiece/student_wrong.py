# exercise: wordpiece
"""WordPiece ranked by raw frequency (the deck's trap), and steps counted from 0: two mistakes."""

from fractions import Fraction

EOW = "</w>"


def start(corpus):
    return {tuple(word) + (EOW,): count for word, count in corpus.items()}


def pair_counts(words):
    pairs = {}
    for symbols, count in words.items():
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + count
    return pairs


def symbol_counts(words):
    symbols = {}
    for word, count in words.items():
        for symbol in word:
            symbols[symbol] = symbols.get(symbol, 0) + count
    return symbols


def scores(words):
    # the most frequent pair is the most likely one, isn't it?
    return pair_counts(words)


def best(ranked):
    # highest value; on a tie the smallest pair
    return min(ranked, key=lambda pair: (-ranked[pair], pair))


def merge(words, pair):
    merged = {}
    for symbols, count in words.items():
        out, i = [], 0
        while i < len(symbols):
            if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
                out.append(symbols[i] + symbols[i + 1])
                i += 2
            else:
                out.append(symbols[i])
                i += 1
        merged[tuple(out)] = merged.get(tuple(out), 0) + count
    return merged


def train_wordpiece(corpus, num_merges):
    words, merges = start(corpus), []
    for _ in range(num_merges):
        ranked = scores(words)
        if not ranked:
            break
        pair = best(ranked)
        merges.append(pair)
        words = merge(words, pair)
    return merges


def first_divergence(corpus, num_merges):
    words = start(corpus)
    for step in range(1, num_merges + 1):
        counts = pair_counts(words)
        if not counts:
            return None
        symbols = symbol_counts(words)
        exact = {p: Fraction(c, symbols[p[0]] * symbols[p[1]]) for p, c in counts.items()}
        bpe_pair, wordpiece_pair = best(counts), best(exact)
        if bpe_pair != wordpiece_pair:
            return (step - 1, bpe_pair, wordpiece_pair)
        words = merge(words, bpe_pair)
    return None
