# exercise: wordpiece
"""WordPiece training and the first step where it parts from BPE (a correct solution)."""

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
    symbols = symbol_counts(words)
    return {
        pair: Fraction(count, symbols[pair[0]] * symbols[pair[1]])
        for pair, count in pair_counts(words).items()
    }


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
        bpe_pair, wordpiece_pair = best(counts), best(scores(words))
        if bpe_pair != wordpiece_pair:
            return (step, bpe_pair, wordpiece_pair)
        words = merge(words, bpe_pair)
    return None
