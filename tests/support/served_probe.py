"""Run a hostile test file against served implementations and print what happened, as JSON:
how the platform tests try served functions in each environment (as root, as an ordinary
user, in the simulated containers).

    python served_probe.py [--container-like] TEST_FILE '[["spy", ["{needles}"]], ...]'
    probe(test_file, calls, container_like=False)     # the same, in this process

The implementations are the reference's ``train_bpe`` and ``encode``, wrapped in functions
whose closure holds a secret that is also in this process's environment; the catalogue of
mistakes is imported, so its text is in this process's memory too. ``{needles}`` in the
arguments becomes the reversed needles (the secret and a line of each source) and
``{paths}`` the source files on disk. Each call gets the implementations afresh, in one
sandbox. ``--container-like``: without the namespaces and
cgroups, as in a default container on a cgroup-v2-only host (the dedicated uid, Landlock,
seccomp, rlimits and the fork server only). It prints, for each call,
``{"kind", "value", "error", "log"}``.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path

import grader.families.bpe.catalogue as catalogue
import reference.encoding
import reference.plain
from grader.sandbox import Sandbox, SandboxLimits, Served


CONTAINER_LIKE = {"network-namespace": False, "pid-namespace": False, "mount-isolation": False,
                  "pids-cgroup": False, "memory-cgroup": False}


def probe(test_file: str, calls: list, container_like: bool = False) -> list[dict]:
    """Make each ``[function, args]`` call of ``test_file`` in one sandbox, each with the
    implementations served afresh (module docstring); what each did."""
    secret = "served-secret-" + secrets.token_hex(8)
    os.environ["SERVED_PROBE_SECRET"] = secret
    sources = [Path(reference.plain.__file__), Path(catalogue.__file__),
               Path(reference.__file__)]
    needles = [secret, reference.plain.train_bpe.__doc__.strip(),
               catalogue.__doc__.splitlines()[0]]

    def train_bpe(corpus, num_merges):
        assert secret  # the closure holds the secret
        return reference.plain.train_bpe(corpus, num_merges)

    def encode(word, merges):
        assert secret
        return reference.encoding.encode(word, [tuple(pair) for pair in merges])

    wanted = {"{needles}": [needle[::-1] for needle in needles],
              "{paths}": [str(path.resolve()) for path in sources]}
    limits = SandboxLimits(call_seconds=20.0, memory_mib=512, total_seconds=120.0)
    results = []
    try:
        with Sandbox(test_file, limits, serves={"bpe": ["train_bpe", "encode"]}) as box:
            if container_like:
                box.layers = {**box.layers, **CONTAINER_LIKE}
            for function, args in calls:
                args = [wanted.get(arg, arg) if type(arg) is str else arg for arg in args]
                served = Served({"train_bpe": train_bpe, "encode": encode})
                outcome = box.call(function, args, served=served)
                log = [[call.function, call.args, call.answer, call.error]
                       for call in served.log()]
                results.append({"kind": outcome.kind, "value": outcome.value,
                                "error": outcome.error, "log": log})
    finally:
        del os.environ["SERVED_PROBE_SECRET"]
    return json.loads(json.dumps(results, default=repr))  # as JSON has them: tuples as lists


def main(argv: list[str]) -> None:
    container_like = "--container-like" in argv
    argv = [arg for arg in argv if arg != "--container-like"]
    print(json.dumps(probe(argv[1], json.loads(argv[2]), container_like)))


if __name__ == "__main__":
    main(sys.argv)
