"""The redacted pasted lines around each shown event's evidence: what a result page draws.

Why here and not in the page: only the pipeline holds the decoded lines with
their pasted line numbers (or, for a big log, the excerpts it read), so it
hands the page the few lines it needs instead of the page decoding and
redacting the raw log a second time (issue 22). The windows are bounded: at
most ``MAX_SHOWN`` events, ``MAX_WINDOW_LINES`` lines of ``LINE_CHARS``
characters in all, never the whole 50 MB (issue 5). The lines are redacted
in one pass of their own, as the page did before.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from app.matching.events_model import Event
from app.matching.redact import redact
from app.matching.result import Match

RADIUS = 2  # lines shown before and after each piece of evidence
EVENT_HEAD = 4  # first lines of a long event kept (the "Traceback" line and the outer frames)
EVENT_TAIL = 24  # lines kept before the error line of a long event
MAX_WINDOW_LINES = 160
MAX_EVENTS = 12  # events a page lists; only these may get a window
MAX_SHOWN = 5  # events that get a window of log lines
LINE_CHARS = 400
Span = tuple[int, int]
Window = tuple[tuple[int, str], ...]


def evidence_windows(
    matches: Sequence[Match],
    events: Sequence[Event],
    lines: Sequence[str],
    numbers: Sequence[int],
) -> dict[int, Window]:
    """Per shown event index, its ``(line number, redacted text)`` rows, numbers ascending."""
    shown = _shown(matches, events)
    spans = {index: _spans(matches, events, index) for index in shown}
    wanted = sorted({n for ranges in spans.values() for a, b in ranges for n in range(a, b + 1)})
    texts = page_lines(lines, numbers, wanted)
    return {
        index: _trimmed(
            tuple((n, texts[n]) for a, b in ranges for n in range(a, b + 1) if n in texts)
        )
        for index, ranges in spans.items()
    }


def _trimmed(rows: tuple[tuple[int, str], ...]) -> Window:
    """Without the blank lines at the end (a paste's final newline is not worth a row)."""
    end = len(rows)
    while end and not rows[end - 1][1].strip():
        end -= 1
    return rows[:end]


def _shown(matches: Sequence[Match], events: Sequence[Event]) -> list[int]:
    """The events the matches name (best first); the first events when nothing matched."""
    named = list(dict.fromkeys(m.event_index for m in matches))
    if not named:
        named = list(range(len(events)))
    return [i for i in named if i < min(len(events), MAX_EVENTS)][:MAX_SHOWN]


def _spans(matches: Sequence[Match], events: Sequence[Event], index: int) -> list[Span]:
    """Line ranges around one event: its head, the lines before its error line, the evidence."""
    event = events[index]
    error_start = event.error_line_start or event.line_end
    error_end = max(event.error_line_end, error_start)
    head = (event.line_start - RADIUS, min(event.line_start + EVENT_HEAD, error_end))
    ranges: list[Span] = [head]
    ranges.append((max(event.line_start, error_start - EVENT_TAIL), error_end + RADIUS))
    for match in matches:
        if match.event_index == index:
            ranges += [(e.line_start - RADIUS, e.line_end + RADIUS) for e in match.evidence]
    return budget(merge(ranges))


def merge(ranges: Iterable[Span]) -> list[Span]:
    """Sorted, overlapping and adjacent ranges joined; line numbers start at 1."""
    merged: list[Span] = []
    for start, end in sorted((max(1, a), b) for a, b in ranges if b >= a >= -RADIUS):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def budget(ranges: Sequence[Span]) -> list[Span]:
    """At most ``MAX_WINDOW_LINES`` lines in all; later ranges are cut first."""
    kept: list[Span] = []
    left = MAX_WINDOW_LINES
    for start, end in ranges:
        if left <= 0:
            break
        end = min(end, start + left - 1)
        kept.append((start, end))
        left -= end - start + 1
    return kept


def page_lines(
    lines: Sequence[str], numbers: Sequence[int], wanted: Sequence[int]
) -> dict[int, str]:
    """The redacted text of the pasted lines ``wanted`` (1-based), cut to ``LINE_CHARS``.

    ``numbers`` (ascending) are the pasted line numbers of ``lines``.
    """
    if not wanted:
        return {}
    at = {n: i for n in wanted if (i := bisect_left(numbers, n)) < len(numbers) and numbers[i] == n}
    chosen = [n for n in wanted if n in at]
    raw = [lines[at[n]][:LINE_CHARS] for n in chosen]
    cleaned = redact("\n".join(raw)).text.split("\n")
    if len(cleaned) != len(raw):  # a multi-line secret rule joined lines: redact one by one
        cleaned = [redact(line).text.replace("\n", " ") for line in raw]
    return dict(zip(chosen, cleaned, strict=True))
