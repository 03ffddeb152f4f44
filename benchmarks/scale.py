"""The index at 1,000 and 10,000 real-shaped articles: compile, reuse, memory, first match.

For each N, on ``real_shaped_articles(N)`` (today's articles, then clones with
their own words): the cold build as errkb now builds it (shards compiled in
parallel into an empty store), the rebuild after one article changed (its
shard alone recompiles), optionally (``--single``) one database over every
pattern as before, the serialised size and, in fresh processes, the load
(time and RSS growth: the index's memory), the first 10 KB match after load
and ``warm_up`` against the warm median, and the regex stage of the 10 KB and
10 MB logs (issue 23). CPU seconds (``*_cpu_s``) are reported beside wall
seconds: on a shared machine the wall clock says more about the neighbours.

    python -m benchmarks.scale [-n 1000 10000] [--single]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import proc_status_mb
from benchmarks.synth import LOG_SIZES, ensure_log

FIRST_RUNS = 3


def _cpu() -> float:
    return time.process_time()  # user + system, every thread of this process


def timed(action: Any) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds of this process, all threads)."""
    wall, cpu = time.perf_counter(), _cpu()
    result = action()
    return result, time.perf_counter() - wall, _cpu() - cpu


class MemoryStore:
    """The ``CompiledStore`` the service keeps on disk, in memory; counts what it compiled."""

    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.compiled = 0

    def get(self, key: str) -> bytes | None:
        return self.blobs.get(key)

    def put(self, key: str, blob: bytes) -> None:
        self.compiled += 1
        self.blobs[key] = blob


def build(n: int, single: bool, folder: Path) -> dict[str, Any]:
    """Cold sharded build, one-article rebuild, optional single database; saves the index."""
    from app.matching import scanners
    from app.matching.index import build_index, dump_index
    from benchmarks.real_shaped import clone_data, real_shaped_articles

    articles = real_shaped_articles(n)
    patterns = sum(len(list(a.signatures.all_patterns())) for a in articles)
    store = MemoryStore()
    index, wall, cpu = timed(lambda: build_index(articles, f"real-{n}", store=store))
    figures: dict[str, Any] = {
        "n": n,
        "patterns": patterns,
        "shards": scanners.shard_count(patterns),
        "cores": os.cpu_count(),
        "build_s": wall,
        "build_cpu_s": cpu,
    }
    changed = list(articles)
    edited = clone_data(changed[-1].model_dump(mode="json"), changed[-1].id, n + 1)
    changed[-1] = type(changed[-1]).model_validate(dict(edited, id=changed[-1].id))
    before = store.compiled
    _, wall, cpu = timed(lambda: build_index(changed, f"real-{n}-edited", store=store))
    figures |= {"rebuild_s": wall, "rebuild_cpu_s": cpu, "recompiled": store.compiled - before}
    if single:  # one database over every pattern, as before shards
        shard_patterns, scanners.SHARD_PATTERNS = scanners.SHARD_PATTERNS, 10**9
        try:
            whole, wall, cpu = timed(lambda: build_index(articles, f"real-{n}"))
        finally:
            scanners.SHARD_PATTERNS = shard_patterns
        figures |= {"single_build_s": wall, "single_build_cpu_s": cpu}
        (folder / f"index-{n}-single.idx").write_bytes(dump_index(whole))
    blob = dump_index(index)
    (folder / f"index-{n}.idx").write_bytes(blob)
    figures["serialised_mb"] = len(blob) / 1e6
    return figures


def probe(path: Path, revision: str) -> dict[str, Any]:
    """In a fresh process: load (time, RSS growth), first match after warm_up vs warm, scans.

    The warm-up is the service's: the fixed line, then the repository KB's
    example logs that ``warm_samples`` picks (the clones' are the same logs
    with other words); its CPU time is reported as ``warm_up_cpu_s``.
    """
    from app.articles.load import load_kb
    from app.matching.index import load_index
    from app.matching.pipeline import match_text, warm_up
    from app.service.warm_samples import warm_samples
    from benchmarks.real_shaped import REPO

    samples = warm_samples(load_kb(REPO / "kb").kb)
    blob = path.read_bytes()
    before = proc_status_mb("VmRSS")
    index, load_s, load_cpu = timed(lambda: load_index(blob, revision))
    grown = proc_status_mb("VmRSS") - before
    _, _, warm_cpu = timed(lambda: warm_up(index, samples))
    small = ensure_log(LOG_SIZES["10KB"]).read_bytes()
    _, first, first_cpu = timed(lambda: match_text(small, index))
    warm = [timed(lambda: match_text(small, index)) for _ in range(7)]
    big = ensure_log(LOG_SIZES["10MB"]).read_bytes()
    scan_small = [timed(lambda: index.scan(small)) for _ in range(7)]
    scan_big = [timed(lambda: index.scan(big)) for _ in range(3)]
    return {
        "load_s": load_s,
        "load_cpu_s": load_cpu,
        "index_rss_mb": grown,
        "warm_up_cpu_s": warm_cpu,
        "first_s": first,
        "first_cpu_s": first_cpu,
        "warm_s": statistics.median(run[1] for run in warm),
        "warm_cpu_s": statistics.median(run[2] for run in warm),
        "scan_10KB_s": statistics.median(run[1] for run in scan_small),
        "scan_10KB_cpu_s": statistics.median(run[2] for run in scan_small),
        "scan_10MB_s": statistics.median(run[1] for run in scan_big),
        "scan_10MB_cpu_s": statistics.median(run[2] for run in scan_big),
    }


def fresh_probe(path: Path, revision: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.scale", "--probe", str(path), revision]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"probe failed: {done.stderr[-2000:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, nargs="*", default=[1_000, 10_000])
    parser.add_argument("--single", action="store_true", help="also one database (slow)")
    parser.add_argument("--probe", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe(Path(args.probe[0]), args.probe[1])))
        return
    with tempfile.TemporaryDirectory(prefix="errkb-scale-") as scratch:
        for n in args.n:
            figures = build(n, args.single, Path(scratch))
            path = Path(scratch) / f"index-{n}.idx"
            runs = [fresh_probe(path, f"real-{n}") for _ in range(FIRST_RUNS)]
            for key in runs[0]:
                figures[key] = statistics.median(run[key] for run in runs)
            single = Path(scratch) / f"index-{n}-single.idx"
            if single.is_file():
                runs = [fresh_probe(single, f"real-{n}") for _ in range(FIRST_RUNS)]
                for key in runs[0]:
                    figures[f"single_{key}"] = statistics.median(run[key] for run in runs)
            figures["first_vs_warm"] = figures["first_s"] / figures["warm_s"]
            figures["first_vs_warm_cpu"] = figures["first_cpu_s"] / figures["warm_cpu_s"]
            print(json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
