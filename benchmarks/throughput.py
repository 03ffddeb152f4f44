"""Throughput of the matching engine against the naive ``re`` loop (performance.md, goals P1-P7).

For each KB size N and log size: the regex stage (``index.scan`` over the
bytes), the whole in-process ``match_text`` (its top match must be the OOM
article) and the naive baseline (every regex as a compiled Python ``re``
pattern, ``search``ed over the decoded log; a cell predicted to exceed
``--cap`` seconds is extrapolated linearly and marked ``≈``), all on the same
bytes in the same run. Fresh subprocesses (``probes.py``) measure the index
build, its load, the first match after a load and the peak RSS of a whole
match; ``fuzzcost.py`` times the fuzzy step per event.

    python -m benchmarks.throughput --quick     # N <= 1,000, logs <= 10 MB: ~20 s
    python -m benchmarks.throughput             # everything: ~2 min on 2 vCPUs
    python -m benchmarks.throughput --report benchmarks/.cache/throughput-full.json
    python -m benchmarks.throughput --kb real -n 1000 10000   # real-shaped KBs (issue 23)
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import io
import json
import os
import pstats
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.matching.index import SignatureIndex
from app.matching.pipeline import match_text
from benchmarks.common import CACHE, REPO, Timing, machine, measure, once, pin_one_core, progress
from benchmarks.fuzzcost import fuzzy_costs
from benchmarks.probes import load_cached
from benchmarks.results import Cell, Results, load, save
from benchmarks.synth import KB_KIND_VARIABLE, KB_SIZES, LOG_SIZES, ensure_log
from benchmarks.throughput_report import report

QUICK_NS = (10, 100, 1_000)
QUICK_SIZES = ("10KB", "1MB", "10MB")
SCAN_ONLY_NS = (100,)  # N=100 is there for the growth ratio (P5): regex stage only
FIRST_SIZES = (10_000, 10_000_000)  # first match after a load vs warm (P6)
FIRST_RUNS = 3  # fresh processes per size: one first call each is a noisy sample
PEAK_SIZES = (10_000_000, 100_000_000)  # peak RSS of a whole match (P4)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="N <= 1,000 and logs <= 10 MB")
    parser.add_argument("-n", type=int, nargs="*", help=f"KB sizes (default {KB_SIZES})")
    parser.add_argument("--sizes", nargs="*", choices=list(LOG_SIZES), help="log sizes")
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions per cell")
    parser.add_argument("--cap", type=float, default=5.0, help="naive: extrapolate beyond (s)")
    parser.add_argument("--skip-build", action="store_true", help="reuse cached indexes")
    parser.add_argument("--profile", action="store_true", help="cProfile the largest match")
    parser.add_argument("--json", type=Path, help="save the results here (default .cache/)")
    parser.add_argument("--report", type=Path, help="only print the report of a saved run")
    parser.add_argument(
        "--kb", choices=("synth", "real"), default="synth", help="real: real-shaped articles"
    )
    args = parser.parse_args(argv)
    os.environ[KB_KIND_VARIABLE] = args.kb  # the probes (fresh processes) read it too
    names = args.sizes or (QUICK_SIZES if args.quick else list(LOG_SIZES))
    args.ns = sorted(args.n or (QUICK_NS if args.quick else KB_SIZES))
    args.size_list = sorted(LOG_SIZES[name] for name in names)
    args.mode = "quick" if args.quick else ("custom" if args.n or args.sizes else "full")
    return args


def run_probe(*words: object) -> dict[str, Any]:
    """Run one probe in a fresh interpreter (pinned like this one); its last line is JSON."""
    command = [sys.executable, "-m", "benchmarks.probes", *map(str, words)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"probe {words} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def reusable(n: int) -> bool:
    """A cached index that this errkb can still load (its format changes with the code)."""
    try:
        load_cached(n)
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return True


def first_match(n: int, size: int) -> dict[str, Any]:
    """FIRST_RUNS fresh processes: the median first call against all their warm calls."""
    runs = [run_probe("first", n, size) for _ in range(FIRST_RUNS)]
    firsts = [run["first_s"] for run in runs]
    warm = [sample for run in runs for sample in run["warm"]]
    return {
        "n": n,
        "size": size,
        "first_s": statistics.median(firsts),
        "firsts": firsts,
        "warm": warm,
    }


class Naive:
    """The baseline: one compiled ``re`` per signature, each searched over the whole text."""

    def __init__(self, index: SignatureIndex) -> None:
        self.signatures = index.signatures
        self.patterns: list[re.Pattern[str]] = []
        self.compile_s = once(self._compile)

    def _compile(self) -> None:
        self.patterns = [re.compile(s.pattern) for s in self.signatures]

    def __call__(self, text: str) -> frozenset[int]:
        return frozenset(sid for sid, p in enumerate(self.patterns) if p.search(text))

    def error_articles(self, sids: frozenset[int]) -> set[str]:
        return {self.signatures[s].article_id for s in sids if self.signatures[s].kind == "error"}


class Run:
    """One benchmark run: its options, the loaded indexes and what it measured."""

    def __init__(self, args: argparse.Namespace, results: Results) -> None:
        self.args = args
        self.results = results
        self.indexes: dict[int, SignatureIndex] = {}
        self.naives: dict[int, Naive] = {}

    def prepare_indexes(self) -> None:
        """Build (fresh process, measured) or reuse each N's serialised index, then load it."""
        for n in self.args.ns:
            if not (self.args.skip_build and reusable(n)):
                progress(f"building the index of N={n:,} (fresh process)")
                self.results.builds[n] = run_probe("build", n)
            progress(f"loading the index of N={n:,} (fresh process, then here)")
            self.results.loads[n] = run_probe("load", n)
            index = self.indexes[n] = load_cached(n)
            errors = sum(1 for s in index.signatures if s.kind == "error")
            self.results.kb[n] = {
                "articles": len(index.articles),
                "regexes": len(index.signatures),
                "error_regexes": errors,
            }

    def naive_for(self, n: int) -> Naive | None:
        """The naive matcher of N, compiled once; None for the scan-only sizes."""
        if n in SCAN_ONLY_NS and n != max(self.args.ns):
            return None
        if n not in self.naives:
            self.naives[n] = Naive(self.indexes[n])
            self.results.naive_compile_s[n] = self.naives[n].compile_s
        return self.naives[n]

    def run_grid(self) -> None:
        """Log sizes outer, N inner: one log in memory at a time; naive cells extrapolate upward."""
        for size in self.args.size_list:
            data = ensure_log(size).read_bytes()
            text = data.decode("utf-8", "replace")
            self.results.logs[size] = {"bytes": len(data), "lines": data.count(b"\n")}
            for n in self.args.ns:
                progress(f"N={n:,}, log of {size:,} B")
                cell = Cell(n, size)
                self.results.cells.append(cell)
                self.measure_cell(cell, data, text)

    def measure_cell(self, cell: Cell, data: bytes, text: str) -> None:
        """Regex stage, whole match and naive loop of one cell, on the same bytes."""
        index, repeat = self.indexes[cell.n], self.args.repeat
        cell.scan = measure(lambda: index.scan(data), repeat=repeat)
        naive = self.naive_for(cell.n)
        if naive is None:
            return
        result = match_text(data, index)  # the warm-up, kept for the check
        cell.top = result.top.article_id if result.top else None
        cell.whole = measure(lambda: match_text(data, index), repeat=repeat, warmup=0)
        predicted = self.predict_naive(cell.n, cell.size)
        if predicted is not None and predicted.median > self.args.cap:
            cell.naive = predicted
            return
        hits = naive(text)  # the warm-up, kept for the check
        cell.naive_agrees = naive.error_articles(hits) == naive.error_articles(index.scan(data))
        cell.naive = measure(lambda: naive(text), repeat=repeat, warmup=0)

    def predict_naive(self, n: int, size: int) -> Timing | None:
        """Linear extrapolation from the largest measured size at N, else from a smaller N."""
        measured = [c for c in self.results.cells if c.naive and not c.naive.extrapolated]
        same_n = [c for c in measured if c.n == n and c.size < size]
        if same_n:
            base = max(same_n, key=lambda c: c.size)
            return base.naive.scaled(size / base.size) if base.naive else None
        same_size = [c for c in measured if c.size == size and c.n < n]
        if not same_size:
            return None
        base = max(same_size, key=lambda c: c.n)
        factor = self.results.kb[n]["regexes"] / self.results.kb[base.n]["regexes"]
        return base.naive.scaled(factor) if base.naive else None

    def run_probes(self) -> None:
        """First match after a load, and peak RSS, at the largest N (fresh processes)."""
        n = max(self.args.ns)
        for size in (s for s in FIRST_SIZES if s in self.args.size_list):
            progress(f"first match after a load: N={n:,}, log of {size:,} B")
            self.results.first.append(first_match(n, size))
        for size in (s for s in PEAK_SIZES if s in self.args.size_list):
            progress(f"peak RSS: N={n:,}, log of {size:,} B")
            self.results.peaks.append(run_probe("peak", n, size))

    def profile_largest(self) -> str:
        """cProfile of one whole match of the largest log at the largest N, after a warm-up."""
        index = self.indexes[max(self.args.ns)]
        data = ensure_log(max(self.args.size_list)).read_bytes()
        match_text(data, index)
        profiler = cProfile.Profile()
        profiler.runcall(match_text, data, index)
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out).strip_dirs()
        stats.sort_stats("tottime").print_stats(15)
        stats.sort_stats("cumulative").print_stats(25)
        return out.getvalue()


def measure_all(args: argparse.Namespace, argv: Sequence[str]) -> Results:
    started = time.perf_counter()
    pinned = pin_one_core()
    results = Results(
        mode=args.mode,
        command=" ".join(["python -m benchmarks.throughput", *argv]),
        date=datetime.date.today().isoformat(),
        machine=machine(),
        ns=args.ns,
        sizes=args.size_list,
    )
    progress(f"pinned to {pinned}; N = {args.ns}; logs of {args.size_list} B")
    run = Run(args, results)
    run.prepare_indexes()
    run.run_grid()
    run.run_probes()
    progress("fuzzy cost per event")
    results.fuzzy = fuzzy_costs(run.indexes[max(args.ns)], ensure_log(10_000).read_bytes())
    if args.profile:
        progress("profiling the largest whole match")
        results.profile = run.profile_largest()
    results.wall_s = time.perf_counter() - started
    return results


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = parse(words)
    if args.report:
        print(report(load(args.report)))
        return 0
    results = measure_all(args, words)
    save(results, args.json or CACHE / f"throughput-{args.mode}.json")
    print(report(results), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
