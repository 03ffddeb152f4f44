"""Where an article stands: draft, active, verified, stale or retired (issue 9).

An author sets ``status`` (draft, active, retired) in the article file; the
rest is earned from evidence the service holds. elastic-recheck retires rules
that stop hitting; errkb marks them *stale* first, with the reason, so that a
person decides. The order of the rules below is the order of precedence.

* retired: ``status: retired``; kept for history, never matched.
* draft: ``status: draft``; being written, not served.
* stale: the latest verifier run in some environment says ``stale`` or
  ``drifted`` (the failure no longer reproduces there, or the signatures no
  longer recognise it; a newer pass elsewhere does not clear it), or the article
  had no hit for ``stale_after_days`` while the service has been counting for
  at least that long (a fresh database proves nothing either way).
* verified: the latest verifier run passed.
* active: served, with no verdict either way.

Pure: the caller reads the dates and outcomes from the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

State = Literal["draft", "active", "verified", "stale", "retired"]
STATES: tuple[State, ...] = ("draft", "active", "verified", "stale", "retired")
STALE_OUTCOMES = frozenset({"stale", "drifted"})


@dataclass(frozen=True)
class Flag:
    """A run that flags an article: the newest in its environment says stale or drifted."""

    outcome: str
    at: datetime
    environment: str  # a few words that name it, e.g. "torch 2.13.0, CUDA 12.8, 1 x H100"


@dataclass(frozen=True)
class Evidence:
    """What the store knows about one article; every field may be missing."""

    latest_outcome: str | None = None
    latest_run_at: datetime | None = None
    last_hit_at: datetime | None = None
    counting_since: datetime | None = None  # the oldest stored match event
    flag: Flag | None = None  # the newest flagging run among the environments' latest


@dataclass(frozen=True)
class Lifecycle:
    """An article's state, why, and since when (None where the reason has no date)."""

    state: State
    reason: str
    since: datetime | None = None
    flag: str | None = None  # "stale" or "drifted" when a verifier run made it stale

    def stale_for(self, now: datetime) -> timedelta | None:
        """How long the article has been stale, or None when it is not (or nobody knows)."""
        if self.state != "stale" or self.since is None:
            return None
        return now - self.since


def lifecycle(
    status: str, evidence: Evidence, *, now: datetime, stale_after_days: int
) -> Lifecycle:
    """Apply the rules of the module docstring, first that holds wins."""
    if status == "retired":
        return Lifecycle("retired", "retired by its authors")
    if status == "draft":
        return Lifecycle("draft", "a draft: not served yet")
    if evidence.flag is not None:
        flag = evidence.flag
        reason = f"the latest verification on {flag.environment} says {flag.outcome}"
        return Lifecycle("stale", reason, flag.at, flag.outcome)
    if evidence.latest_outcome in STALE_OUTCOMES:
        reason = f"the latest verification says {evidence.latest_outcome}"
        return Lifecycle("stale", reason, evidence.latest_run_at, evidence.latest_outcome)
    quiet = _quiet_since(evidence, now=now, days=stale_after_days)
    if quiet is not None:
        return Lifecycle("stale", f"no hits for {stale_after_days} days", quiet)
    if evidence.latest_outcome == "verified":
        return Lifecycle("verified", "the latest verification passed", evidence.latest_run_at)
    return Lifecycle("active", "served; no verification verdict yet")


def _quiet_since(evidence: Evidence, *, now: datetime, days: int) -> datetime | None:
    """When the no-hit window began, if the article has been quiet for ``days``."""
    window = timedelta(days=days)
    if days <= 0 or evidence.counting_since is None or now - evidence.counting_since < window:
        return None
    last = evidence.last_hit_at or evidence.counting_since
    if now - last < window:
        return None
    return last + window
