"""Does a bigger KB slow a match down? Today's code on today's KB beside the KB of an older commit.

Issue 19 grew the KB from 29 articles to many more and asked that matching
cost stay within 10% of the per-request figures of the 29-article KB (the
index is meant to be flat in N). Both KBs are compiled by the same code, so
the only difference is the KB; each input is matched against one index and
then the other, alternating which goes first, and the CPU time
(``time.process_time``) of each match is kept. The medians and their ratio
are printed per input:

- every labelled log of ``tests/data/logs`` (real-shaped tracebacks and job
  logs, 1-60 KB), summed per round: the per-request mix;
- the 10 KB job log of ``benchmarks.startup`` (the CLI's figure);
- the synthetic 1 MB and 10 MB logs of ``benchmarks.synth`` (the throughput
  figures; ``--sizes`` picks them).

    python -m benchmarks.kb_growth [--baseline e799ac0] [--rounds 9] [--sizes 1MB 10MB]

The baseline's ``kb/`` is taken with ``git archive`` into ``benchmarks/.cache``.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import tarfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.articles.load import load_kb
from app.matching.index import SignatureIndex, build_index
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import served
from benchmarks.common import CACHE, REPO
from benchmarks.startup import ten_kb_log
from benchmarks.synth_logs import LOG_SIZES, ensure_log

BASELINE = "e799ac0"  # the last commit with the 29 articles of issue 19's filing
OPTIONS = MatchOptions(lang="en", top_k=3)


@dataclass(frozen=True)
class Row:
    name: str
    before_s: float
    after_s: float

    @property
    def ratio(self) -> float:
        return self.after_s / self.before_s if self.before_s else float("nan")


def baseline_kb(commit: str) -> Path:
    """The ``kb/`` folder of ``commit``, extracted once into the cache."""
    folder = CACHE / f"kb-{commit}"
    if not (folder / "kb").is_dir():
        blob = subprocess.run(
            ["git", "archive", commit, "kb"], cwd=REPO, check=True, capture_output=True
        ).stdout
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(blob)) as archive:
            archive.extractall(folder, filter="data")
    return folder / "kb"


def index_of(root: Path) -> tuple[SignatureIndex, int]:
    loaded = load_kb(root)
    if loaded.errors:
        raise SystemExit(f"{root}: the KB does not load: {loaded.errors[0]}")
    articles = served(loaded.kb)
    return build_index(articles, loaded.kb.revision), len(articles)


def cpu(run: Callable[[], object]) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def _match_all(inputs: Sequence[bytes], index: SignatureIndex) -> None:
    for data in inputs:
        match_text(data, index, OPTIONS)


def side_by_side(
    inputs: Sequence[bytes], before: SignatureIndex, after: SignatureIndex, rounds: int
) -> tuple[float, float]:
    """Median CPU seconds per round (all of ``inputs``) on each index, interleaved."""
    for index in (before, after):  # one untimed round each: lazy DFAs, first-use caches
        for data in inputs:
            match_text(data, index, OPTIONS)
    times: dict[int, list[float]] = {0: [], 1: []}
    indexes = (before, after)
    for round_no in range(rounds):
        order = (0, 1) if round_no % 2 == 0 else (1, 0)
        for which in order:
            times[which].append(cpu(lambda i=indexes[which]: _match_all(inputs, i)))
    return statistics.median(times[0]), statistics.median(times[1])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default=BASELINE, help="commit whose kb/ is the baseline")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--sizes", nargs="*", default=["1MB", "10MB"], choices=list(LOG_SIZES))
    args = parser.parse_args(argv)

    before, n_before = index_of(baseline_kb(args.baseline))
    after, n_after = index_of(REPO / "kb")
    logs = sorted((REPO / "tests" / "data" / "logs").glob("*.log"))
    CACHE.mkdir(parents=True, exist_ok=True)
    inputs: list[tuple[str, list[bytes], int]] = [
        (
            f"labelled logs ({len(logs)}, one round = all)",
            [p.read_bytes() for p in logs],
            args.rounds,
        ),
        ("10 KB job log", [ten_kb_log(CACHE).read_bytes()], args.rounds),
    ]
    for size in args.sizes:
        rounds = max(3, args.rounds // 3) if LOG_SIZES[size] >= 10_000_000 else args.rounds
        inputs.append((f"synthetic {size} log", [ensure_log(LOG_SIZES[size]).read_bytes()], rounds))

    rows = [Row(name, *side_by_side(data, before, after, rounds)) for name, data, rounds in inputs]
    print(f"KB {args.baseline} ({n_before} articles) vs this tree's kb/ ({n_after} articles)")
    print(f"signatures: {len(before.signatures)} vs {len(after.signatures)}; CPU ms, median")
    print(f"| input | {n_before} articles | {n_after} articles | ratio |")
    print("|---|---|---|---|")
    for row in rows:
        cells = f"{row.before_s * 1e3:.2f} | {row.after_s * 1e3:.2f} | {row.ratio:.2f}×"
        print(f"| {row.name} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
