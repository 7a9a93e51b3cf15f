'''Student-style Unigram submissions, correct or making one known Unigram mistake.

A plain program as a student writes it (normalize, a lattice of the pieces found at each
position, a Viterbi pass with back pointers, forward and backward passes in log space), with
the part where a mistake of :mod:`grader.families.unigram.mistakes` lives replaced.
``grade audit`` grades these files through the real grading path; the tests check that each
answers what its catalogue entry computes.
'''

from __future__ import annotations

from dataclasses import replace
from string import Template
from typing import Any, Optional

from grader.families.unigram.expected import EM_STEP, LIKELIHOOD, PRUNE, SEGMENT
from grader.families.api import StudentMistake

SHARED = '''import math

SPACE = "\\u2581"
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
'''

BEST_PATH = {
    "viterbi": '''
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
''',
    "known_only": '''
def best_path(s, pieces):
    longest = max((len(p) for p in pieces), default=0)
    best = [None] * (len(s) + 1)
    back = [None] * (len(s) + 1)
    best[0] = 0.0
    for start in range(len(s)):
        if best[start] is None:
            continue
        for end in range(start + 1, min(len(s), start + longest) + 1):
            piece = s[start:end]
            if piece in pieces and (best[end] is None or best[start] + pieces[piece] > best[end]):
                best[end] = best[start] + pieces[piece]
                back[end] = (start, False)
    path, end = [], len(s)
    while end > 0:
        start, unknown = back[end]
        path.append((s[start:end], unknown))
        end = start
    return path[::-1]
''',
    "greedy": '''
def best_path(s, pieces):
    edges = lattice(s, pieces)
    path, start = [], 0
    while start < len(s):
        end, piece, score = max(edges[start], key=lambda edge: edge[0])
        path.append((s[start:end], piece is None))
        start = end
    return path
''',
}

SEGMENT_BODY = {
    "normalized": "return join_unknown(best_path(normalize(text), pieces))",
    "unk": ("tokens = join_unknown(best_path(normalize(text), pieces))\n"
            "    return [t if t in pieces else '<unk>' for t in tokens]"),
    "dropped": ("tokens = join_unknown(best_path(normalize(text), pieces))\n"
                "    return [t for t in tokens if t in pieces]"),
    "separate": "return [piece for piece, unknown in best_path(normalize(text), pieces)]",
    "no_prefix": ("s = SPACE.join(word for word in text.split(' ') if word)\n"
                  "    return join_unknown(best_path(s, pieces))"),
    "all_spaces": ("s = SPACE + text.replace(' ', SPACE) if text else ''\n"
                   "    return join_unknown(best_path(s, pieces))"),
    "words": ("tokens = []\n    for word in text.split():\n"
              "        tokens += join_unknown(best_path(word, pieces))\n    return tokens"),
}

TOTAL = {
    "logsumexp": "    alpha = forward(s, lattice(s, pieces))\n    return alpha[len(s)] or 0.0",
    "max": ('''    edges = lattice(s, pieces)
    best = [None] * (len(s) + 1)
    best[0] = 0.0
    for start in range(len(s)):
        if best[start] is None:
            continue
        for end, piece, score in edges[start]:
            if best[end] is None or best[start] + score > best[end]:
                best[end] = best[start] + score
    return best[len(s)]'''),
    "exp_no_max": ('''    if not s:
        return 0.0
    edges = lattice(s, pieces)
    alpha = [0.0] + [None] * len(s)
    incoming = [[] for _ in range(len(s) + 1)]
    for start in range(len(s)):
        if incoming[start]:
            total = sum(math.exp(x) for x in incoming[start])
            alpha[start] = math.log(total) if total > 0 else float("-inf")
        if alpha[start] is None:
            continue
        for end, piece, score in edges[start]:
            incoming[end].append(alpha[start] + score)
    total = sum(math.exp(x) for x in incoming[len(s)])
    return math.log(total) if total > 0 else float("-inf")'''),
    "products": ('''    prob = [1.0] + [0.0] * len(s)
    for start, edges in enumerate(lattice(s, pieces)):
        for end, piece, score in edges:
            prob[end] += prob[start] * math.exp(score)
    return math.log(prob[len(s)])'''),
}

