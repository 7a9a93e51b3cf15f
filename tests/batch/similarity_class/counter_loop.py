from collections import Counter


def train_bpe(corpus, num_merges):
    words = Counter()
    for line in corpus:
        words.update(line.split())
    segmented = {w: list(w) + ["</w>"] for w in words}
    learned = []
    while len(learned) < num_merges:
        pairs = Counter()
        for w, pieces in segmented.items():
            for left, right in zip(pieces, pieces[1:]):
                pairs[left, right] += words[w]
        if not pairs:
            break
        top = max(pairs.values())
        choice = min(p for p, c in pairs.items() if c == top)
        learned.append(choice)
        for w, pieces in segmented.items():
            joined, k = [], 0
            while k < len(pieces):
                if pieces[k:k + 2] == list(choice):
                    joined.append(choice[0] + choice[1])
                    k += 2
                else:
                    joined.append(pieces[k])
                    k += 1
            segmented[w] = joined
    return learned


def encode(word, merges):
    pieces = list(word) + ["</w>"]
    for a, b in merges:
        k = 0
        while k < len(pieces) - 1:
            if pieces[k] == a and pieces[k + 1] == b:
                pieces[k:k + 2] = [a + b]
            else:
                k += 1
    return pieces
