"""Results for people: a table (article, outcome, duration, reason), a summary, an exit status."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.verify.outcome import GOOD, Verification

REASON_WIDTH = 90


def table(verifications: Sequence[Verification]) -> str:
    """article, outcome, duration, reason: one row per run, aligned."""
    rows = [("ARTICLE", "OUTCOME", "DURATION", "REASON")]
    rows += [
        (v.article_id, v.outcome, f"{v.duration_s:.1f}s", _shorten(v.reason)) for v in verifications
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines)


def _shorten(text: str) -> str:
    return text if len(text) <= REASON_WIDTH else text[: REASON_WIDTH - 3] + "..."


def summary(verifications: Sequence[Verification]) -> str:
    counts: dict[str, int] = {}
    for v in verifications:
        counts[v.outcome] = counts.get(v.outcome, 0) + 1
    return ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "nothing run"


def all_good(verifications: Iterable[Verification]) -> bool:
    """Exit status 0: every run verified or unverifiable."""
    return all(v.outcome in GOOD for v in verifications)