NEW_SCORES = {
    "normalized": "total = sum(counts.values())\n    return {p: math.log(c / total) for p, c in counts.items() if c > 0}",
    "raw": "return {p: math.log(c) for p, c in counts.items() if c > 0}",
    "digamma": ("counts = {p: c for p, c in counts.items() if c >= 0.5}\n"
                "    total = digamma(sum(counts.values()))\n"
                "    return {p: digamma(c) - total for p, c in counts.items()}"),
}

DIGAMMA = '''

def digamma(x):
    result = 0.0
    while x < 7:
        result -= 1 / x
        x += 1
    x -= 0.5
    xx = 1 / x
    xx2 = xx * xx
    xx4 = xx2 * xx2
    return (result + math.log(x) + xx2 / 24 - 7 * xx4 / 960 + 31 * xx4 * xx2 / 8064
            - 127 * xx4 * xx4 / 30720)
'''

EM_COUNTS = {
    "expected": '''for text in corpus:
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
                counts[piece] = counts.get(piece, 0.0) + weight''',
    "viterbi": '''for text in corpus:
        for piece, unknown in best_path(normalize(text), pieces):
            if not unknown:
                counts[piece] = counts.get(piece, 0.0) + 1.0
    if not counts:
        return {}''',
}

ORDER = {
    "loss": "sorted(losses, key=lambda p: (round(losses[p], 9), p))",
    "probability": "sorted(losses, key=lambda p: (pieces[p], p))",
}

REMOVED = {"right": "len(pieces) - keep", "one_short": "len(pieces) - keep - 1"}

CANDIDATES = {
    "multi": "[p for p in pieces if len(p) > 1]",
    "all": "list(pieces)",
}

FUNCTIONS = {
    SEGMENT: '''

def $segment(text, pieces):
    $segment_body
''',
    LIKELIHOOD: '''

def $log_likelihood(text, pieces):
    s = normalize(text)
$total
''',
    EM_STEP: '''

def $em_step(corpus, pieces):
    counts = {}
    $em_counts
    $new_scores
''',
    PRUNE: '''

def $prune(corpus, pieces, keep):
    whole = corpus_log_likelihood(corpus, pieces)
    losses = {}
    for piece in $candidates:
        without = {p: s for p, s in pieces.items() if p != piece}
        losses[piece] = whole - corpus_log_likelihood(corpus, without)
    order = $order
    removed = set(order[:max(0, $removed)])
    return {p: s for p, s in pieces.items() if p not in removed}
''',
}

