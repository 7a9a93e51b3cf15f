"""Command: ``grade trace``, a training run (and optional encodings) printed step by step,
or with ``--html`` written as a page that steps through it (any family with a trace)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import click

from grader.commands.common import InputError, load, refuse_special_file, with_exit_codes
from reference import END_OF_WORD, TIE_BREAKS, BPEInputError
from reference.trace import parse_word_counts, render_trace

WORD_COUNT = re.compile(r"^\S+=\d+$")


MAX_CORPUS_BYTES = 1_000_000
"""A trace is read by people: a corpus file larger than this is refused before it is read."""


def _corpus_items(corpus: tuple[str, ...], corpus_file: Path | None, word_counts: bool) -> list[str]:
    """The corpus entries from the arguments or the file: texts, or WORD=COUNT items."""
    if corpus and corpus_file is not None:
        raise click.UsageError("give the corpus either as arguments or with --file, not both")
    if corpus_file is None:
        return list(corpus)
    refuse_special_file(corpus_file, "--file", "a text file of the corpus")
    try:
        size = corpus_file.stat().st_size
        if size > MAX_CORPUS_BYTES:
            raise click.BadParameter(
                f"{corpus_file} is {size:,} bytes; a trace prints every step for a corpus of at "
                f"most {MAX_CORPUS_BYTES:,} bytes (train on a larger one with the reference: "
                "reference.train_bpe)", param_hint="--file")
        content = corpus_file.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise click.BadParameter(f"{corpus_file} is not UTF-8 text", param_hint="--file") from None
    except OSError as error:
        raise click.BadParameter(f"cannot read {corpus_file}: {error.strerror}", param_hint="--file") from None
    return content.split() if word_counts else content.splitlines()


def _corpus(items: list[str], word_counts: bool) -> list[str] | dict[str, int]:
    if not items:
        raise click.UsageError(
            "no corpus given: pass texts (grade trace \"low low lower\" --merges 3), "
            "word counts (grade trace --word-counts low=5 lower=2 --merges 3) or --file PATH"
        )
    if not word_counts:
        looks_like_counts = [item for item in items if WORD_COUNT.match(item)]
        if looks_like_counts and len(looks_like_counts) == len(items):
            raise click.UsageError(
                f"{looks_like_counts[0]!r} looks like a WORD=COUNT entry, but without "
                "--word-counts every argument is a text to split on whitespace; add "
                "--word-counts, or quote a text such as \"low low lower\""
            )
        return items
    try:
        return parse_word_counts(items)
    except ValueError as error:
        raise click.UsageError(str(error)) from None


@dataclass(frozen=True)
class TraceConventions:
    """The conventions given on the command line, for a trace without ``--exercise``."""

    tie_break: str
    end_of_word: str


@dataclass(frozen=True)
class CommandLineExercise:
    """What the default family's trace reads of an exercise: its conventions."""

    id: str
    conventions: TraceConventions


def write_html(path: Path, exercise_ref: Optional[str], corpus: Any, size: int,
               tie_break: str, end_of_word: str) -> None:
    """The trace as one self-contained page, by the family of ``exercise_ref`` (its
    conventions), else by the default family with the command line's conventions."""
    from grader.report.html_report import render_trace_page
    from grader.spec.registry import default_family, family_named, family_of

    if exercise_ref is not None:
        exercise: Any = load(exercise_ref)
        family = family_of(exercise)
    else:
        exercise = CommandLineExercise("trace", TraceConventions(tie_break, end_of_word))
        family = family_named(default_family())
    if family.trace is None:
        raise InputError(f"the {family.name} family of {exercise.id} has no step-by-step trace")
    data = family.trace(exercise, corpus, size)
    title = f"Trace: {data.get('title', 'the reference run')}"
    if exercise_ref is not None:
        title += f" ({exercise.id})"
    try:
        path.write_text(render_trace_page(title, data), encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}") from None


@click.command("trace", epilog=with_exit_codes(""))
@click.argument("corpus", nargs=-1, metavar="[CORPUS]...")
@click.option("--merges", "num_merges", type=click.IntRange(min=0), required=True, metavar="N",
              help="How many merges to learn (fewer if the pairs run out).")
@click.option("--tie-break", type=click.Choice(TIE_BREAKS), default="lexicographic", show_default=True,
              help="Rule for pairs with equal counts.")
@click.option("--word-counts", is_flag=True,
              help="Read the corpus as WORD=COUNT entries (e.g. low=5 lower=2) instead of texts.")
@click.option("--file", "corpus_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Read the corpus from a UTF-8 file: one text per line, or WORD=COUNT entries "
                   "with --word-counts.")
@click.option("--encode", "encode_words", multiple=True, metavar="WORD",
              help="After training, show each merge step of encoding WORD (repeatable).")
@click.option("--end-of-word", default=END_OF_WORD, show_default=True,
              help="End-of-word marker appended to every word as a symbol of its own ('' for none).")
@click.option("--show-pairs", type=click.IntRange(min=0), default=10, show_default=True, metavar="N",
              help="List at most N pair counts per merge (0: all).")
@click.option("--show-words", type=click.IntRange(min=0), default=20, show_default=True, metavar="N",
              help="List at most N corpus words per merge (0: all).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), metavar="PATH",
              help="Write the trace as one self-contained HTML page that steps through it "
                   "(buttons and arrow keys) instead of printing it.")
@click.option("--exercise", "exercise_ref", metavar="ID|PATH",
              help="With --html: trace with this exercise's family and conventions (byte-level "
                   "BPE, WordPiece, a Unigram model's segmentation of the texts...).")
def trace(
    corpus: tuple[str, ...],
    num_merges: int,
    tie_break: str,
    word_counts: bool,
    corpus_file: Path | None,
    encode_words: tuple[str, ...],
    end_of_word: str,
    show_pairs: int,
    show_words: int,
    html_path: Path | None,
    exercise_ref: str | None,
) -> None:
    """Print BPE training step by step, as in the hand exercises.

    CORPUS is one or more texts, each split on whitespace; with --word-counts it is
    WORD=COUNT entries instead.

    \b
    Examples:
      grade trace "cat cat cat cat cap cap cap cap" --merges 4 --tie-break concatenated
      grade trace --word-counts low=5 lower=2 newest=6 widest=3 --merges 6 --tie-break first-seen
      grade trace --file corpus.txt --merges 10 --encode lowest --encode newer
      grade trace "low low lower newest" --merges 6 --html trace.html
      grade trace "low low lower newest" --merges 6 --html trace.html --exercise wordpiece
    """
    training_corpus = _corpus(_corpus_items(corpus, corpus_file, word_counts), word_counts)
    if exercise_ref is not None and html_path is None:
        raise click.UsageError("--exercise chooses the family of an HTML trace: add --html PATH")
    try:
        if html_path is not None:
            if html_path.exists():
                refuse_special_file(html_path, "--html", "a file to write the page to")
            write_html(html_path, exercise_ref, training_corpus, num_merges, tie_break, end_of_word)
            click.echo(f"wrote {html_path}")
            return
        text = render_trace(
            training_corpus,
            num_merges,
            tie_break=tie_break,
            end_of_word=end_of_word,
            encode_words=encode_words,
            show_pairs=show_pairs,
            show_words=show_words,
        )
    except BPEInputError as error:
        raise click.UsageError(str(error)) from None
    click.echo(text)
