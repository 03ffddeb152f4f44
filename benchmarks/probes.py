"""Measurements that need a fresh process: index build, load, first match, peak memory.

``throughput.py`` runs each probe as ``python -m benchmarks.probes <probe> ...``
so that RSS growth and VmHWM belong to that one job and no cache (RE2
programs, Hyperscan scratch, the marker database, ``by_exception``) is warm
from an earlier measurement. Each probe prints one JSON object on its last
line of stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import (
    CACHE,
    measure,
    once,
    pin_one_core,
    proc_status_mb,
    reset_peak_rss,
)

Probe = Callable[[argparse.Namespace], dict[str, Any]]


def index_path(n: int) -> Path:
    """Where the serialised index of the N-article synthetic KB is cached (keyed like errkb's)."""
    from app.matching.index import index_key
    from benchmarks.synth import kb_revision

    return CACHE / f"index-{index_key(kb_revision(n))}.idx"


def load_cached(n: int) -> Any:
    """The cached index of N articles (``probe_build`` must have written it)."""
    from app.matching.index import load_index
    from benchmarks.synth import kb_revision

    return load_index(index_path(n).read_bytes(), kb_revision(n))


def probe_build(args: argparse.Namespace) -> dict[str, Any]:
    """Build the index of N articles once, save it, and say what it cost."""
    from app.matching.index import build_index, dump_index
    from benchmarks.synth import kb_revision, synthetic_kb

    articles = synthetic_kb(args.n)
    before = proc_status_mb("VmRSS")
    index: Any = None

    def build() -> None:
        nonlocal index
        index = build_index(articles, kb_revision(args.n))

    seconds = once(build)
    after = proc_status_mb("VmRSS")
    blob = dump_index(index)
    CACHE.mkdir(parents=True, exist_ok=True)
    index_path(args.n).write_bytes(blob)
    return {
        "n": args.n,
        "regexes": len(index.signatures),
        "error_regexes": sum(1 for s in index.signatures if s.kind == "error"),
        "build_s": seconds,
        "rss_growth_mb": after - before,
        "peak_mb": proc_status_mb("VmHWM"),
        "serialised_mb": len(blob) / 1e6,
    }


def probe_load(args: argparse.Namespace) -> dict[str, Any]:
    """Load the serialised index in a fresh process: first load, then the median of five."""
    from app.matching.index import load_index
    from benchmarks.synth import kb_revision

    blob = index_path(args.n).read_bytes()
    revision = kb_revision(args.n)
    before = proc_status_mb("VmRSS")
    first = once(lambda: load_index(blob, revision))
    after = proc_status_mb("VmRSS")
    timing = measure(lambda: load_index(blob, revision), repeat=5, warmup=0)
    return {
        "n": args.n,
        "first_s": first,
        "samples": list(timing.samples),
        "rss_growth_mb": after - before,
    }


def probe_first(args: argparse.Namespace) -> dict[str, Any]:
    """The first ``match_text`` after a start against the warm median (goal P6: <= 2x).

    A start is what the service does: ``load_index`` then ``warm_up`` (app.service.kb), so
    the first real request pays no one-time set-up; the load is timed separately.
    """
    from app.matching.pipeline import match_text, warm_up
    from benchmarks.synth import ensure_log

    index = load_cached(args.n)
    warm_up(index)
    data = ensure_log(args.size).read_bytes()
    first = once(lambda: match_text(data, index))
    warm = measure(lambda: match_text(data, index), repeat=10, warmup=0)
    return {"n": args.n, "size": args.size, "first_s": first, "warm": list(warm.samples)}


def probe_peak(args: argparse.Namespace) -> dict[str, Any]:
    """Peak RSS of one whole match above the RSS before the log was read (P4: <= 4x the body)."""
    from app.matching.pipeline import match_text
    from benchmarks.synth import ensure_log

    index = load_cached(args.n)
    path = ensure_log(args.size)
    before = proc_status_mb("VmRSS")
    reset = reset_peak_rss()
    data = path.read_bytes()
    result = match_text(data, index)
    peak = proc_status_mb("VmHWM")
    return {
        "n": args.n,
        "size": args.size,
        "rss_before_mb": before,
        "peak_mb": peak,
        "growth_mb": peak - before,
        "hwm_reset": reset,
        "top": result.top.article_id if result.top else None,
    }


PROBES: dict[str, Probe] = {
    "build": probe_build,
    "load": probe_load,
    "first": probe_first,
    "peak": probe_peak,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("probe", choices=sorted(PROBES))
    parser.add_argument("n", type=int)
    parser.add_argument("size", type=int, nargs="?", default=0)
    args = parser.parse_args(argv)
    pin_one_core()
    print(json.dumps(PROBES[args.probe](args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
