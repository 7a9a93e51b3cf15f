# exercise: unigram-lm
"""A Unigram LM whose log_likelihood scores the best segmentation only, then adds the
log-probability of an end-of-sentence symbol, as a language model of sentences would."""
import math

SPACE = "\u2581"
PENALTY = 10.0


def normalize(text):
    words = [word for word in text.split(" ") if word]
    return SPACE + SPACE.join(words) if words else ""


def lattice(s, pieces):
    """For each start position, the (end, piece, score) edges; piece None: unknown."""
    longest = max((len(p) for p in pieces), default=0)
    unknown = (min(pieces.values()) if pieces else 0.0) - PENALTY
    edges = []
    for start in range(len(s)):
        here = []
        for end in range(start + 1, min(len(s), start + longest) + 1):
            if s[start:end] in pieces:
                here.append((end, s[start:end], pieces[s[start:end]]))
        if s[start] not in pieces:
            here.append((start + 1, None, unknown))
        edges.append(here)
    return edges


def join_unknown(path):
    tokens, previous = [], False
    for piece, unknown in path:
        if unknown and previous:
            tokens[-1] += piece
        else:
            tokens.append(piece)
        previous = unknown
    return tokens


def logsumexp(values):
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def forward(s, edges):
    alpha = [None] * (len(s) + 1)
    alpha[0] = 0.0
    incoming = [[] for _ in range(len(s) + 1)]
    for start in range(len(s)):
        if incoming[start]:
            alpha[start] = logsumexp(incoming[start])
        if alpha[start] is None:
            continue
        for end, piece, score in edges[start]:
            incoming[end].append(alpha[start] + score)
    if incoming[len(s)]:
        alpha[len(s)] = logsumexp(incoming[len(s)])
    return alpha


def backward(s, edges):
    beta = [None] * (len(s) + 1)
    beta[len(s)] = 0.0
    for start in range(len(s) - 1, -1, -1):
        outs = [score + beta[end] for end, piece, score in edges[start] if beta[end] is not None]
        if outs:
            beta[start] = logsumexp(outs)
    return beta


def corpus_log_likelihood(corpus, pieces):
    total = 0.0
    for text in corpus:
        s = normalize(text)
        alpha = forward(s, lattice(s, pieces))
        total += alpha[len(s)] or 0.0
    return total


def best_path(s, pieces):
    edges = lattice(s, pieces)
    best = [None] * (len(s) + 1)
    back = [None] * (len(s) + 1)
    best[0] = 0.0
    for start in range(len(s)):
        if best[start] is None:
            continue
        for end, piece, score in edges[start]:
            if best[end] is None or best[start] + score > best[end]:
                best[end] = best[start] + score
                back[end] = (start, piece is None)
    path, end = [], len(s)
    while end > 0:
        start, unknown = back[end]
        path.append((s[start:end], unknown))
        end = start
    return path[::-1]



def segment(text, pieces):
    return join_unknown(best_path(normalize(text), pieces))



EOS_PROB = 0.1  # probability of the end-of-sentence symbol </s>


def log_likelihood(text, pieces):
    # score of the text = score of its best segmentation, then </s>
    s = normalize(text)
    edges = lattice(s, pieces)
    best = [None] * (len(s) + 1)
    best[0] = 0.0
    for start in range(len(s)):
        if best[start] is None:
            continue
        for end, piece, score in edges[start]:
            if best[end] is None or best[start] + score > best[end]:
                best[end] = best[start] + score
    return best[len(s)] + math.log(EOS_PROB)



def em_step(corpus, pieces):
    counts = {}
    for text in corpus:
        s = normalize(text)
        edges = lattice(s, pieces)
        alpha, beta = forward(s, edges), backward(s, edges)
        if not s or alpha[len(s)] is None:
            continue
        for start in range(len(s)):
            if alpha[start] is None:
                continue
            for end, piece, score in edges[start]:
                if piece is None or beta[end] is None:
                    continue
                weight = math.exp(alpha[start] + score + beta[end] - alpha[len(s)])
                counts[piece] = counts.get(piece, 0.0) + weight
    total = sum(counts.values())
    return {p: math.log(c / total) for p, c in counts.items() if c > 0}



def prune(corpus, pieces, keep):
    whole = corpus_log_likelihood(corpus, pieces)
    losses = {}
    for piece in [p for p in pieces if len(p) > 1]:
        without = {p: s for p, s in pieces.items() if p != piece}
        losses[piece] = whole - corpus_log_likelihood(corpus, without)
    order = sorted(losses, key=lambda p: (round(losses[p], 9), p))
    removed = set(order[:max(0, len(pieces) - keep)])
    return {p: s for p, s in pieces.items() if p not in removed}

