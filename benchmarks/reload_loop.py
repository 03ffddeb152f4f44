"""Does a KB reload block the event loop? The loop's longest stall while one runs (issue 23).

``POST /api/v1/admin/reload`` runs ``Reloader`` in a worker thread
(``anyio.to_thread``); the thread still holds the GIL while Python code runs
and while a C call that does not release it runs. This runs the same work,
``prepare_kb`` on a KB folder (full load, lint, index, self-tests), in a
worker thread while the event loop wakes every millisecond, and reports how
late the loop woke: the median, p99 and the longest stall, beside the same
loop with no reload running. A stall is time every request waits.

    python -m benchmarks.reload_loop [--kb DIR] [--index-dir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import threading
import time
from pathlib import Path

from app.service.kb import prepare_kb

ROOT = Path(__file__).resolve().parents[1]
TICK = 0.001


async def stalls_while(work: threading.Event | None, seconds: float = 0.0) -> list[float]:
    """How late each 1 ms sleep woke, until ``work`` is set (or for ``seconds``)."""
    late: list[float] = []
    until = time.perf_counter() + seconds
    while (work is not None and not work.is_set()) or (
        work is None and time.perf_counter() < until
    ):
        began = time.perf_counter()
        await asyncio.sleep(TICK)
        late.append(time.perf_counter() - began - TICK)
    return late


def summary(name: str, late: list[float]) -> str:
    ordered = sorted(late)
    p99 = ordered[int(len(ordered) * 0.99)]
    return (
        f"{name:28} ticks {len(late):6}  median {1000 * statistics.median(late):6.2f} ms"
        f"  p99 {1000 * p99:7.2f} ms  longest {1000 * ordered[-1]:8.1f} ms"
    )


async def run(kb: Path, index_dir: Path) -> None:
    idle = await stalls_while(None, seconds=3.0)
    print(summary("no reload", idle), flush=True)
    done = threading.Event()

    def reload() -> None:
        try:
            began = time.perf_counter()
            prepared = prepare_kb(kb, index_dir=index_dir)
            state = "clean" if prepared.live else f"{len(prepared.errors)} error(s)"
            print(f"reload: {time.perf_counter() - began:.1f} s, {state}", flush=True)
        finally:
            done.set()

    watcher = asyncio.create_task(stalls_while(done))
    await asyncio.to_thread(reload)
    print(summary("during the reload", await watcher))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=Path, default=ROOT / "kb")
    parser.add_argument("--index-dir", type=Path, help="default: a fresh folder (full compile)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errkb-reload-") as scratch:
        asyncio.run(run(args.kb, args.index_dir or Path(scratch)))


if __name__ == "__main__":
    main()
