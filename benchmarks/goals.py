"""The verdict on goals P1-P7 of performance.md section 9, from one throughput run.

Goals are stated at N = 10,000 regexes on one core; a run that stops at a
smaller N says so above the table. A goal is met when the measured median is
at or below its limit; extrapolated cells are never used for a verdict.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from benchmarks.common import MB, Timing, fmt_ratio, fmt_seconds, fmt_size, table
from benchmarks.results import Results

GOAL_N = 10_000


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


@dataclass(frozen=True)
class Goal:
    id: str
    text: str
    value: float | None  # measured
    limit: float
    shown: str

    def verdict(self) -> str:
        if self.value is None:
            return "not measured"
        if self.value <= self.limit:
            return f"**met** ({self.limit / self.value:.1f}× headroom)" if self.value else "**met**"
        return f"**missed** by {self.value / self.limit:.2f}×"


def goals_table(r: Results) -> str:
    n = max(r.ns)
    rows = [[g.id, g.text, g.shown, g.verdict()] for g in _goals(r, n)]
    caveat = f"This run stops at N = {n:,}; the goals are stated at 10,000.\n\n"
    return (
        "### Goals P1-P7 (performance.md section 9)\n\n"
        + (caveat if n < GOAL_N else "")
        + table(["goal", "target", "measured", "verdict"], rows)
    )


def _cell_median(r: Results, n: int, size: int, pick: str) -> float | None:
    c = r.cell(n, size)
    timing: Timing | None = getattr(c, pick) if c else None
    return timing.median if timing and not timing.extrapolated else None


def _shown(value: float | None) -> str:
    return fmt_seconds(value) if value is not None else "–"


def _goals(r: Results, n: int) -> list[Goal]:
    scan = {s: _cell_median(r, n, s, "scan") for s in (10_000, 10_000_000, 100_000_000)}
    whole = {s: _cell_median(r, n, s, "whole") for s in (10_000, 10_000_000, 100_000_000)}
    goals = [
        Goal("P1", "regex stage, 10 KB ≤ 0.5 ms", scan[10_000], 0.5e-3, _shown(scan[10_000])),
        Goal("P2", "regex stage, 10 MB ≤ 40 ms", scan[10_000_000], 40e-3, _shown(scan[10_000_000])),
        Goal(
            "P3", "regex stage, 100 MB ≤ 400 ms", scan[100_000_000], 0.4, _shown(scan[100_000_000])
        ),
        Goal("P4a", "whole match, 10 KB ≤ 5 ms", whole[10_000], 5e-3, _shown(whole[10_000])),
        Goal(
            "P4b", "whole match, 10 MB ≤ 150 ms", whole[10_000_000], 0.15, _shown(whole[10_000_000])
        ),
        Goal(
            "P4c",
            "whole match, 100 MB ≤ 1.5 s",
            whole[100_000_000],
            1.5,
            _shown(whole[100_000_000]),
        ),
    ]
    goals += _peak_goals(r) + _growth_goals(r, n) + _cold_goals(r, n) + _fuzzy_goals(r)
    return goals


def _peak_goals(r: Results) -> list[Goal]:
    return [
        Goal(
            f"P4 ({fmt_size(p['size'])})",
            "peak RSS of a whole match ≤ 4× the body",
            p["growth_mb"] * MB / p["size"],
            4.0,
            f"{p['growth_mb'] * MB / p['size']:.2f}×",
        )
        for p in r.peaks
    ]


def _growth_goals(r: Results, n: int) -> list[Goal]:
    small, big = _cell_median(r, 100, 10_000_000, "scan"), _cell_median(r, n, 10_000_000, "scan")
    growth = big / small if small and big and n > 100 else None
    shown = f"{_shown(small)} → {_shown(big)} = {growth:.2f}×" if growth else "–"
    goals = [Goal("P5", f"regex stage at 10 MB, N = 100 → {n:,} ≤ 1.5×", growth, 1.5, shown)]
    ten, hundred = _cell_median(r, n, 10_000_000, "scan"), _cell_median(r, n, 100_000_000, "scan")
    if ten and hundred:
        linear = hundred / (10 * ten)
        deviation = abs(linear - 1.0)
        goals.append(
            Goal(
                "P5",
                "regex stage linear in log size (10 → 100 MB) ±20 %",
                deviation,
                0.2,
                f"{_shown(ten)} ×10 vs {_shown(hundred)}: {linear:.2f}",
            )
        )
    return goals


def _cold_goals(r: Results, n: int) -> list[Goal]:
    goals = [
        Goal(
            f"P6 ({fmt_size(p['size'])})",
            "first match after a load ≤ 2× warm",
            p["first_s"] / _median(p["warm"]),
            2.0,
            fmt_ratio(p["first_s"] / _median(p["warm"])),
        )
        for p in r.first
    ]
    load: dict[str, Any] | None = r.loads.get(n)
    if load:
        goals.append(
            Goal("P6", "index load ≤ 0.5 s", load["first_s"], 0.5, _shown(load["first_s"]))
        )
    build = r.builds.get(n)
    if build:
        goals.append(
            Goal(
                "P6",
                f"full compile of N = {n:,} ≤ 30 s",
                build["build_s"],
                30.0,
                _shown(build["build_s"]),
            )
        )
    return goals


def _fuzzy_goals(r: Results) -> list[Goal]:
    events = [f for f in r.fuzzy if "event" in f]
    if not events:
        return []
    matched = [f for f in events if f["matched"]] or events
    with_regex = max(_median(f["pipeline"]["samples"]) for f in matched)
    without = max(_median(f["exception_only"]["samples"]) for f in events)
    return [
        Goal(
            "P7",
            "fuzzy ≤ 1 ms per event with regex candidates (pipeline's set)",
            with_regex,
            1e-3,
            _shown(with_regex),
        ),
        Goal("P7", "fuzzy ≤ 10 ms per event no signature matched", without, 10e-3, _shown(without)),
    ]
