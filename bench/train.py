"""Benchmark: BPE training time and peak memory, the reference against published trainers.

Trains on real English text (``corpus6m.txt`` by default) for 100 / 1,000 / 10,000 merges with
the fast reference, the plain reference (only up to ``--plain-max-merges``, default 100: it
recounts every pair at each merge and needs minutes beyond that), HuggingFace ``tokenizers`` and
``subword-nmt`` when they are installed. Each run happens in a subprocess of its own, so its peak
RSS is its own; wall time covers reading the corpus and training, not interpreter start-up.

    python bench/train.py [--corpus FILE] [--merges 100,1000,10000] [--plain-max-merges 100]
                          [--trainers fast,plain,tokenizers,subword-nmt] [--repeat N]
                          [--baseline DIR]

``--baseline DIR`` adds a row for the fast reference of another checkout (``git archive COMMIT``
unpacked in DIR), measured in the same run; the runs of each merge count take turns.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the reference from this checkout, installed or not

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "corpus6m.txt"
TRAINERS = ("fast", "plain", "tokenizers", "subword-nmt")
BASELINE = "baseline"  # the fast reference of the checkout given as --baseline
REQUIRED_PACKAGE = {"tokenizers": "tokenizers", "subword-nmt": "subword_nmt"}


# -- what runs inside each subprocess ---------------------------------------------------------


def train_reference(module: str, corpus: Path, merges: int, fuse: bool) -> int:
    from reference import fast, plain

    trainer = {"fast": fast, "plain": plain, BASELINE: fast}[module]
    with corpus.open(encoding="utf-8") as lines:  # texts, read lazily line by line
        return len(trainer.train_bpe(lines, merges, fuse_end_of_word=fuse))


def train_tokenizers(corpus: Path, merges: int, alphabet: int) -> int:
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE(end_of_word_suffix="</w>"))
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=alphabet + merges,
        min_frequency=0,
        special_tokens=[],
        end_of_word_suffix="</w>",
        show_progress=False,
    )
    tokenizer.train([str(corpus)], trainer)
    return len(json.loads(tokenizer.to_str())["model"]["merges"])


def train_subword_nmt(corpus: Path, merges: int) -> int:
    import io

    from subword_nmt import learn_bpe

    learn_bpe.tqdm = lambda iterable, *args, **kwargs: iterable  # no progress bar
    codes = io.StringIO()
    with corpus.open(encoding="utf-8") as infile:
        learn_bpe.learn_bpe(infile, codes, merges, min_frequency=1)
    return len(codes.getvalue().splitlines()) - 1  # minus the '#version' header


def run_worker(args: argparse.Namespace) -> None:
    """Train once; print wall and CPU seconds (all threads) and the merges learned as JSON."""
    if args.worker == BASELINE:
        sys.path.insert(0, str(args.baseline.resolve()))  # that checkout's reference, before this one's
    start, cpu_start = time.perf_counter(), time.process_time()
    if args.worker in ("fast", "plain", BASELINE):
        learned = train_reference(
            args.worker, args.corpus, args.worker_merges, args.fuse_end_of_word
        )
    elif args.worker == "tokenizers":
        learned = train_tokenizers(args.corpus, args.worker_merges, args.alphabet)
    else:
        learned = train_subword_nmt(args.corpus, args.worker_merges)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu_seconds, "merges": learned}))


# -- the parent: one subprocess per run, then the table -----------------------------------------


@dataclass
class Run:
    trainer: str
    merges: int
    learned: int
    seconds: float
    cpu_seconds: float
    peak_mb: float


def measure(trainer: str, merges: int, args: argparse.Namespace, alphabet: int) -> Run:
    """Run one training in a fresh interpreter; peak RSS comes from that child's own rusage."""
    command = [
        sys.executable, str(Path(__file__).resolve()), "--corpus", str(args.corpus),
        "--worker", trainer, "--worker-merges", str(merges), "--alphabet", str(alphabet),
    ]
    if args.fuse_end_of_word:
        command.append("--fuse-end-of-word")
    if trainer == BASELINE:
        command += ["--baseline", str(args.baseline)]
    with tempfile.TemporaryFile(mode="w+") as errors:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
        with process.stdout:
            stdout = process.stdout.read()
        # Reap the child here rather than in Popen.wait, to get its own resource usage.
        _pid, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode:
            errors.seek(0)
            raise SystemExit(f"{trainer} with {merges} merges failed:\n{errors.read().strip()}")
    result = json.loads(stdout.strip().splitlines()[-1])
    return Run(
        trainer, merges, result["merges"], result["seconds"], result["cpu_seconds"],
        usage.ru_maxrss / 1024,
    )


def best_of(runs: list[Run]) -> Run:
    """Each figure the lowest of the runs (timings only get worse with noise)."""
    fastest = min(runs, key=lambda run: run.seconds)
    fastest.cpu_seconds = min(run.cpu_seconds for run in runs)
    fastest.peak_mb = min(run.peak_mb for run in runs)
    return fastest


