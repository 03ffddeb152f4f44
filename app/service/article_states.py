"""Every article's lifecycle state, from the KB in use and what the store has seen.

The rules are pure (``app.articles.lifecycle``); this edge reads their
evidence from the database in three grouped queries. A database that cannot
answer leaves the states an author sets (draft, retired) and calls the rest
active: the pages and ``/metrics`` stay up, the reason says why.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.articles.lifecycle import Evidence, Lifecycle, lifecycle
from app.articles.problems import Problem
from app.errors import StoreError
from app.service.kb import LiveKb
from app.store.engine import reader
from app.store.stats import lifecycle_evidence
from app.store.tables import utcnow

log = logging.getLogger(__name__)


def article_lifecycles(
    engine: Engine, live: LiveKb, *, stale_after_days: int, now: datetime | None = None
) -> dict[str, Lifecycle]:
    """The state of every article of ``live``, keyed by id, in the KB's order."""
    try:
        with Session(reader(engine)) as session:
            evidence, since = lifecycle_evidence(session)
    except StoreError as exc:
        log.warning("lifecycle evidence unavailable: %s", exc)
        evidence, since = {}, None
    when = now or utcnow()
    states: dict[str, Lifecycle] = {}
    for article_id, loaded in live.kb.articles.items():
        known = evidence.get(article_id, Evidence())
        known = replace(known, counting_since=since)
        states[article_id] = lifecycle(
            loaded.article.status, known, now=when, stale_after_days=stale_after_days
        )
    return states


def stale_warnings(
    states: dict[str, Lifecycle], live: LiveKb, *, warn_days: int, now: datetime | None = None
) -> list[Problem]:
    """``errkb lint``'s reminder: articles stale for longer than ``warn_days``."""
    when = now or utcnow()
    problems = []
    for article_id, state in states.items():
        age = state.stale_for(when)
        if age is None or age.days <= warn_days:
            continue
        source = live.kb.articles[article_id].source
        message = f"stale for {age.days} days ({state.reason}): fix, re-verify or retire it"
        problems.append(Problem(source.display_path, source.line_of("id"), message, "warning"))
    return problems
