# exercise: unigram-lm
"""A Unigram language model: Viterbi, likelihood, one EM step and pruning (a correct solution)."""

import math

SPACE = "\u2581"


def clean(text):
    words = [word for word in text.split(" ") if word]
    return SPACE + SPACE.join(words) if words else ""


def edges(s, pieces):
    """edges[i]: the (j, piece, logp) of every piece s[i:j]; piece None for an unknown character."""
    longest = max(map(len, pieces), default=0)
    unknown = min(pieces.values(), default=0.0) - 10.0
    found = []
    for i in range(len(s)):
        here = [(j, s[i:j], pieces[s[i:j]]) for j in range(i + 1, min(len(s), i + longest) + 1)
                if s[i:j] in pieces]
        if s[i] not in pieces:
            here.append((i + 1, None, unknown))
        found.append(here)
    return found


def segment(text, pieces):
    s = clean(text)
    best = [0.0] + [-math.inf] * len(s)
    back = [None] * (len(s) + 1)
    for i, here in enumerate(edges(s, pieces)):
        for j, piece, logp in here:
            if best[i] + logp > best[j]:
                best[j] = best[i] + logp
                back[j] = (i, piece is None)
    tokens, j, after_unknown = [], len(s), False
    while j > 0:
        i, unknown = back[j]
        if unknown and after_unknown:
            tokens[-1] = s[i:j] + tokens[-1]
        else:
            tokens.append(s[i:j])
        after_unknown = unknown
        j = i
    return tokens[::-1]


def logaddexp(a, b):
    if a == -math.inf:
        return b
    top = max(a, b)
    return top + math.log(math.exp(a - top) + math.exp(b - top))


def forward(s, lattice):
    alpha = [0.0] + [-math.inf] * len(s)
    for i, here in enumerate(lattice):
        for j, _, logp in here:
            alpha[j] = logaddexp(alpha[j], alpha[i] + logp)
    return alpha


def backward(s, lattice):
    beta = [-math.inf] * len(s) + [0.0]
    for i in range(len(s) - 1, -1, -1):
        for j, _, logp in lattice[i]:
            beta[i] = logaddexp(beta[i], logp + beta[j])
    return beta


def log_likelihood(text, pieces):
    s = clean(text)
    return forward(s, edges(s, pieces))[-1]


def em_step(corpus, pieces):
    counts = {}
    for text in corpus:
        s = clean(text)
        if not s:
            continue
        lattice = edges(s, pieces)
        alpha, beta = forward(s, lattice), backward(s, lattice)
        for i, here in enumerate(lattice):
            for j, piece, logp in here:
                if piece is not None:
                    counts[piece] = counts.get(piece, 0.0) + math.exp(alpha[i] + logp + beta[j] - alpha[-1])
    total = sum(counts.values())
    return {piece: math.log(count / total) for piece, count in counts.items() if count > 0}


def prune(corpus, pieces, keep):
    def corpus_ll(model):
        return sum(log_likelihood(text, model) for text in corpus)

    whole = corpus_ll(pieces)
    losses = {piece: whole - corpus_ll({p: v for p, v in pieces.items() if p != piece})
              for piece in pieces if len(piece) > 1}
    order = sorted(losses, key=lambda piece: (round(losses[piece], 9), piece))
    removed = set(order[:max(0, len(pieces) - keep)])
    return {piece: logp for piece, logp in pieces.items() if piece not in removed}
