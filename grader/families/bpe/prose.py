"""Prose that follows the rules: texts about conventions generated from a spec's declared values,
and the author's own texts checked against them.

:func:`tie_paragraph` writes the stub's tie rule with a worked tie computed by the reference
(on a small corpus where the declared rule picks another pair than each other rule) and the
Python expression that implements it. :func:`prose_problems` finds the author's texts
(instructions, ``tie_example``, function docs, signatures) that state another tie rule, another
end-of-word marker, another corpus form or another merge form than the spec declares.
:func:`tie_cases` finds small corpora on which the four tie rules learn four different merge
lists, for ``grade new`` and for ``grade check``'s advice.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Optional, Union

from grader.families.api import Exercise, Loc
from reference import TIE_BREAKS, train_bpe
from reference.plain import Step, train_steps
from reference.tie_breaks import DESCRIPTIONS, order_tied

Corpus = Union[list[str], dict[str, int]]

PYTHON_RULES = {
    "lexicographic": "min(counts, key=lambda p: (-counts[p], p))",
    "concatenated": "min(counts, key=lambda p: (-counts[p], p[0] + p[1], p))",
    "first-seen": "max(counts, key=counts.get), with counts filled by one scan of the words in "
                  "corpus order",
    "reverse-lexicographic": "max(counts, key=lambda p: (counts[p], p))",
}

# Phrases that state one tie rule; a text stating another rule than the declared one
# contradicts the spec. Matched on lower-cased text with runs of whitespace made one space.
TELLTALES: dict[str, tuple[str, ...]] = {
    "lexicographic": (
        r"smallest pair", r"tuple of strings", r"\(-\s*\w+\[p\],\s*p\)",
        r"(?<!reverse-)(?<!reverse )\blexicographic(al)? (rule|order)\b",
        r"tie_break:? '?lexicographic",
    ),
    "concatenated": (
        r"joined string", r"concatenated string", r"smallest join", r"smallest concatenation",
        r"p\[0\]\s*\+\s*p\[1\]", r"\bconcatenated\b rule", r"tie_break:? '?concatenated",
    ),
    "first-seen": (
        r"first[- ]seen", r"met first", r"first pair met", r"key\s*=\s*\w+\.get\b",
        r"insertion order",
    ),
    "reverse-lexicographic": (
        r"largest pair", r"reverse[- ]lexicographic", r"\(\s*\w+\[p\],\s*p\)",
    ),
}
_MARKER = re.compile(r"</?\w+>|▁")
_CORPUS_TELLTALES = {
    "texts": (r"\bdict(ionary)? (of |mapping )?word", r"word\s*->\s*count", r"dict\[str,\s*int\]",
              r"word counts"),
    "word-counts": (r"list of texts", r"text\.split\(\)", r"list\[str\]"),
}
_TYPES = {
    ("corpus", "texts"): "list[str]",
    ("corpus", "word-counts"): "dict[str, int]",
    ("merges", "pairs"): "list[tuple[str, str]]",
    ("merges", "pairs-with-token"): "list[tuple[tuple[str, str], str]]",
}


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower())


def stated_rules(text: str) -> dict[str, str]:
    """Tie rule -> the first phrase of ``text`` that states it."""
    found: dict[str, str] = {}
    normal = _normal(text)
    for rule, patterns in TELLTALES.items():
        for pattern in patterns:
            match = re.search(pattern, normal)
            if match:
                found[rule] = match.group(0)
                break
    return found


def _texts(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    yield ("instructions",), exercise.instructions
    if exercise.conventions.tie_example:
        yield ("conventions", "tie_example"), exercise.conventions.tie_example
    for role, spec in exercise.roles().items():
        yield ("functions", role, "doc"), spec.doc


def prose_problems(exercise: Exercise) -> list[tuple[Loc, str]]:
    """The author's texts that contradict the declared conventions."""
    conventions = exercise.conventions
    rule = conventions.tie_break
    problems: list[tuple[Loc, str]] = []
    for loc, text in _texts(exercise):
        others = {r: phrase for r, phrase in stated_rules(text).items() if r != rule}
        if others:
            other, phrase = next(iter(others.items()))
            problems.append((loc, (
                f"says {phrase!r}, which is tie rule {other!r} ({DESCRIPTIONS[other]}), but "
                f"conventions.tie_break is {rule!r} ({DESCRIPTIONS[rule]}); rewrite the text"
                + (", or leave tie_example out: the stub then states the rule with a worked "
                   "tie computed by the reference" if loc[-1] == "tie_example" else "")
            )))
        for marker in sorted(set(_MARKER.findall(text))):
            if marker != conventions.end_of_word:
                declared = repr(conventions.end_of_word) if conventions.end_of_word else "no marker"
                problems.append((loc, (
                    f"mentions the end-of-word marker {marker!r}, but conventions.end_of_word "
                    f"is {declared}; write the declared marker"
                )))
                break
        for pattern in _CORPUS_TELLTALES[conventions.corpus_form]:
            match = re.search(pattern, _normal(text))
            if match and loc[-1] != "tie_example":
                problems.append((loc, (
                    f"says {match.group(0)!r}, but conventions.corpus_form is "
                    f"{conventions.corpus_form!r} ({_corpus_words(conventions.corpus_form)})"
                )))
                break
    problems += list(_signature_problems(exercise))
    return problems