def tokenizers_alphabet(corpus: Path) -> int:
    """Initial vocabulary of ``tokenizers`` with an end-of-word suffix: the characters, plus
    each word-final character with the suffix glued on."""
    characters: set[str] = set()
    finals: set[str] = set()
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            for word in line.split():
                characters.update(word)
                finals.add(word[-1])
    return len(characters) + len(finals)


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def available(trainer: str) -> bool:
    package = REQUIRED_PACKAGE.get(trainer)
    return package is None or importlib.util.find_spec(package) is not None


def _ratio(value: float, reference: float | None) -> str:
    return f"{value / reference:.2f}" if reference else "-"


def format_table(runs: list[Run]) -> str:
    """One row per run; the last three columns divide by the fast reference's row."""
    fast = {run.merges: run for run in runs if run.trainer == "fast"}
    names = (
        "trainer", "merges", "learned", "wall s", "cpu s", "peak MB", "x wall", "x cpu", "x MB"
    )
    widths = (-12, 7, 8, 8, 8, 8, 7, 7, 7)  # negative: left-aligned

    def row(cells) -> str:
        return " ".join(
            f"{cell:<{-width}}" if width < 0 else f"{cell:>{width}}"
            for cell, width in zip(cells, widths)
        )

    lines = [row(names)]
    lines.append("-" * len(lines[0]))
    for run in runs:
        base = fast.get(run.merges)
        lines.append(row((
            run.trainer, f"{run.merges:,}", f"{run.learned:,}", f"{run.seconds:.2f}",
            f"{run.cpu_seconds:.2f}", f"{run.peak_mb:.0f}",
            _ratio(run.seconds, base and base.seconds),
            _ratio(run.cpu_seconds, base and base.cpu_seconds),
            _ratio(run.peak_mb, base and base.peak_mb),
        )))
    return "\n".join(lines)


def parse_merges(text: str) -> list[int]:
    try:
        counts = [int(part.replace("_", "")) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"want comma-separated ints, got {text!r}") from None
    if not counts or any(count < 0 for count in counts):
        raise argparse.ArgumentTypeError(f"want non-negative ints, got {text!r}")
    return counts


def parse_trainers(text: str) -> list[str]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [name for name in names if name not in TRAINERS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown trainer(s) {', '.join(unknown) or '(none)'}; "
            f"choose from {', '.join(TRAINERS)}"
        )
    return names


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="UTF-8 text file")
    parser.add_argument("--merges", type=parse_merges, default=[100, 1000, 10000])
    parser.add_argument(
        "--plain-max-merges", type=int, default=100,
        help="run the plain reference only up to this many merges (default 100)",
    )
    parser.add_argument("--trainers", type=parse_trainers, default=list(TRAINERS))
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell; the fastest counts")
    parser.add_argument(
        "--fuse-end-of-word", action="store_true",
        help="reference: glue the marker onto the last character, as the peers do",
    )
    parser.add_argument(
        "--baseline", type=Path, metavar="DIR",
        help="also train the fast reference of the checkout in DIR, in the same run",
    )
    parser.add_argument("--worker", choices=TRAINERS + (BASELINE,), help=argparse.SUPPRESS)
    parser.add_argument("--worker-merges", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--alphabet", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        parser.error(f"corpus {args.corpus} is not a readable file")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.baseline and not (args.baseline / "reference" / "fast.py").is_file():
        parser.error(f"--baseline {args.baseline} holds no reference/fast.py")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.worker:
        run_worker(args)
        return
    trainers = [name for name in args.trainers if available(name)]
    for name in sorted(set(args.trainers) - set(trainers)):
        print(f"skipping {name}: not installed (pip install '.[bench]')", file=sys.stderr)
    alphabet = tokenizers_alphabet(args.corpus) if "tokenizers" in trainers else 0
    if args.baseline:
        trainers.insert(trainers.index("fast") + 1 if "fast" in trainers else 0, BASELINE)
    print(f"corpus: {args.corpus} ({args.corpus.stat().st_size:,} bytes); "
          f"plain up to {args.plain_max_merges:,} merges"
          + (f"; baseline: the fast reference of {args.baseline}" if args.baseline else "")
          + f"; load average {load_average()} before", flush=True)
    runs = []
    for merges in args.merges:
        measured = [name for name in trainers
                    if not (name == "plain" and merges > args.plain_max_merges)]
        tries: dict[str, list[Run]] = {name: [] for name in measured}
        for _ in range(args.repeat):  # the trainers take turns, so drift hits them alike
            for trainer in measured:
                tries[trainer].append(measure(trainer, merges, args, alphabet))
        for trainer in measured:
            runs.append(best_of(tries[trainer]))
            print(f"  {trainer} {merges:,}: {runs[-1].seconds:.2f} s", file=sys.stderr, flush=True)
    print(format_table(runs))
    print(f"load average {load_average()} after")


if __name__ == "__main__":
    main()
