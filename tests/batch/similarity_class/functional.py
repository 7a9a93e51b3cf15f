from functools import reduce
from itertools import chain
from operator import add

END_MARK = "</w>"


def split_words(corpus):
    return list(chain.from_iterable(text.split() for text in corpus))


def spelled(word):
    return (*word, END_MARK)


def neighbours(seq):
    return list(zip(seq[:-1], seq[1:]))


def fuse(seq, pair):
    def step(acc, symbol):
        if acc and acc[-1][1] is False and (acc[-1][0], symbol) == pair:
            return acc[:-1] + [(acc[-1][0] + symbol, True)]
        return acc + [(symbol, False)]
    return tuple(symbol for symbol, _ in reduce(step, seq, []))


def tally(forms):
    counts = {}
    for form in forms:
        for pair in neighbours(form):
            counts[pair] = counts.get(pair, 0) + 1
    return counts


def train_bpe(corpus, num_merges):
    forms = [spelled(word) for word in split_words(corpus)]
    history = []
    for _ in range(num_merges):
        counts = tally(forms)
        if not counts:
            return history
        chosen = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
        history = history + [chosen]
        forms = [fuse(form, chosen) for form in forms]
    return history


def encode(word, merges):
    return list(reduce(fuse, [tuple(m) for m in merges], spelled(word)))


def joined(tokens):
    return reduce(add, tokens, "")
