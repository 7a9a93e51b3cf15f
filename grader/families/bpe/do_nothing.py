"""Do-nothing implementations: what a submission returns without solving anything.

Four kinds, each defined for every role, written once as source and used two ways: as
student files that ``grade audit`` grades (none may earn a point), and, run on the trusted
side, to tell which right answers a do-nothing implementation also gives (such a case is not
evidence of work, :mod:`grader.families.bpe.evidence`).

- ``empty``: no merges, no tokens, zero counts, no pairs, no rows;
- ``constant``: the same answer whatever the input;
- ``identity``: nothing learned, nothing merged: the bare characters (and the marker), counts
  with ``bpe`` equal to ``char``, the words as they were, character-level averages;
- ``echo``: the input handed back: the first word's adjacent characters as merges (no
  counting), the word as one token, every word one token, each word's first pair with its
  count, the pair as the only word, every word one token in the averages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from string import Template
from typing import Any

from grader.families.api import Exercise

_BODIES: dict[str, dict[str, str]] = {
    "empty": {
        "train": "return []",
        "encode": "return []",
        "sequence_lengths": 'return {"char": 0, "bpe": 0, "word": 0}',
        "count_pairs": "return {}",
        "merge_pair": "return {}",
        "vocab_tradeoff": "return []",
    },
    "constant": {
        "train": 'return _form([("a", "b")])',
        "encode": 'return ["a"]',
        "sequence_lengths": 'return {"char": 1, "bpe": 1, "word": 1}',
        "count_pairs": 'return {("a", "b"): 1}',
        "merge_pair": 'return {("a", "b"): 1}',
        "vocab_tradeoff": 'return [{"size": 1, "avg_tokens": 1.0, "params": 1}]',
    },
    "identity": {
        "train": "return []",
        "encode": "return list(word) + _MARK",
        "sequence_lengths": (
            "words = sentence.split()\n"
            "    chars = sum(len(w) + len(_MARK) for w in words)\n"
            '    return {"char": chars, "bpe": chars, "word": len(words)}'
        ),
        "count_pairs": "return {}",
        "merge_pair": "return dict(words)",
        "vocab_tradeoff": (
            "words = [w for text in corpus for w in text.split()]\n"
            "    chars = sum(len(w) + len(_MARK) for w in words)\n"
            '    return [{"size": s, "avg_tokens": chars / len(corpus), "params": s * d_model} '
            "for s in sizes]"
        ),
    },
    "echo": {
        "train": (
            "words = list(corpus) if isinstance(corpus, dict) else "
            "[w for text in corpus for w in text.split()]\n"
            "    symbols = list(words[0]) + _MARK if words else []\n"
            "    return _form(list(zip(symbols, symbols[1:]))[:num_merges])"
        ),
        "encode": 'return [word + "".join(_MARK)]',
        "sequence_lengths": (
            "words = sentence.split()\n"
            '    return {"char": len(words), "bpe": len(words), "word": len(words)}'
        ),
        "count_pairs": "return {tuple(s[:2]): n for s, n in words.items() if len(s) > 1}",
        "merge_pair": "return {tuple(pair): sum(words.values())}",
        "vocab_tradeoff": (
            "words = [w for text in corpus for w in text.split()]\n"
            '    return [{"size": s, "avg_tokens": len(words) / len(corpus), "params": s * d_model} '
            "for s in sizes]"
        ),
    },
}

_PARAMETERS = {"train": "corpus, num_merges", "encode": "word, merges",
               "sequence_lengths": "sentence, merges", "count_pairs": "words",
               "merge_pair": "pair, words", "vocab_tradeoff": "corpus, sizes, d_model"}

_HELPERS = Template('''_MARK = [$eow] if $eow else []


def _form(pairs):
    return [$item for a, b in pairs]
''')


def _helpers(exercise: Exercise, with_token: bool) -> str:
    item = "((a, b), a + b)" if with_token else "(a, b)"
    return _HELPERS.substitute(eow=repr(exercise.conventions.end_of_word), item=item)


@dataclass(frozen=True)
class DoNothing:
    """Do-nothing implementations of a family's roles, written as source once.

    ``bodies[kind][role]`` is the body of that kind's function for ``role`` and
    ``parameters[role]`` its parameter list; every body may use the helpers ``_MARK`` (the
    end-of-word marker as a list of zero or one token) and ``_form(pairs)`` (merges in the
    exercise's merge form). A family that builds on this one writes its own tables.
    """

    bodies: Mapping[str, Mapping[str, str]]
    parameters: Mapping[str, str]
    _compiled: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(self.bodies)

    def kinds_for(self, exercise: Exercise) -> tuple[str, ...]:
        """The do-nothing kinds there are for ``exercise``: all of them when every function
        it asks for is a role written here, else none."""
        return self.kinds if all(role in self.parameters for role in exercise.roles()) else ()

    def function(self, name: str, role: str, kind: str) -> str:
        return f"def {name}({self.parameters[role]}):\n    {self.bodies[kind][role]}\n"

    def source(self, exercise: Exercise, kind: str) -> str:
        """A student file of ``kind`` for ``exercise``: every function does nothing that way."""
        with_token = exercise.conventions.merge_form == "pairs-with-token"
        parts = [f'# exercise: {exercise.id}\n"""A do-nothing submission ({kind})."""\n',
                 _helpers(exercise, with_token)]
        for role in exercise.roles():
            parts.append(self.function(exercise.function(role).name, role, kind))
        return "\n\n".join(parts)

    def sources(self, exercise: Exercise) -> dict[str, str]:
        """Kind -> the source of that do-nothing submission, for every kind there is."""
        return {kind: self.source(exercise, kind) for kind in self.kinds_for(exercise)}

    def answer(self, exercise: Exercise, kind: str, role: str, *inputs: Any) -> Any:
        """What the ``kind`` implementation of ``role`` returns on ``inputs``, merges as bare
        pairs. This runs the grader's own source, in the trusted process, never a student's."""
        key = (kind, role, exercise.conventions.end_of_word)
        if key not in self._compiled:
            namespace: dict[str, Any] = {}
            program = _helpers(exercise, False) + "\n\n" + self.function("run", role, kind)
            exec(program, namespace)  # noqa: S102
            self._compiled[key] = namespace["run"]
        return self._compiled[key](*inputs)


CHARACTER_BPE = DoNothing(_BODIES, _PARAMETERS)
KINDS = CHARACTER_BPE.kinds
kinds_for = CHARACTER_BPE.kinds_for
source = CHARACTER_BPE.source
sources = CHARACTER_BPE.sources
answer = CHARACTER_BPE.answer
