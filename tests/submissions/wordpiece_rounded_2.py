# exercise: wordpiece
"""A student-style WordPiece submission whose scores are rounded to 2 decimals before they are compared."""

from fractions import Fraction

EOW = '</w>'


def start_symbols(word):
    return tuple(word) + (EOW,) if EOW else tuple(word)


def count_symbols(words):
    symbols = {}
    for word, freq in words.items():
        for symbol in word:
            symbols[symbol] = symbols.get(symbol, 0) + freq
    return symbols


def read_words(corpus):
    """Each word as a tuple of symbols, with its count."""
    words = {}
    for word, count in corpus.items():
        symbols = start_symbols(word)
        words[symbols] = words.get(symbols, 0) + count
    return words


def count_pairs(words):
    pairs = {}
    for symbols, freq in words.items():
        for pair in zip(symbols, symbols[1:]):
            pairs[pair] = pairs.get(pair, 0) + freq
    return pairs


def best_pair(pairs):
    # most frequent; on a tie the smallest pair
    return min(pairs, key=lambda p: (-pairs[p], p))


def merge_word(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def merge_all(words, pair):
    new_words = {}
    for symbols, freq in words.items():
        merged = merge_word(symbols, pair)
        new_words[merged] = new_words.get(merged, 0) + freq
    return new_words


def scores_of(words, pairs):
    symbols = count_symbols(words)
    return {p: round(c / (symbols[p[0]] * symbols[p[1]]), 2) for p, c in pairs.items()}


def raw_scores(words, pairs):
    return dict(pairs)



def train_wordpiece(corpus, num_merges):
    words = read_words(corpus)
    merges = []
    for _ in range(num_merges):
        pairs = count_pairs(words)
        if not pairs:
            break
        best = best_pair(scores_of(words, pairs))
        merges.append(best)
        words = merge_all(words, best)
    return merges


def first_divergence(corpus, num_merges):
    words = read_words(corpus)
    for step in range(1, num_merges + 1):
        pairs = count_pairs(words)
        if not pairs:
            return None
        bpe = best_pair(pairs)
        wordpiece = best_pair(scores_of(words, pairs))
        if bpe != wordpiece:
            return (step, bpe, wordpiece)
        words = merge_all(words, bpe)
    return None
