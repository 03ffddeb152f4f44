"""The result page's stored view: what a permalink re-renders, all of it redacted.

Why a stored view and not a re-run of the matcher on ``MatchEvent.excerpt``:
the excerpt is one event's text with the rank prefixes and line numbers
stripped, so a re-run would lose the per-rank breakdown, the other events and
the line numbers the evidence points at. The view is built once, right after
the match, from the result (already redacted by the pipeline) and from the
pasted lines around the evidence, which are redacted here before they are
kept. It is bounded: a few windows of at most ``MAX_WINDOW_LINES`` lines of
``LINE_CHARS`` characters, never the whole 50 MB (issue 5).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from app.matching.decode import decode
from app.matching.events_model import Event
from app.matching.excerpt import excerpt_lines
from app.matching.pipeline import WHOLE_LOG_LIMIT
from app.matching.redact import redact
from app.matching.result import MatchResult

VIEW_VERSION = 1
RADIUS = 2  # lines shown before and after each piece of evidence
EVENT_HEAD = 4  # first lines of a long event kept (the "Traceback" line and the outer frames)
EVENT_TAIL = 24  # lines kept before the error line of a long event
MAX_WINDOW_LINES = 160
MAX_EVENTS = 12
MAX_SHOWN = 5  # events that get a window of log lines
LINE_CHARS = 400
MESSAGE_CHARS = 2000
Span = tuple[int, int]


def build_view(result: MatchResult, data: bytes, *, lang: str, kb_revision: str) -> dict[str, Any]:
    """The JSON the result page renders from (see the module docstring)."""
    events = result.events[:MAX_EVENTS]
    shown = _shown(result)
    spans = {index: _spans(result, index) for index in shown}
    wanted = sorted({n for ranges in spans.values() for a, b in ranges for n in range(a, b + 1)})
    texts = pasted_lines(data, wanted)
    windows = {
        str(index): _trimmed(
            [[n, texts[n]] for a, b in ranges for n in range(a, b + 1) if n in texts]
        )
        for index, ranges in spans.items()
    }
    return {
        "version": VIEW_VERSION,
        "lang": lang,
        "kb_revision": kb_revision,
        "input": vars(result.input).copy(),
        "notes": list(result.notes),
        "matches": [match.to_json() for match in result.matches],
        "events": [_event(event) for event in events],
        "windows": windows,
    }


def _trimmed(rows: list[list[Any]]) -> list[list[Any]]:
    """Without the blank lines at the end (a paste's final newline is not worth a row)."""
    while rows and not str(rows[-1][1]).strip():
        rows.pop()
    return rows


def _event(event: Event) -> dict[str, Any]:
    return {
        "kind": event.kind.value,
        "exception": event.exception,
        "message": event.message[:MESSAGE_CHARS],
        "ranks": list(event.ranks),
        "line_start": event.line_start,
        "line_end": event.line_end,
        "error_line_start": event.error_line_start,
        "error_line_end": event.error_line_end,
        "root_cause": event.root_cause,
        "consequence": event.consequence,
    }


def _shown(result: MatchResult) -> list[int]:
    """The events the matches name (best first); the first events when nothing matched."""
    named = list(dict.fromkeys(m.event_index for m in result.matches))
    if not named:
        named = list(range(len(result.events)))
    return [i for i in named if i < min(len(result.events), MAX_EVENTS)][:MAX_SHOWN]


def _spans(result: MatchResult, index: int) -> list[Span]:
    """Line ranges around one event: its head, the lines before its error line, the evidence."""
    event = result.events[index]
    error_start = event.error_line_start or event.line_end
    error_end = max(event.error_line_end, error_start)
    head = (event.line_start - RADIUS, min(event.line_start + EVENT_HEAD, error_end))
    ranges: list[Span] = [head]
    ranges.append((max(event.line_start, error_start - EVENT_TAIL), error_end + RADIUS))
    for match in result.matches:
        if match.event_index == index:
            ranges += [(e.line_start - RADIUS, e.line_end + RADIUS) for e in match.evidence]
    return _budget(_merge(ranges))


def _merge(ranges: Iterable[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted((max(1, a), b) for a, b in ranges if b >= a >= -RADIUS):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _budget(ranges: Sequence[Span]) -> list[Span]:
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


def pasted_lines(data: bytes, numbers: Sequence[int]) -> dict[int, str]:
    """The redacted text of the pasted lines ``numbers`` (1-based), decoded as the matcher did."""
    if not numbers:
        return {}
    if len(data) > WHOLE_LOG_LIMIT:
        lines, line_numbers, _ = excerpt_lines(data)
        by_number = dict(zip(line_numbers, lines, strict=False))
    else:
        decoded = decode(data)
        first = decoded.first_line
        split = decoded.text.split("\n")
        by_number = {n: split[n - first] for n in numbers if 0 <= n - first < len(split)}
    chosen = [n for n in numbers if n in by_number]
    raw = [by_number[n][:LINE_CHARS] for n in chosen]
    cleaned = redact("\n".join(raw)).text.split("\n")
    if len(cleaned) != len(raw):  # a multi-line secret rule joined lines: redact one by one
        cleaned = [redact(line).text.replace("\n", " ") for line in raw]
    return dict(zip(chosen, cleaned, strict=True))
