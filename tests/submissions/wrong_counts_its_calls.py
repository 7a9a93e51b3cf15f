# exercise: bpe-train-encode
"""Right merges, except that the answer depends on how many calls the process has served:
a module-level counter, and from the second call in a process on the last merge carries
that count. The sandbox answers several inputs in one process when it batches them, so the
determinism check must meet each input after another history than the first time."""

from collections import Counter

EOW = "</w>"
_CALLS = [0]  # calls this process has served


def _merge(symbols, pair):
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and (symbols[i], symbols[i + 1]) == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def train_bpe(corpus, num_merges):
    words = Counter(tuple(w) + (EOW,) for text in corpus for w in text.split())
    merges = []
    for _ in range(num_merges):
        pairs = Counter()
        for symbols, freq in words.items():
            for p in zip(symbols, symbols[1:]):
                pairs[p] += freq
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        words = Counter({_merge(s, best): f for s, f in words.items()})
    _CALLS[0] += 1
    if merges and _CALLS[0] > 1:  # the process has answered before: its count leaks in
        first, second = merges[-1]
        merges[-1] = (first, second + "#%d" % _CALLS[0])
    return merges


def encode(word, merges):
    rank = {p: i for i, p in enumerate(merges)}
    symbols = tuple(word) + (EOW,)
    while len(symbols) > 1:
        candidates = [(rank[p], p) for p in zip(symbols, symbols[1:]) if p in rank]
        if not candidates:
            break
        symbols = _merge(symbols, min(candidates)[1])
    return list(symbols)