STUDENT_MISTAKES = {
    "unigram-greedy-longest-match": StudentMistake(
        "unigram-greedy-longest-match", SEGMENT, parts={"best_path": "greedy"}),
    "unigram-forgot-space-symbol": StudentMistake(
        "unigram-forgot-space-symbol", SEGMENT, parts={"segment_body": "words"}),
    "unigram-likelihood-max": StudentMistake(
        "unigram-likelihood-max", LIKELIHOOD, parts={"total": "max"}),
    "unigram-likelihood-underflow": StudentMistake(
        "unigram-likelihood-underflow", LIKELIHOOD, parts={"total": "products"}),
    "unigram-em-counts-not-normalized": StudentMistake(
        "unigram-em-counts-not-normalized", EM_STEP, parts={"new_scores": "raw"}),
    "unigram-prune-drops-characters": StudentMistake(
        "unigram-prune-drops-characters", PRUNE, parts={"candidates": "all"}),
}
REAL_CODE = {
    mistake.id: replace(mistake, published=True)
    for mistake in (
        StudentMistake("unigram-unknown-as-unk", SEGMENT, parts={"segment_body": "unk"}),
        StudentMistake("unigram-unknown-dropped", SEGMENT, parts={"segment_body": "dropped"}),
        StudentMistake("unigram-unknown-not-joined", SEGMENT, parts={"segment_body": "separate"}),
        StudentMistake("unigram-unknown-crash", SEGMENT, parts={"best_path": "known_only"}),
        StudentMistake("unigram-no-dummy-prefix", SEGMENT, parts={"segment_body": "no_prefix"}),
        StudentMistake("unigram-extra-spaces-kept", SEGMENT, parts={"segment_body": "all_spaces"}),
        StudentMistake("unigram-em-hard-counts", EM_STEP, parts={"em_counts": "viterbi"}),
        StudentMistake("unigram-em-digamma", EM_STEP, parts={"new_scores": "digamma"}),
        StudentMistake("unigram-prune-by-probability", PRUNE, parts={"order": "probability"}),
        StudentMistake("unigram-prune-one-short", PRUNE, parts={"removed": "one_short"}),
    )
}
"""The mistakes of published code (:mod:`grader.families.unigram.real_code`): each is a
published pattern, so ``grade audit`` fails unless its own name is given."""
STUDENT_MISTAKES.update(REAL_CODE)

COMBINED = {
    "unigram-greedy-longest-match+unigram-unknown-as-unk": StudentMistake(
        "unigram-greedy-longest-match+unigram-unknown-as-unk", SEGMENT,
        parts={"best_path": "greedy", "segment_body": "unk"}),
}
"""Two mistakes at once, as published code makes them."""

VARIANTS = {
    "unigram-forward-exp-underflow": StudentMistake(
        "unigram-likelihood-underflow", LIKELIHOOD, parts={"total": "exp_no_max"}),
}
"""Other code making a catalogued mistake, keyed by its own file id: a forward pass in log
space that sums math.exp of the log-probabilities without subtracting the largest (its total
underflows to 0.0 on a long text, and a guarded log returns -inf)."""


def combined_mistakes(exercise: Any) -> list[StudentMistake]:
    return [mistake for mistake in COMBINED.values() if mistake.role in exercise.roles()]


def applicable_mistakes(exercise: Any) -> list[StudentMistake]:
    return [mistake for mistake in STUDENT_MISTAKES.values() if mistake.role in exercise.roles()]


def student_source(exercise: Any, mistake_id: Optional[str] = None) -> str:
    """The source of a student-style submission: correct, or with mistake ``mistake_id``."""
    chosen = {"best_path": "viterbi", "segment_body": "normalized", "total": "logsumexp",
              "new_scores": "normalized", "candidates": "multi", "em_counts": "expected",
              "order": "loss", "removed": "right"}
    if mistake_id is not None:
        mistake = {**STUDENT_MISTAKES, **COMBINED, **VARIANTS}[mistake_id]
        chosen.update({k: str(v) for k, v in mistake.parts.items()})
    roles = exercise.roles()
    settings = {role: spec.name for role, spec in roles.items()}
    settings.update(segment_body=SEGMENT_BODY[chosen["segment_body"]],
                    total=TOTAL[chosen["total"]], new_scores=NEW_SCORES[chosen["new_scores"]],
                    candidates=CANDIDATES[chosen["candidates"]],
                    em_counts=EM_COUNTS[chosen["em_counts"]], order=ORDER[chosen["order"]],
                    removed=REMOVED[chosen["removed"]])
    body = [SHARED, BEST_PATH[chosen["best_path"]]]
    if chosen["new_scores"] == "digamma":
        body.append(DIGAMMA)
    body += [Template(FUNCTIONS[role]).substitute(settings) for role in roles]
    what = f"known mistake {mistake_id}" if mistake_id else "no known mistake (a correct submission)"
    header = f'# exercise: {exercise.id}\n"""A student-style submission with {what}."""\n'
    return header + "\n".join(body)
