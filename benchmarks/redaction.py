"""Redaction throughput on big job logs (target A10): 50 MB in <= 1.5 s on one core,
time linear in size (100 MB <= 2.2 x 50 MB), peak memory <= 2 x the input.

Runs ``app.matching.redact.redact`` on the synthetic training logs of
``benchmarks/synth_logs.py`` (the same logs as the HTTP benchmark) with a
secret on every 500th line, so the rules fire as they would on a real log.
One process, best of three, peak RSS from ``resource``; nothing else runs.

    python -m benchmarks.redaction [--sizes 50 100]
"""

from __future__ import annotations

import argparse
import gc
import resource
import time

from app.matching.redact import redact
from benchmarks.synth_logs import ensure_log

MB = 1_000_000
SECRET = "export HF_TOKEN=hf_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI2k"


def with_secrets(text: str, every: int = 500) -> str:
    lines = text.split("\n")
    for index in range(0, len(lines), every):
        lines[index] = f"{lines[index]} {SECRET}"
    return "\n".join(lines)


def measure(size_mb: int) -> tuple[float, int, float]:
    """(best seconds of three, redactions, peak RSS growth over the input, x)."""
    text = with_secrets(ensure_log(size_mb * MB).read_text(encoding="utf-8"))
    gc.collect()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    best, found = float("inf"), 0
    for _ in range(3):
        started = time.perf_counter()
        result = redact(text)
        best = min(best, time.perf_counter() - started)
        found = len(result.redactions)
        del result
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    growth = max(0, peak - before) * 1024 / len(text.encode("utf-8"))
    return best, found, growth


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100], help="MB")
    args = parser.parse_args()
    times: dict[int, float] = {}
    for size in args.sizes:
        seconds, found, growth = measure(size)
        times[size] = seconds
        rate = size / seconds
        print(f"{size:>4} MB: {seconds:.2f} s ({rate:.0f} MB/s), {found} redactions, "
              f"peak RSS growth {growth:.2f}x the input")  # fmt: skip
    if 50 in times and 100 in times:
        print(f"100 MB / 50 MB time: {times[100] / times[50]:.2f}x (goal <= 2.2x)")


if __name__ == "__main__":
    main()
