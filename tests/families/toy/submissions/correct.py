# exercise: toy
from collections import Counter


def vocabulary(corpus, size):
    counts = Counter(word for text in corpus for word in text.split())
    return sorted(counts, key=lambda word: (-counts[word], word))[:size]
