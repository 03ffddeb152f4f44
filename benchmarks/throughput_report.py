"""The Markdown report of a throughput run (the goal verdicts are in ``goals.py``).

Every ratio to the naive loop is computed from cells of the same run: the
research note's figures are never mixed in, because the machine is shared
and its speed drifts between runs.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from benchmarks.common import MB, Timing, fmt_ratio, fmt_seconds, fmt_size, fmt_timing, table
from benchmarks.goals import goals_table
from benchmarks.results import Cell, Results
from benchmarks.vocab import EXPECTED_HITS, EXPECTED_TOP


def _median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def _spread(samples: Sequence[float]) -> str:
    return fmt_timing(Timing(tuple(samples)))


def _mbps(size: int, timing: Timing | None) -> str:
    if timing is None:
        return "–"
    rate = size / MB / timing.median
    text = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
    return ("≈" if timing.extrapolated else "") + text


def _ratio(naive: Timing | None, other: Timing | None) -> str:
    if naive is None or other is None:
        return "–"
    mark = "≈" if naive.extrapolated else ""
    return mark + fmt_ratio(naive.median / other.median)


def header(r: Results) -> str:
    kb_rows = [
        [f"{n:,}", f"{k['articles']:,}", f"{k['regexes']:,}", f"{k['error_regexes']:,}"]
        for n, k in sorted(r.kb.items())
    ]
    log_rows = [
        [fmt_size(s), f"{v['bytes']:,}", f"{v['lines']:,}"] for s, v in sorted(r.logs.items())
    ]
    return "\n".join(
        [
            f"## Throughput: {r.mode} run, {r.date}",
            "",
            f"Command: `{r.command}` (from the repository root, `.venv/bin/python`).  ",
            f"Machine: {r.machine}. Wall time of the run: {r.wall_s / 60:.1f} min.  ",
            "Method: 1 warm-up, then median [min..max] of the timed repetitions, in process; "
            "`≈` = extrapolated linearly (a single run was predicted above the cap); "
            "× naive = naive time ÷ this time, both measured in this run.",
            "",
            table(["N (articles)", "articles", "regexes (all kinds)", "error regexes"], kb_rows),
            "",
            table(["log", "bytes", "lines"], log_rows),
        ]
    )


def headline(r: Results) -> str:
    n = max(r.ns)
    rows = []
    for size in r.sizes:
        c = r.cell(n, size)
        if c is None:
            continue
        rows.append(
            [
                fmt_size(size),
                fmt_timing(c.scan) if c.scan else "–",
                _mbps(size, c.scan),
                fmt_timing(c.whole) if c.whole else "–",
                _mbps(size, c.whole),
                fmt_timing(c.naive) if c.naive else "–",
                _ratio(c.naive, c.scan),
                _ratio(c.naive, c.whole),
                _top(c),
            ]
        )
    head = [
        "log",
        "regex stage",
        "MB/s",
        "whole match",
        "MB/s",
        "naive `re` loop",
        "regex × naive",
        "whole × naive",
        "top match",
    ]
    return f"### Headline: N = {n:,} articles ({r.kb[n]['regexes']:,} regexes)\n\n" + table(
        head, rows
    )


def _top(cell: Cell) -> str:
    if cell.top is None:
        return "–" if cell.whole is None else "**nothing** (expected " + EXPECTED_TOP + ")"
    return cell.top if cell.top == EXPECTED_TOP else f"**{cell.top}** (expected {EXPECTED_TOP})"


def grid(r: Results, title: str, pick: Callable[[Cell], Timing | None]) -> str:
    rows = []
    for size in r.sizes:
        cells = [r.cell(n, size) for n in r.ns]
        rows.append(
            [fmt_size(size)] + [fmt_timing(t) if c and (t := pick(c)) else "–" for c in cells]
        )
    return f"### {title}\n\n" + table(["log"] + [f"N={n:,}" for n in r.ns], rows)


def ratio_grid(r: Results) -> str:
    rows = []
    for size in r.sizes:
        row = [fmt_size(size)]
        for n in r.ns:
            c = r.cell(n, size)
            row.append(
                f"{_ratio(c.naive, c.scan)} / {_ratio(c.naive, c.whole)}" if c and c.naive else "–"
            )
        rows.append(row)
    title = "### × naive loop (regex stage / whole match), same run"
    return f"{title}\n\n" + table(["log"] + [f"N={n:,}" for n in r.ns], rows)


def build_table(r: Results) -> str:
    rows = []
    for n in r.ns:
        b, load = r.builds.get(n), r.loads.get(n)
        load_median = _median(load["samples"]) if load else None
        ratio = fmt_ratio(b["build_s"] / load_median) if b and load_median else "–"
        rows.append(
            [
                f"{n:,}",
                f"{r.kb[n]['regexes']:,}",
                fmt_seconds(b["build_s"]) if b else "cached",
                f"{b['rss_growth_mb']:.0f} MB" if b else "–",
                f"{b['peak_mb']:.0f} MB" if b else "–",
                f"{b['serialised_mb']:.2f} MB" if b else "–",
                fmt_seconds(load["first_s"]) if load else "–",
                _spread(load["samples"]) if load else "–",
                f"{load['rss_growth_mb']:.0f} MB" if load else "–",
                ratio,
                fmt_seconds(r.naive_compile_s[n]) if n in r.naive_compile_s else "–",
            ]
        )
    head = [
        "N",
        "regexes",
        "build (1 run)",
        "RSS growth",
        "peak RSS",
        "serialised",
        "first load",
        "load, 5 more",
        "RSS after load",
        "build ÷ load",
        "naive: compile `re`",
    ]
    note = (
        "Fresh process per N (`benchmarks/probes.py`): the build is `build_index` of the "
        "generated articles (Hyperscan compile plus normalised fuzzy texts), RSS growth is "
        "VmRSS after minus before; peak RSS is the process's VmHWM."
    )
    return "### Index build, serialised size, load\n\n" + note + "\n\n" + table(head, rows)


def first_table(r: Results) -> str:
    rows = [
        [
            f"{p['n']:,}",
            fmt_size(p["size"]),
            _spread(p.get("firsts", [p["first_s"]])),
            _spread(p["warm"]),
            fmt_ratio(p["first_s"] / _median(p["warm"])),
        ]
        for p in r.first
    ]
    head = [
        "N",
        "log",
        "first match after load_index",
        "warm (the next 10 in each)",
        "first ÷ warm",
    ]
    note = (
        "Three fresh processes per log: each loads the index, times its first `match_text`, "
        "then 10 more; the ratio is the median first over the median warm call."
    )
    return "### First match after a load\n\n" + note + "\n\n" + table(head, rows)


def peak_table(r: Results) -> str:
    rows = [
        [
            f"{p['n']:,}",
            fmt_size(p["size"]),
            f"{p['rss_before_mb']:.0f} MB",
            f"{p['peak_mb']:.0f} MB",
            f"{p['growth_mb']:.0f} MB",
            f"{p['growth_mb'] * MB / p['size']:.2f}×",
            str(p["top"]),
        ]
        for p in r.peaks
    ]
    head = [
        "N",
        "log",
        "RSS before reading the log",
        "peak (VmHWM)",
        "peak − before",
        "(peak − before) ÷ body",
        "top",
    ]
    note = (
        "Fresh process: load the index, read VmRSS, reset VmHWM (`/proc/self/clear_refs`), "
        "read the log and match it once; the growth includes the body itself."
    )
    return "### Peak memory of one whole match\n\n" + note + "\n\n" + table(head, rows)


def fuzzy_table(r: Results) -> str:
    events = [f for f in r.fuzzy if "event" in f]
    inputs = [f for f in r.fuzzy if "input" in f]
    rows = [
        [f["event"] + (" (top match's event)" if f["matched"] else "")]
        + [
            f"{_spread(f[k]['samples'])} ({f[k]['candidates']})"
            for k in ("regex_only", "pipeline", "exception_only")
        ]
        for f in events
    ]
    head = [
        "event of the 10 KB log",
        "regex candidates only",
        "pipeline's candidates",
        "exception type only (no regex hit)",
    ]
    one = [[f["input"], _spread(f["samples"]), str(f["top"])] for f in inputs]
    return "\n\n".join(
        [
            f"### Fuzzy cost per event at N = {max(r.ns):,} (candidates in brackets)",
            table(head, rows),
            table(["whole `match_text` of a one-event input", "per call", "top"], one),
        ]
    )


def report(r: Results) -> str:
    parts = [
        header(r),
        headline(r),
        grid(r, "Regex stage: `index.scan(bytes)`", lambda c: c.scan),
        grid(r, "Whole match: `match_text(bytes, index)`", lambda c: c.whole),
        grid(
            r,
            "Naive loop: compiled `re` patterns `search`ed over the decoded log",
            lambda c: c.naive,
        ),
        ratio_grid(r),
        build_table(r),
    ]
    parts += [first_table(r)] if r.first else []
    parts += [peak_table(r)] if r.peaks else []
    parts += [fuzzy_table(r)] if r.fuzzy else []
    parts += [checks(r), goals_table(r)]
    if r.profile:
        parts.append(
            "### cProfile of the largest whole match\n\n```\n" + r.profile.strip() + "\n```"
        )
    return "\n\n".join(parts) + "\n"


def checks(r: Results) -> str:
    """Say whether every cell did the same work: the right top match, the same regex hits."""
    matched = [c for c in r.cells if c.whole]
    right = sum(1 for c in matched if c.top == EXPECTED_TOP)
    disagree = sum(1 for c in r.cells if c.naive_agrees is False)
    measured = sum(1 for c in r.cells if c.naive_agrees is not None)
    hits = ", ".join(sorted(EXPECTED_HITS))
    return (
        f"Checks: the whole match ranked `{EXPECTED_TOP}` first in {right} of {len(matched)} "
        f"cells; the naive loop agreed with the scan on the error articles hit ({hits}) in "
        f"{measured - disagree} of {measured} measured cells."
    )