def _corpus_words(form: str) -> str:
    return "a list of texts split on whitespace" if form == "texts" else "a dict word -> count"


def _signature_problems(exercise: Exercise) -> Iterator[tuple[Loc, str]]:
    """Annotations of the signatures that name another corpus or merge form."""
    import ast

    conventions = exercise.conventions
    merges_type = _TYPES[("merges", conventions.merge_form)]
    wanted = {
        ("train", "corpus"): _TYPES[("corpus", conventions.corpus_form)],
        ("train", "return"): merges_type,
        ("encode", "merges"): merges_type,
        ("sequence_lengths", "merges"): merges_type,
    }
    for role, spec in exercise.roles().items():
        try:
            function = ast.parse(f"def {spec.signature.strip()}:\n    pass\n").body[0]
        except SyntaxError:
            continue  # reported by the semantic rules
        assert isinstance(function, ast.FunctionDef)
        annotations = {arg.arg: arg.annotation for arg in function.args.args}
        annotations["return"] = function.returns
        names = {"train": ("corpus", "return"), "encode": ("merges",),
                 "sequence_lengths": ("merges",)}.get(role, ())  # other families: own types
        positions = {"corpus": 0, "merges": 1}
        for name in names:
            if name == "return":
                node = function.returns
            else:
                args = function.args.args
                node = args[positions[name]].annotation if len(args) > positions[name] else None
            if node is None:
                continue
            written = re.sub(r"\s+", "", ast.unparse(node)).replace("List", "list").replace(
                "Tuple", "tuple").replace("Dict", "dict")
            expected = wanted[(role, name)]
            kind = "corpus" if name == "corpus" else "merges"
            other_forms = {t.replace(" ", "") for (k, _), t in _TYPES.items() if k == kind}
            if written in other_forms and written != expected.replace(" ", ""):
                what = "corpus_form" if name == "corpus" else "merge_form"
                value = conventions.corpus_form if name == "corpus" else conventions.merge_form
                yield ("functions", role, "signature"), (
                    f"annotates {'the return value' if name == 'return' else name} as "
                    f"{ast.unparse(node)}, but conventions.{what} {value!r} means {expected}"
                )


# --------------------------------------------------------------------------- worked tie


def _words(corpus: Corpus) -> str:
    if isinstance(corpus, dict):
        return "{" + ", ".join(f"{w!r}: {c}" for w, c in corpus.items()) + "}"
    return repr(corpus)


def _pair(pair: tuple[str, str]) -> str:
    return f"({pair[0]}, {pair[1]})"


def met_order(step: Step) -> list[tuple[str, str]]:
    """The step's tied pairs in the order first met (``step.tied`` is in the rule's order)."""
    return [pair for pair, count in step.pair_counts.items() if count == step.count]


@dataclass(frozen=True)
class Tie:
    """A training step's tie as the stub tells it: the step, the tied pairs in the order
    first met, what they share (``once``, ``score 1/3``) and the pair the rule merges."""

    number: int
    tied: list[tuple[str, str]]
    shared: str
    pair: tuple[str, str]


TieSteps = Callable[[Corpus, int, str, str], Iterator[Tie]]
"""A trainer's steps, as ties: ``steps(corpus, limit, rule, end_of_word)``."""


def bpe_ties(corpus: Corpus, limit: int, rule: str, end_of_word: str) -> Iterator[Tie]:
    """BPE's steps: pairs tie on their count."""
    for step in train_steps(corpus, limit, tie_break=rule, end_of_word=end_of_word):
        yield Tie(step.number, met_order(step), f"occur {_times(step.count)}", step.pair)


def _first_tie(corpus: Corpus, rule: str, end_of_word: str, limit: int = 8,
               steps: TieSteps = bpe_ties) -> Optional[Tie]:
    """The first step of training ``corpus`` where the rule's pick differs from every other
    rule's pick on the same tied pairs."""
    for step in steps(corpus, limit, rule, end_of_word):
        if len(step.tied) < 2:
            continue
        picks = {other: order_tied(step.tied, other)[0] for other in TIE_BREAKS}
        if all(picks[other] != picks[rule] for other in TIE_BREAKS if other != rule):
            return step
    return None


WORKED_CORPORA: tuple[dict[str, int], ...] = (
    {"cat": 2, "cap": 2},
    {"zy": 1, "ab": 1},
    {"ba": 1, "ab": 1, "ca": 1},
    {"bca": 2, "abc": 2},
    {"cab": 1, "bac": 1, "abc": 1},
)


