"""What fixing glibc's mmap threshold (``app/service/allocator.py``) costs and saves, side by side.

Two ``errkb serve`` processes from this checkout on fresh SQLite files: one
as shipped (threshold fixed at 1 MiB), one with glibc's default left alone
(``GLIBC_TUNABLES`` set empty, which ``tune_malloc`` respects and glibc
ignores). Each round sends every size of gzip'd job log, made unique, to the
two servers in turn, the order swapped every other round, two at a time on
each server as the soak's big streams overlap; then, at rest, reads each
server's RSS. Printed: the median seconds a log per size and server, and RSS
after each round.

Usage: ``python -m benchmarks.allocator [--rounds 12]`` (127.0.0.1 only).
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

import httpx

from benchmarks.common import fmt_size, machine
from benchmarks.soak import KB, gzip_log, rss_mb
from tests.e2e.conftest import Server, start, stop

SIZES = (1_000_000, 5_000_000, 10_000_000, 50_000_000)
VARIANTS = {"fixed 1 MiB (shipped)": {}, "glibc default": {"GLIBC_TUNABLES": ""}}
HEADERS = {"Content-Encoding": "gzip", "Content-Type": "text/plain", "Accept": "application/json"}
SETTLE_S = 1.0


def post(server: Server, body: bytes, tag: int) -> float:
    """Seconds to answer one log, made unique by a second gzip member."""
    unique = body + gzip.compress(b"\nallocator benchmark %d %d\n" % (tag, time.time_ns()))
    started = time.perf_counter()
    response = httpx.post(
        server.url + "/api/v1/match", content=unique, headers=HEADERS, timeout=120
    )
    response.raise_for_status()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    logs = {size: gzip_log(size) for size in SIZES}
    seconds: dict[tuple[str, int], list[float]] = {}
    rss: dict[str, list[float]] = {name: [] for name in VARIANTS}
    with tempfile.TemporaryDirectory(prefix="errkb-allocator-") as scratch:
        servers: dict[str, Server] = {}
        try:
            for n, (name, env) in enumerate(VARIANTS.items()):
                workdir = Path(scratch) / str(n)
                workdir.mkdir()
                servers[name] = start(
                    f"sqlite:///{workdir / 'errkb.db'}",
                    workdir,
                    ERRKB_RATE_LIMIT_PER_MINUTE="0",
                    ERRKB_KB_PATH=str(KB),
                    **env,
                )
            for round_ in range(args.rounds):
                order = list(servers.items())
                order = order if round_ % 2 == 0 else order[::-1]
                for name, server in order:
                    for size, body in logs.items():
                        with ThreadPoolExecutor(2) as pool:
                            tags = (2 * round_, 2 * round_ + 1)
                            taken = list(pool.map(partial(post, server, body), tags))
                        seconds.setdefault((name, size), []).extend(taken)
                time.sleep(SETTLE_S)
                for name, server in servers.items():
                    rss[name].append(rss_mb(server.process.pid))
        finally:
            for server in servers.values():
                stop(server)
    print(f"{args.rounds} rounds, 2 uploads at once a size and server; {machine()}")
    print("| log (gzip'd) | " + " | ".join(f"{name}: median s" for name in VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    for size in SIZES:
        cells = [f"{statistics.median(seconds[(name, size)]):.3f}" for name in VARIANTS]
        print(f"| {fmt_size(size)} | " + " | ".join(cells) + " |")
    for name, readings in rss.items():
        print(f"RSS at rest after each round, {name}: " + " ".join(f"{mb:.0f}" for mb in readings))


if __name__ == "__main__":
    main()
