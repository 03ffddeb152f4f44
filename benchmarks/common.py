"""What every benchmark shares: the cache folder, timing, memory probes, number formats.

The method is the research note's (performance.md, section 1): one core, one
warm-up, then median [min..max] of five ``perf_counter`` repetitions; a cell
whose single run is predicted to exceed the cap is extrapolated and marked
``≈``. Memory is read from ``/proc/self/status`` so that no dependency
(psutil) is needed.
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000  # throughput is in MB/s of input, 1 MB = 10^6 B, as in the research note


@dataclass(frozen=True)
class Timing:
    """Seconds per repetition; ``extrapolated`` cells were predicted, not run."""

    samples: tuple[float, ...]
    extrapolated: bool = False

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        return min(self.samples)

    @property
    def high(self) -> float:
        return max(self.samples)

    def scaled(self, factor: float) -> Timing:
        """A linear extrapolation of this cell (the naive loop is linear in log size)."""
        return Timing(tuple(s * factor for s in self.samples), extrapolated=True)


def measure(run: Callable[[], object], repeat: int = 5, warmup: int = 1) -> Timing:
    """Median-of-``repeat`` timing after ``warmup`` untimed calls."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return Timing(tuple(samples))


def once(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def pin_one_core() -> str:
    """Pin this process (and the children it starts) to CPU 0, as the research note did."""
    try:
        os.sched_setaffinity(0, {0})
    except (AttributeError, OSError):
        return "not pinned"
    return "CPU 0"


def proc_status_mb(field: str) -> float:
    """A ``/proc/self/status`` memory field (VmRSS, VmHWM) in MB; 0.0 where there is no /proc."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024 / MB
    except OSError:
        pass
    return 0.0


def reset_peak_rss() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0), so a later peak belongs to what follows."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def fmt_seconds(seconds: float) -> str:
    """Three significant figures, in the unit that reads best."""
    if seconds < 1e-4:
        return f"{seconds * 1e6:.2g} µs" if seconds < 1e-5 else f"{seconds * 1e6:.0f} µs"
    if seconds < 1e-3:
        return f"{seconds * 1e3:.3f} ms"
    if seconds < 1.0:
        value = seconds * 1e3
        return f"{value:.2g} ms" if value < 10 else f"{value:.0f} ms"
    return f"{seconds:.2f} s" if seconds < 100 else f"{seconds:,.0f} s"


def fmt_timing(timing: Timing, spread: bool = True) -> str:
    """``17 ms [14 ms..20 ms]``, or ``≈843 s`` for an extrapolated cell."""
    if timing.extrapolated:
        return "≈" + fmt_seconds(timing.median)
    text = fmt_seconds(timing.median)
    if spread and len(timing.samples) > 1:
        text += f" [{fmt_seconds(timing.low)}..{fmt_seconds(timing.high)}]"
    return text


def fmt_ratio(ratio: float) -> str:
    if ratio >= 100:
        return f"{ratio:,.0f}×"
    return f"{ratio:.2g}×" if ratio < 10 else f"{ratio:.1f}×"


def fmt_size(size: int) -> str:
    """The log-size label used throughout (10KB, 1MB, 10MB, 100MB)."""
    if size >= MB:
        return f"{size // MB}MB"
    return f"{size // 1000}KB"


def machine() -> str:
    """One line for the report header: CPUs, Python, the core the run was pinned to."""
    cpus = os.cpu_count() or 0
    pinned = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    model = _cpu_model()
    return (
        f"{cpus} vCPU ({model}), Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, CPU affinity {pinned}"
    )


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table, ready to paste into docs/benchmarks.md."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def say(text: str = "") -> None:
    """Report to stdout immediately (runs are long; progress goes to stderr)."""
    print(text, flush=True)


def progress(text: str) -> None:
    print(f"  … {text}", file=sys.stderr, flush=True)
