# exercise: toy
from collections import Counter


def vocabulary(corpus, size):
    counts = Counter()
    for text in corpus:
        counts.update(text.split())
    return [word for word, _ in counts.most_common(size)]
