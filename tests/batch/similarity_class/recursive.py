def merge_once(symbols, left, right):
    """Merge left+right wherever they stand next to each other (recursively, from the start)."""
    if len(symbols) < 2:
        return list(symbols)
    if symbols[0] == left and symbols[1] == right:
        return [left + right] + merge_once(symbols[2:], left, right)
    return [symbols[0]] + merge_once(symbols[1:], left, right)


def count_adjacent(table):
    result = dict()
    for symbols, n in table:
        for left, right in zip(symbols, symbols[1:]):
            result[(left, right)] = result.get((left, right), 0) + n
    return result


def learn(table, remaining, done):
    if remaining == 0:
        return done
    counted = count_adjacent(table)
    if not counted:
        return done
    ordered = sorted(counted, key=lambda pair: (-counted[pair], pair))
    left, right = ordered[0]
    return learn([(merge_once(s, left, right), n) for s, n in table], remaining - 1,
                 done + [(left, right)])


def train_bpe(corpus, num_merges):
    counts = {}
    for text in corpus:
        for word in text.split():
            counts[word] = counts.get(word, 0) + 1
    table = [(list(word) + ["</w>"], n) for word, n in counts.items()]
    return learn(table, num_merges, [])


def encode(word, merges):
    def go(symbols, rest):
        if not rest:
            return symbols
        return go(merge_once(symbols, *rest[0]), rest[1:])
    return go(list(word) + ["</w>"], list(merges))
