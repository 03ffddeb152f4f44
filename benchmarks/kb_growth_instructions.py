"""``kb_growth`` in instructions: the same comparison, unmoved by a shared machine's load.

CPU time on two shared vCPUs swung by a third between identical runs of
``benchmarks.kb_growth`` (issue 19), too much to tell 1.07x from 1.17x. Valgrind
counts the instructions a process executes (user space), whatever its
neighbours do. Each input is matched ``k`` times against one serialised
index in a fresh process under ``valgrind --tool=callgrind``, once with
``k = 0`` (start-up, index load, one warm-up match) and once with ``k``; the
difference over ``k`` is one round's instructions. Both indexes are built by
this tree's code: the KB of the baseline commit and ``kb/``.

    python -m benchmarks.kb_growth_instructions [--baseline e799ac0] [--inputs mix 10KB 1MB 10MB]

Needs ``valgrind`` on PATH; about 50x slower than the match itself.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from app.matching.index import dump_index, load_index
from app.matching.pipeline import match_text
from benchmarks.common import CACHE, REPO
from benchmarks.kb_growth import BASELINE, OPTIONS, baseline_kb, index_of
from benchmarks.startup import ten_kb_log
from benchmarks.synth_logs import LOG_SIZES, ensure_log

ROUNDS = {"mix": 2, "10KB": 3, "1MB": 2, "10MB": 1}  # enough rounds to dwarf the warm-up
COLLECTED = re.compile(rb"Collected : (\d+)")


def inputs_of(name: str) -> list[bytes]:
    """``mix``: the labelled logs of ``tests/data/logs``; ``10KB``: the CLI's job log; or a size."""
    if name == "mix":
        return [p.read_bytes() for p in sorted((REPO / "tests" / "data" / "logs").glob("*.log"))]
    if name == "10KB":
        return [ten_kb_log(CACHE).read_bytes()]
    return [ensure_log(LOG_SIZES[name]).read_bytes()]


def run_matches(index_file: Path, revision: str, name: str, rounds: int) -> None:
    """The child: load the index, one warm-up round, then ``rounds`` rounds of ``name``."""
    index = load_index(index_file.read_bytes(), revision)
    inputs = inputs_of(name)
    for _ in range(rounds + 1):
        for data in inputs:
            match_text(data, index, OPTIONS)


def instructions(index_file: Path, revision: str, name: str, rounds: int) -> int:
    """Instructions of one child process under callgrind."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "benchmarks.kb_growth_instructions",
        "--child",
        str(index_file),
        revision,
        name,
        str(rounds),
    ]
    done = subprocess.run(command, cwd=REPO, capture_output=True, check=True)
    found = COLLECTED.search(done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind: {done.stderr[-500:]!r}")
    return int(found.group(1))


def per_round(index_file: Path, revision: str, name: str) -> float:
    rounds = ROUNDS[name]
    more = instructions(index_file, revision, name, rounds)
    base = instructions(index_file, revision, name, 0)
    return (more - base) / rounds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=BASELINE)
    parser.add_argument("--inputs", nargs="*", default=list(ROUNDS), choices=list(ROUNDS))
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        index_file, revision, name, rounds = args.child
        run_matches(Path(index_file), revision, name, int(rounds))
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on PATH")
    CACHE.mkdir(parents=True, exist_ok=True)
    sides = []
    for label, root in (("baseline", baseline_kb(args.baseline)), ("kb", REPO / "kb")):
        index, served = index_of(root)
        path = CACHE / f"growth-{label}.idx"
        path.write_bytes(dump_index(index))
        sides.append((path, index.revision, served, len(index.signatures)))
    (before, rev_before, n_before, s_before), (after, rev_after, n_after, s_after) = sides
    print(f"KB {args.baseline} ({n_before} articles, {s_before} signatures) vs kb/ ", end="")
    print(f"({n_after} articles, {s_after} signatures); instructions per round (callgrind)")
    print(f"| input | {n_before} articles | {n_after} articles | ratio |")
    print("|---|---|---|---|")
    for name in args.inputs:
        old = per_round(before, rev_before, name)
        new = per_round(after, rev_after, name)
        print(f"| {name} | {old / 1e6:.1f} M | {new / 1e6:.1f} M | {new / old:.3f}× |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
