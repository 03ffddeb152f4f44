"""What ``match_text`` returns: ranked matches with their evidence, and the events.

``MatchResult.to_json()`` is the one JSON shape errkb speaks: ``errkb match
--json`` prints it and the API adds only links and summaries to it. Every
string in it has been redacted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from app.matching.events_model import Event

EvidenceKind = Literal["error", "context", "log-context", "fuzzy", "environment", "note"]
Confidence = Literal["high", "medium", "low"]


@dataclass(frozen=True)
class Evidence:
    """Why a match was made: which signature hit which lines of the pasted text."""

    kind: EvidenceKind
    signature: str
    line_start: int
    line_end: int
    hint: str

    def to_json(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "signature": self.signature,
            "line_start": self.line_start,
            "line_end": self.line_end,
            "hint": self.hint,
        }


@dataclass(frozen=True)
class Match:
    """One article proposed for one event."""

    article_id: str
    score: float
    confidence: Confidence
    title: str
    event_index: int
    evidence: tuple[Evidence, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "article_id": self.article_id,
            "score": round(self.score, 4),
            "confidence": self.confidence,
            "title": self.title,
            "event_index": self.event_index,
            "evidence": [e.to_json() for e in self.evidence],
        }


@dataclass(frozen=True)
class InputStats:
    bytes: int
    lines: int
    redactions: int


@dataclass(frozen=True)
class MatchResult:
    """The answer for one pasted text; ``unknown`` when no article passed the threshold."""

    matches: tuple[Match, ...]
    events: tuple[Event, ...]
    input: InputStats
    versions: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    windows: Mapping[int, tuple[tuple[int, str], ...]] = field(default_factory=dict)
    """Asked for with ``MatchOptions(windows=True)``: per shown event index, the redacted
    ``(line number, text)`` rows around its evidence (``windows.py``); not in ``to_json``."""

    @property
    def unknown(self) -> bool:
        return not self.matches

    @property
    def top(self) -> Match | None:
        return self.matches[0] if self.matches else None

    def to_json(self) -> dict[str, object]:
        return {
            "matches": [m.to_json() for m in self.matches],
            "events": [_event_json(e) for e in self.events],
            "unknown": self.unknown,
            "input": {
                "bytes": self.input.bytes,
                "lines": self.input.lines,
                "redactions": self.input.redactions,
            },
        }


def _event_json(event: Event) -> dict[str, object]:
    return {
        "exception": event.exception,
        "message": event.message,
        "ranks": list(event.ranks),
        "line_start": event.line_start,
        "line_end": event.line_end,
        "root_cause": event.root_cause,
    }
