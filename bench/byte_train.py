"""Byte-level BPE training speed and memory: the byte-level reference (CS336's cost model, the
efficiency yardstick), the fast byte-level trainer, and HuggingFace ``tokenizers``' ByteLevel
BPE on one thread, side by side on the same text.

    python bench/byte_train.py [--corpus FILE] [--megabytes 5] [--vocab 10000] [--repeat 1]

Each trainer runs in a fresh process (``RAYON_NUM_THREADS=1`` for HF); the figures are its CPU
seconds, wall seconds and peak RSS, and each trainer's CPU as a ratio to HF's. The first
``--megabytes`` of the corpus are used, with ``<|endoftext|>`` as the special token. The
reference and the fast trainer must learn the same merges (checked).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "corpus6m.txt"
TRAINERS = ("reference", "fast", "hf")
EOT = "<|endoftext|>"


def run_worker(trainer: str, text_file: str, vocab: int) -> None:
    """In the child: train once and print what was learned (a digest of the merges)."""
    sys.path.insert(0, str(ROOT))
    text = Path(text_file).read_text(encoding="utf-8")
    if trainer == "hf":
        from tokenizers import Tokenizer, models, pre_tokenizers, trainers

        tokenizer = Tokenizer(models.BPE())
        tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        learner = trainers.BpeTrainer(vocab_size=vocab, special_tokens=[EOT], show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        tokenizer.train_from_iterator([text], trainer=learner)
        merges = json.loads(tokenizer.to_str())["model"]["merges"]
        print(json.dumps({"merges": len(merges), "rss_mib": _peak_mib()}))
        return
    if trainer == "reference":
        from reference.byte_level import train_byte_bpe as train
    else:
        from reference.byte_fast import train_byte_bpe_fast as train
    _, merges = train(text, vocab, [EOT])
    print(json.dumps({"merges": len(merges), "digest": hash(tuple(merges)) & 0xFFFFFFFF,
                      "rss_mib": _peak_mib()}))


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(trainer: str, text_file: str, vocab: int) -> dict:
    env = {**os.environ, "RAYON_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run([sys.executable, __file__, "--worker", trainer, "--text", text_file,
                           "--vocab", str(vocab)], capture_output=True, text=True, env=env,
                          check=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "wall": wall, **json.loads(done.stdout.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--megabytes", type=float, default=5.0)
    parser.add_argument("--vocab", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=1, help="runs per trainer; the fastest counts")
    parser.add_argument("--trainers", default=",".join(TRAINERS))
    parser.add_argument("--worker", choices=TRAINERS, help=argparse.SUPPRESS)
    parser.add_argument("--text", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        run_worker(args.worker, args.text, args.vocab)
        return
    unknown = [name for name in args.trainers.split(",") if name not in TRAINERS]
    if unknown:
        parser.error(f"unknown trainer {', '.join(unknown)}: choose among {', '.join(TRAINERS)}")
    raw = args.corpus.read_bytes()[: int(args.megabytes * 1e6)]
    text = raw.decode("utf-8", errors="ignore")
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".txt", delete=False) as out:
        out.write(text)
    try:
        print(f"corpus: first {len(raw):,} bytes of {args.corpus}; vocab {args.vocab}; "
              f"special token {EOT}; HF on 1 thread")
        results = {}
        for trainer in args.trainers.split(","):
            runs = [measure(trainer, out.name, args.vocab) for _ in range(args.repeat)]
            results[trainer] = min(runs, key=lambda run: run["cpu"])
        hf = results.get("hf")
        for trainer, run in results.items():
            ratio = f"{run['cpu'] / hf['cpu']:.2f}x HF CPU" if hf else ""
            print(f"{trainer:>9}: {run['cpu']:7.2f} CPU-s {run['wall']:7.2f} s wall "
                  f"{run['rss_mib']:7.0f} MiB peak  {run['merges']} merges  {ratio}")
        if "reference" in results and "fast" in results:
            same = results["reference"]["digest"] == results["fast"]["digest"]
            print("reference and fast learned the same merges:", "yes" if same else "NO")
    finally:
        os.unlink(out.name)


if __name__ == "__main__":
    main()
