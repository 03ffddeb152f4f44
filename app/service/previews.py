"""Dry runs of a KB change against what users actually pasted (issue 9).

The edge around ``app.authoring.dryrun``: reads the stored, redacted match
events of the last days, builds the proposed KB beside the one in use, and
replays. ``errkb dryrun`` and the admin reload (its ``dry_run`` preview and
its guard) both come through here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.authoring.dryrun import DryRun, replay
from app.errors import StoreError
from app.matching.index import SignatureIndex, build_index
from app.service.kb import LiveKb, served
from app.store.authoring import StoredEvent, events_since
from app.store.engine import reader
from app.store.tables import utcnow

log = logging.getLogger(__name__)
MAX_EVENTS = 5000
"""Replayed at most (newest first): two matches each, about 10 s on one core."""


@dataclass(frozen=True)
class Preview:
    dry: DryRun
    events: dict[int, StoredEvent]

    def describe(self, base_url: str = "") -> Callable[[int], str]:
        """``event 12 (/r/12/<key>): RuntimeError: ...``: what a sample line shows."""

        def line(event_id: int) -> str:
            event = self.events.get(event_id)
            if event is None:
                return f"event {event_id}"
            first = next((t.strip() for t in event.excerpt.splitlines() if t.strip()), "")[:120]
            link = (
                f" {base_url.rstrip('/')}/r/{event_id}/{event.view_key}" if event.view_key else ""
            )
            return f"event {event_id}{link}: {first}"

        return line


def index_with_drafts(live: LiveKb) -> SignatureIndex:
    """The proposed KB as it would serve with its drafts made active."""
    return build_index(served(live.kb, drafts=True), live.kb.revision)


def preview(
    engine: Engine,
    current: SignatureIndex,
    proposed: SignatureIndex,
    *,
    days: int,
    max_loss: float,
    limit: int = MAX_EVENTS,
    now: datetime | None = None,
) -> Preview:
    """Replay the events of the last ``days`` against both indexes."""
    since = (now or utcnow()) - timedelta(days=days)
    with Session(reader(engine)) as session:
        events = events_since(session, since=since, limit=limit)
    pairs = [(event.id, event.excerpt) for event in events]
    dry = replay(pairs, current, proposed, max_loss=max_loss)
    return Preview(dry, {event.id: event for event in events})


def stored_event_review(
    engine: Engine, *, days: int, max_loss: float
) -> Callable[[LiveKb, LiveKb], DryRun | None]:
    """The reload's review: replay recent events; a database outage never blocks a reload."""

    def review(current: LiveKb, proposed: LiveKb) -> DryRun | None:
        try:
            return preview(engine, current.index, proposed.index, days=days, max_loss=max_loss).dry
        except StoreError as exc:
            log.warning("reload preview skipped: %s", type(exc.__cause__ or exc).__name__)
            return None

    return review