def _as_form(counts: dict[str, int], corpus_form: str) -> Corpus:
    if corpus_form == "word-counts":
        return dict(counts)
    return [" ".join(w for w, c in counts.items() for _ in range(c))]


def worked_tie(rule: str, corpus_form: str, end_of_word: str,
               steps: TieSteps = bpe_ties) -> Optional[tuple[Corpus, Tie]]:
    """A small corpus in ``corpus_form`` and the step where ``rule`` alone picks its pair,
    training with ``steps`` (BPE's by default)."""
    for counts in WORKED_CORPORA:
        corpus = _as_form(counts, corpus_form)
        step = _first_tie(corpus, rule, end_of_word, steps=steps)
        if step is not None:
            return corpus, step
    best: Optional[tuple[int, Corpus, Step]] = None
    for counts, _ in _random_corpora(seed=1, n=3000, alphabet="abcd"):
        size = sum(len(w) * c for w, c in counts.items())
        if best is not None and size >= best[0]:
            continue
        corpus = _as_form(counts, corpus_form)
        step = _first_tie(corpus, rule, end_of_word, steps=steps)
        if step is not None:
            best = (size + step.number, corpus, step)
    return None if best is None else (best[1], best[2])


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def tie_paragraph(exercise: Exercise, steps: TieSteps = bpe_ties, measure: str = "count",
                  python: Optional[str] = None) -> str:
    """The stub's tie rule: the rule in words, a worked tie computed by the family's own
    trainer (``steps``: BPE's, ties on ``measure``), and the rule in Python (``python``, else
    BPE's one-liner)."""
    conventions = exercise.conventions
    rule = conventions.tie_break
    text = (f"when several pairs share the highest {measure}, merge {DESCRIPTIONS[rule]} "
            f"(rule {rule!r}).")
    found = worked_tie(rule, conventions.corpus_form, conventions.end_of_word, steps)
    if found is not None:
        corpus, step = found
        before = ("at the first step" if step.number == 1 else f"at step {step.number}")
        tied = ", ".join(_pair(p) for p in step.tied)
        others = "; ".join(
            f"{other} would take {_pair(order_tied(step.tied, other)[0])}"
            for other in TIE_BREAKS if other != rule
        )
        text += (f" For example, training on {_words(corpus)}: {before} the pairs {tied} "
                 f"(in the order first met) all {step.shared}, and this rule merges "
                 f"{_pair(step.pair)} ({others}).")
    text += f" In Python: {python or PYTHON_RULES[rule]}."
    return text[0].upper() + text[1:]


# --------------------------------------------------------------------------- cases


def _random_corpora(seed: int, n: int, alphabet: str = "abc") -> Iterator[tuple[dict[str, int], int]]:
    rng = random.Random(seed)
    for _ in range(n):
        words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(2, 4)))
                 for _ in range(rng.randint(2, 4))]
        yield {word: rng.randint(1, 3) for word in dict.fromkeys(words)}, 0


def distinguishes(corpus: Corpus, num_merges: int, rule: str, end_of_word: str) -> set[str]:
    """The other rules whose merge list on ``corpus`` differs from ``rule``'s."""
    mine = train_bpe(corpus, num_merges, tie_break=rule, end_of_word=end_of_word)
    return {other for other in TIE_BREAKS if other != rule
            and train_bpe(corpus, num_merges, tie_break=other, end_of_word=end_of_word) != mine}


def tie_cases(corpus_form: str, end_of_word: str, count: int = 2, *, seed: int = 97,
              num_merges: int = 4) -> list[Corpus]:
    """``count`` small corpora on which the four tie rules learn four different merge lists."""
    found: list[Corpus] = []
    for counts, _ in _random_corpora(seed, 5000, alphabet="abcd"):
        corpus = _as_form(counts, corpus_form)
        lists = {tuple(train_bpe(corpus, num_merges, tie_break=r, end_of_word=end_of_word))
                 for r in TIE_BREAKS}
        if len(lists) == len(TIE_BREAKS) and corpus not in found:
            found.append(corpus)
            if len(found) == count:
                break
    return found


def undistinguished_rules(exercise: Exercise) -> list[str]:
    """The other tie rules no public case tells apart from the declared one."""
    conventions = exercise.conventions
    left = set(TIE_BREAKS) - {conventions.tie_break}
    for case in exercise.public_cases:
        left -= distinguishes(case.corpus, case.num_merges, conventions.tie_break,
                              conventions.end_of_word)
        if not left:
            break
    return [rule for rule in TIE_BREAKS if rule in left]


def corpus_yaml(corpus: Any) -> str:
    """A corpus as a one-line YAML flow value."""
    if isinstance(corpus, dict):
        return "{" + ", ".join(f"{w}: {c}" for w, c in corpus.items()) + "}"
    return "[" + ", ".join(f'"{text}"' for text in corpus) + "]"
