import re
import collections


def _vocabulary(corpus):
    vocab = collections.defaultdict(int)
    for sentence in corpus:
        for token in sentence.split():
            vocab[" ".join(token) + " </w>"] += 1
    return vocab


def _statistics(vocab):
    stats = collections.defaultdict(int)
    for spelled, freq in vocab.items():
        symbols = spelled.split()
        for i in range(len(symbols) - 1):
            stats[symbols[i], symbols[i + 1]] += freq
    return stats


def _merge(pair, vocab):
    pattern = re.compile(r"(?<!\S)" + re.escape(" ".join(pair)) + r"(?!\S)")
    return {pattern.sub("".join(pair), spelled): freq for spelled, freq in vocab.items()}


def train_bpe(corpus, num_merges):
    vocab = _vocabulary(corpus)
    operations = []
    for i in range(num_merges):
        stats = _statistics(vocab)
        if not stats:
            break
        best = min(stats, key=lambda pair: (-stats[pair], pair))
        vocab = _merge(best, vocab)
        operations.append(best)
    return operations


def encode(word, merges):
    spelled = " ".join(word) + " </w>"
    for pair in merges:
        spelled = _merge(pair, {spelled: 1}).popitem()[0]
    return spelled.split()
