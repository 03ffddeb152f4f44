"""The result page's stored view: what a permalink re-renders, all of it redacted.

Why a stored view and not a re-run of the matcher on ``MatchEvent.excerpt``:
the excerpt is one event's text with the rank prefixes and line numbers
stripped, so a re-run would lose the per-rank breakdown, the other events and
the line numbers the evidence points at. The view is built once, right after
the match, from the result alone: the matcher, asked with
``MatchOptions(windows=True)``, returns the redacted pasted lines around the
evidence (``app.matching.windows``), so nothing here decodes or redacts the
raw log again. It is bounded by what the matcher hands over (issue 5).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.errors import StoreError
from app.matching.events_model import Event
from app.matching.result import MatchResult
from app.matching.windows import MAX_EVENTS
from app.store.match_events import attach_view

log = logging.getLogger(__name__)

VIEW_VERSION = 1
MESSAGE_CHARS = 2000


def build_view(result: MatchResult, *, lang: str, kb_revision: str) -> dict[str, Any]:
    """The JSON the result page renders from (see the module docstring)."""
    return {
        "version": VIEW_VERSION,
        "lang": lang,
        "kb_revision": kb_revision,
        "input": vars(result.input).copy(),
        "notes": list(result.notes),
        "versions": dict(result.versions),
        "matches": [match.to_json() for match in result.matches],
        "events": [_event(event) for event in result.events[:MAX_EVENTS]],
        "windows": {
            str(index): [[number, text] for number, text in rows]
            for index, rows in result.windows.items()
        },
    }


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


def store_view(engine: Engine, event_id: int, view: dict[str, Any]) -> str | None:
    """Attach the view to its stored event; the permalink key it ends up with, or None.

    The first view of an event wins (a cached answer shares its event), so the
    key returned may be an earlier request's. A database that refuses costs the
    link, never the answer: the caller shows the answer without one.
    """
    try:
        with Session(engine) as session:
            return attach_view(
                session, match_event_id=event_id, view=view, key=secrets.token_urlsafe(12)
            )
    except StoreError as exc:
        log.warning("result view not stored: %s", type(exc.__cause__ or exc).__name__)
        return None
