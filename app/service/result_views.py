"""The result page's stored view: what a permalink re-renders, all of it redacted.

Why a stored view and not a re-run of the matcher on ``MatchEvent.excerpt``:
the excerpt is one event's text with the rank prefixes and line numbers
stripped, so a re-run would lose the per-rank breakdown, the other events and
the line numbers the evidence points at. The view is built once, right after
the match, from the result alone: the matcher, asked with
``MatchOptions(windows=True)``, returns the redacted pasted lines around the
evidence (``app.matching.windows``), so nothing here decodes or redacts the
raw log again. It is bounded by what the matcher hands over (issue 5), and
what is stored again by ``VIEW_BYTES`` (issue 24, item 6; ``bounded``): the
matcher's windows allow 160 lines of 400 characters, so one crafted paste
stored some 60 KiB; every example log of ``kb/`` fits the budget untouched.
"""

from __future__ import annotations

import json
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
VIEW_BYTES = 16 * 1024
"""The most a stored view takes, as compact JSON: 12.1 KB is the largest of kb/'s examples."""
SHORT_LINE_CHARS = 160
SHORT_MESSAGE_CHARS = 400
SHORT_NAME_CHARS = 128
MAX_VERSIONS = 32
KEPT_ROWS = 8  # rows of the first window kept at the least: the error line and its context


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


def view_bytes(view: dict[str, Any]) -> int:
    """The size of a view as stored (compact JSON, UTF-8)."""
    return len(json.dumps(view, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def bounded(view: dict[str, Any], limit: int = VIEW_BYTES) -> dict[str, Any]:
    """The view within ``limit`` bytes: what the page needs most is given up last.

    In turn, while it is too big: window lines, event messages, exception
    names and the versions read from the log (or sent as ``env``) are cut
    shorter; the windows of later events go; the first window loses its
    earliest rows (its error line and evidence come last); the messages go;
    the windows go; the versions and notes go. The matches (the KB's own
    words) and the events' kinds and line numbers always stay.
    """
    if view_bytes(view) <= limit:
        return view
    view = json.loads(json.dumps(view))  # a copy to trim
    view["trimmed"] = True
    windows: dict[str, list[list[Any]]] = view.setdefault("windows", {})
    events: list[dict[str, Any]] = view.setdefault("events", [])
    for rows in windows.values():
        for row in rows:
            row[1] = row[1][:SHORT_LINE_CHARS]
    for event in events:
        event["message"] = (event.get("message") or "")[:SHORT_MESSAGE_CHARS]
        event["exception"] = (event.get("exception") or "")[:SHORT_NAME_CHARS] or None
    versions = list(view.get("versions", {}).items())[:MAX_VERSIONS]
    view["versions"] = {k[:SHORT_NAME_CHARS]: v[:SHORT_NAME_CHARS] for k, v in versions}
    first = next(iter(windows), None)
    while view_bytes(view) > limit and len(windows) > 1:
        windows.pop(list(windows)[-1])
    while view_bytes(view) > limit and first is not None and len(windows[first]) > KEPT_ROWS:
        excess = view_bytes(view) - limit
        drop = max(1, min(len(windows[first]) - KEPT_ROWS, excess // (SHORT_LINE_CHARS + 8)))
        del windows[first][:drop]
    for event in events:
        if view_bytes(view) > limit:
            event["message"] = ""
    if view_bytes(view) > limit:
        view["windows"] = {}
    if view_bytes(view) > limit:
        view["versions"], view["notes"] = {}, []
    return view


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
                session,
                match_event_id=event_id,
                view=bounded(view),
                key=secrets.token_urlsafe(12),
            )
    except StoreError as exc:
        log.warning("result view not stored: %s", type(exc.__cause__ or exc).__name__)
        return None
