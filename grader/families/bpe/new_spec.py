"""``grade new``: the YAML text of a new exercise whose every text follows its conventions.

The structure (functions, milestones, limits, case inputs) comes from a base exercise (the
shipped ``bpe-train-encode`` unless ``--from`` names another); every text that states a
convention (instructions, function docs, signatures) is written from the declared values, the
worked tie is left to the stub (which computes it), expected values are left to the reference,
and two public and two hidden cases are added on which the four tie rules learn four different
merge lists. The text is validated with :func:`parse_exercise` before it is returned.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from typing import Any, Optional

import yaml

from grader.families.bpe.prose import prose_problems, tie_cases
from grader.families.api import (
    Exercise,
    ID_PATTERN,
    NewSpecError,
    SpecError,
    load_exercise,
    parse_exercise,
)
from reference.tie_breaks import DESCRIPTIONS

DEFAULT_BASE = "bpe-train-encode"
MERGE_TYPES = {"pairs": "list[tuple[str, str]]",
               "pairs-with-token": "list[tuple[tuple[str, str], str]]"}
CORPUS_TYPES = {"texts": "list[str]", "word-counts": "dict[str, int]"}
GENERATED_CASE = re.compile(r"tie-rules-differ-\d+")
"""The ids of the cases :func:`new_spec_data` generates (a base written by ``grade new`` has them)."""
TIE_OUTCOME = re.compile(r"\b(wins?|won|picks?|picked|chosen|goes to)\b", re.IGNORECASE)
"""A case description saying which pair a tie rule picks: false once the rule changes."""


def convert_corpus(corpus: Any, corpus_form: str) -> Any:
    """A case's corpus in ``corpus_form``: texts become word counts in first-seen order, word
    counts become one text repeating each word."""
    if corpus_form == "word-counts":
        if isinstance(corpus, dict):
            return dict(corpus)
        counts: Counter[str] = Counter()
        for text in corpus:
            counts.update(text.split())
        return dict(counts)
    if isinstance(corpus, list):
        return list(corpus)
    return [" ".join(word for word, count in corpus.items() for _ in range(count))]


def _instructions(names: dict[str, str], corpus_form: str, marker: str, tie_break: str,
                  merge_form: str) -> str:
    start = (f"its characters followed by the end-of-word marker `{marker}` as a separate "
             "symbol" if marker else "its characters (there is no end-of-word marker)")
    corpus = ("a list of texts. Split every text on whitespace (`text.split()`) and count "
              "every word" if corpus_form == "texts" else
              "a dict mapping each word to how often it occurs")
    merges = ("`(left, right)` tuples" if merge_form == "pairs"
              else "`((left, right), left + right)` tuples")
    parts = []
    if "count_pairs" in names:
        parts.append(
            f"**Counting pairs.** `{names['count_pairs']}(vocab)` receives the vocabulary: each "
            "word as a tuple of symbols, mapped to how often the word occurs. Return every pair "
            "of adjacent symbols with its frequency: the sum, over the words, of the word's count "
            "times how often the pair occurs in it. Pairs never reach across two words.")
    if "merge_pair" in names:
        parts.append(
            f"**Merging one pair.** `{names['merge_pair']}(pair, vocab)` returns the vocabulary "
            "with the pair merged in every word: wherever its two symbols stand side by side, "
            "left to right and without overlaps, they become one symbol; each word keeps its "
            "count. Merge whole symbols only.")
    if "train" in names:
        parts.append(
            f"**Training.** `{names['train']}(corpus, num_merges)` receives {corpus}. Each word "
            f"starts as {start}. Count every pair of adjacent symbols, weighted by how often its "
            "word occurs, merge the most frequent pair everywhere it occurs (left to right, "
            "without overlaps), and recount. When several pairs share the highest count, merge "
            f"{DESCRIPTIONS[tie_break]}. Stop after `num_merges` merges, or earlier when no word "
            f"has two symbols left. Return the merges in the order learned, as {merges}.")
    if "encode" in names:
        parts.append(
            f"**Encoding.** `{names['encode']}(word, merges)` starts from the word as training "
            "does and repeatedly merges the adjacent pair learned earliest, until no adjacent "
            "pair is in the list. Characters never seen in training stay single tokens.")
    if "sequence_lengths" in names:
        parts.append(
            f"**Sequence lengths.** `{names['sequence_lengths']}(sentence, merges)` splits the "
            "sentence on whitespace and returns a dict with `char` (each word's characters"
            + (" plus one for the marker" if marker else "") + "), `bpe` (the number of tokens "
            "after encoding each word) and `word` (the number of words).")
    if "vocab_tradeoff" in names:
        parts.append(
            f"**Vocabulary-size trade-off.** `{names['vocab_tradeoff']}(corpus, sizes, d_model)` "
            "trains on the documents' word counts, in the order words first occur, with `size - "
            "base` merges for each size (base: the distinct characters"
            + (" plus the marker" if marker else "") + "), and returns one dict per size: "
            "`size`, `avg_tokens` (tokens over the number of documents) and `params` "
            "(`size * d_model`).")
    return "\n\n".join(textwrap.fill(part, 88) for part in parts) + "\n"


def _docs(names: dict[str, str], corpus_form: str, marker: str, tie_break: str,
          merge_form: str) -> dict[str, dict[str, str]]:
    merges_type = MERGE_TYPES[merge_form]
    corpus = ("a list of texts split on whitespace" if corpus_form == "texts"
              else "a dict mapping each word to its count")
    start = f'the word\'s characters plus "{marker}"' if marker else "the word's characters"
    own = f'its characters plus "{marker}"' if marker else "its characters"
    vocab_type = "dict[tuple[str, ...], int]"
    docs = {
        "count_pairs": (
            f"{names.get('count_pairs')}(vocab: {vocab_type}) -> dict[tuple[str, str], int]",
            "Count every adjacent pair of symbols in vocab, weighted by each word's count.\n\n"
            + textwrap.fill("vocab maps a word, as a tuple of symbols, to its count; return a "
                            "dict mapping each adjacent pair (left, right) to its total count. "
                            "Do not modify vocab.", 88) + "\n"),
        "merge_pair": (
            f"{names.get('merge_pair')}(pair: tuple[str, str], vocab: {vocab_type}) -> {vocab_type}",
            "Merge pair everywhere in vocab and return the new vocabulary.\n\n" + textwrap.fill(
                "In every word, each occurrence of the two symbols side by side, left to right "
                "and without overlaps, becomes one symbol; each word keeps its count. Do not "
                "modify vocab.", 88) + "\n"),
        "train": (f"{names.get('train')}(corpus: {CORPUS_TYPES[corpus_form]}, num_merges: int) "
                  f"-> {merges_type}",
                  f"Learn up to num_merges merges from corpus, {corpus}.\n\n" + textwrap.fill(
                      f"Each word starts as {own}; pair counts are weighted by word "
                      f"frequency; ties go to {DESCRIPTIONS[tie_break]}. Stop early when no "
                      "pair is left.", 88) + "\n"),
        "encode": (f"{names.get('encode')}(word: str, merges: {merges_type}) -> list[str]",
                   "Split word into tokens with the merges learned by training.\n\n" + textwrap.fill(
                       f"Start from {start} and repeatedly apply the adjacent pair learned "
                       "earliest until none applies.", 88) + "\n"),
        "sequence_lengths": (
            f"{names.get('sequence_lengths')}(sentence: str, merges: {merges_type}) -> dict[str, int]",
            'Count the tokens of sentence (split on whitespace) three ways: "char", "bpe" and '
            '"word".\n'),
        "vocab_tradeoff": (
            f"{names.get('vocab_tradeoff')}(corpus: list[str], sizes: list[int], d_model: int) "
            "-> list[dict]",
            'One {"size", "avg_tokens", "params"} per size: tokens per document after size - '
            "base merges, and size * d_model.\n"),
    }
    unknown = sorted(role for role in names if role not in docs)
    if unknown:
        raise NewSpecError(f"grade new cannot write the text of the function(s) for "
                           f"{', '.join(unknown)}: start from an exercise without them, or copy "
                           "the spec (grade show --hidden) and edit it")
    return {role: {"name": names[role], "signature": docs[role][0], "doc": docs[role][1]}
            for role in names}


class _Dumper(yaml.SafeDumper):
    """Multi-line strings as ``|`` blocks; mappings of the top two levels in block style."""

    def represent_mapping(self, tag, mapping, flow_style=None):  # type: ignore[override]
        node = super().represent_mapping(tag, mapping, flow_style)
        if any(key in mapping for key in ("corpus_form", "train", "encode", "name")):
            node.flow_style = False
        return node


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def new_spec_data(exercise_id: str, *, tie_break: Optional[str] = None,
                  corpus_form: Optional[str] = None, base: Optional[Exercise] = None) -> dict:
    """The new spec as plain data (see the module docstring)."""
    if not re.match(ID_PATTERN, exercise_id):
        raise NewSpecError(f"{exercise_id!r} is not an exercise id: use lower-case letters, "
                           "digits and hyphens, starting with a letter or digit")
    base = base or load_exercise(DEFAULT_BASE)
    conventions = base.conventions
    tie_break = tie_break or conventions.tie_break
    corpus_form = corpus_form or conventions.corpus_form
    marker, merge_form = conventions.end_of_word, conventions.merge_form
    names = {role: spec.name for role, spec in base.roles().items()}
    roles = base.roles()
    cases = []
    generated = tie_cases(corpus_form, marker, count=4)
    for number, corpus in enumerate(generated, start=1):
        cases.append({"id": f"tie-rules-differ-{number}",  # GENERATED_CASE
                      "visibility": "public" if number <= 2 else "hidden",
                      "description": "the four tie rules learn four different merge lists here",
                      "corpus": corpus, "num_merges": 4})
        if "encode" in roles:
            word = "".join(sorted(set("".join(corpus if isinstance(corpus, dict) else
                                              " ".join(corpus).split()))))
            cases[-1]["encode"] = [{"word": word}]
    rule_changed = tie_break != conventions.tie_break
    for case in base.cases:
        if GENERATED_CASE.fullmatch(case.id):
            continue  # a spec grade new wrote: its tie cases are generated anew above
        item: dict[str, Any] = {"id": case.id, "visibility": case.visibility}
        if case.description and not (rule_changed and TIE_OUTCOME.search(case.description)):
            item["description"] = case.description  # not one saying which pair the old rule picks
        item["corpus"] = convert_corpus(case.corpus, corpus_form)
        item["num_merges"] = case.num_merges
        if case.encode and "encode" in roles:
            item["encode"] = [{"word": e.word} for e in case.encode]
        if case.sentence is not None and "sequence_lengths" in roles:
            item["sentence"] = case.sentence
        if case.tradeoff is not None and "vocab_tradeoff" in roles:
            item["tradeoff"] = case.tradeoff.model_dump(exclude={"rows"})
        cases.append(item)
    data: dict[str, Any] = {
        "id": exercise_id,
        "family": base.family,
        "title": base.title,  # reports show it beside the id: no need to repeat the id
        "lesson": "Your course",
        "student_file": base.student_file,
        "instructions": _instructions(names, corpus_form, marker, tie_break, merge_form),
    }
    if base.allowed_imports:
        data["allowed_imports"] = list(base.allowed_imports)
    data["conventions"] = {"corpus_form": corpus_form, "end_of_word": marker,
                           "tie_break": tie_break, "merge_form": merge_form,
                           "accept_lists_for_tuples": conventions.accept_lists_for_tuples}
    data["functions"] = _docs(names, corpus_form, marker, tie_break, merge_form)
    data["milestones"] = [m.model_dump() for m in base.milestones]
    for key in ("limits", "properties", "efficiency", "feedback"):
        data[key] = getattr(base, key).model_dump()
    data["cases"] = cases
    return data


def new_spec_text(exercise_id: str, *, tie_break: Optional[str] = None,
                  corpus_form: Optional[str] = None, base: Optional[Exercise] = None) -> str:
    """The new spec's YAML text, validated and free of prose contradictions."""
    data = new_spec_data(exercise_id, tie_break=tie_break, corpus_form=corpus_form, base=base)
    header = (f"# Written by `grade new {exercise_id}`. The stub states the tie rule with a "
              "worked tie computed by\n# the reference; expected values left out are computed. "
              "Run `grade check` after each edit.\n")
    text = header + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                              width=96, default_flow_style=None)
    try:
        exercise = parse_exercise(text, f"<new {exercise_id}>")
    except SpecError as error:  # a bug here, not the user's: say so plainly
        raise RuntimeError(f"grade new wrote an invalid spec:\n{error}") from None
    problems = prose_problems(exercise)
    if problems:
        raise RuntimeError(f"grade new wrote contradictory prose: {problems}")
    return text
