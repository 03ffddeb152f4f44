"""Turn a stored view into what the templates draw: marked log rows, the per-rank table.

Highlighting inside a log line uses the evidence's own signatures, run with
RE2 (linear time: a pasted line can never make a pattern backtrack). The
templates escape every piece; nothing here builds HTML.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import re2

MAX_PATTERNS = 12
MARKED_KINDS = ("error", "context", "log-context")


@dataclass(frozen=True)
class Segment:
    text: str
    hit: bool = False


@dataclass(frozen=True)
class Row:
    """One log line: its number, its pieces, and how it matched (``error``, ``context``, "")."""

    number: int
    segments: tuple[Segment, ...]
    mark: str = ""
    gap_before: bool = False


@dataclass(frozen=True)
class RankRow:
    rank: int
    events: list[dict[str, Any]] = field(default_factory=list)


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    try:
        options = re2.Options()
        options.log_errors = False
        return re2.compile(pattern, options)
    except Exception:  # a signature RE2 cannot compile is simply not highlighted
        return None


def _segments(text: str, patterns: Sequence[str]) -> tuple[Segment, ...]:
    spans: list[tuple[int, int]] = []
    for pattern in patterns[:MAX_PATTERNS]:
        compiled = _compiled(pattern)
        if compiled is not None:
            spans += [m.span() for m in compiled.finditer(text) if m.end() > m.start()]
    if not spans:
        return (Segment(text),)
    pieces: list[Segment] = []
    last = 0
    for start, end in sorted(spans):
        if end <= last:
            continue
        start = max(start, last)
        if start > last:
            pieces.append(Segment(text[last:start]))
        pieces.append(Segment(text[start:end], hit=True))
        last = end
    if last < len(text):
        pieces.append(Segment(text[last:]))
    return tuple(pieces)


def log_rows(window: Sequence[Sequence[Any]], match: Mapping[str, Any] | None) -> list[Row]:
    """The window's lines with the evidence of ``match`` marked (error beats context)."""
    marks: dict[int, str] = {}
    patterns: dict[int, list[str]] = {}
    for evidence in (match or {}).get("evidence", []):
        kind = evidence["kind"]
        for number in range(evidence["line_start"], evidence["line_end"] + 1):
            if kind == "error" or (kind in MARKED_KINDS and number not in marks):
                marks[number] = "error" if kind == "error" else "context"
            if kind in MARKED_KINDS:
                patterns.setdefault(number, []).append(evidence["signature"])
    rows: list[Row] = []
    previous = None
    for number, text in window:
        gap = previous is not None and number != previous + 1
        segments = _segments(text, patterns.get(number, []))
        rows.append(Row(number, segments, marks.get(number, ""), gap))
        previous = number
    return rows


def rank_rows(events: Sequence[Mapping[str, Any]]) -> list[RankRow]:
    """Per rank, the events it printed (root cause first); empty for a one-rank log."""
    ranks = sorted({rank for event in events for rank in event.get("ranks", [])})
    if len(ranks) < 2:
        return []
    rows = {rank: RankRow(rank) for rank in ranks}
    for index, event in enumerate(events):
        for rank in event.get("ranks", []):
            rows[rank].events.append({"index": index, **event})
    return [rows[rank] for rank in ranks]


def event_label(event: Mapping[str, Any], limit: int = 160) -> str:
    """``RuntimeError: first line of the message``, cut."""
    head = f"{event['exception']}: " if event.get("exception") else ""
    first = (event.get("message") or event.get("kind") or "").split("\n", 1)[0]
    text = head + first
    return text if len(text) <= limit else text[: limit - 1] + "…"


def article_draft(event: Mapping[str, Any]) -> str:
    """A YAML skeleton of a new article for an unknown event (the page escapes it)."""
    exception = event.get("exception") or "Error"
    message = (event.get("message") or "").split("\n", 1)[0][:200].replace("'", "''")
    return (
        "id: short-name-of-the-failure\n"
        "title: {en: '...', zh: '...'}\n"
        "summary: {en: '...', zh: '...'}\n"
        "libraries: [torch]\n"
        "layer: user-code\n"
        "signatures:\n"
        "  error:\n"
        f"    - '{exception}: ...'\n"
        "  traceback:\n"
        f"    exception: {exception}\n"
        f"    message: '{message}'\n"
        "cause: {en: '...', zh: '...'}\n"
        "fix: {en: '...', zh: '...'}\n"
    )
