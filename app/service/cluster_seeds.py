"""From an unmatched cluster to the seed of a draft article (``errkb new --from-cluster``).

Reads the cluster and its sightings' redacted excerpts from the store, and
asks the matcher's own event extraction what the error is (exception and
message), so the draft's signature is cut from the line the matcher will
look at. Shared by the CLI and the unmatched page's "start an article" link.
"""

from __future__ import annotations

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.authoring.scaffold import Seed
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import LiveKb
from app.store.authoring import cluster_excerpts, find_cluster
from app.store.engine import reader

SAMPLES = 3


def seed_for_cluster(engine: Engine, live: LiveKb, fingerprint: str) -> Seed | None:
    """The cluster named by ``fingerprint`` (a prefix will do) as a seed, or None."""
    with Session(reader(engine)) as session:
        cluster = find_cluster(session, fingerprint=fingerprint)
        if cluster is None:
            return None
        excerpts = cluster_excerpts(session, fingerprint=cluster.fingerprint, limit=SAMPLES)
    samples = list(dict.fromkeys([*excerpts, cluster.sample]))[:SAMPLES]
    exception, message = _error_of(samples[0], live) if samples else (None, "")
    return Seed(
        fingerprint=cluster.fingerprint,
        exception=exception or (cluster.exception if cluster.exception else None),
        message=message,
        samples=tuple(samples),
        count=cluster.count,
    )


def _error_of(sample: str, live: LiveKb) -> tuple[str | None, str]:
    """The root-cause event's exception and message, as the matcher reads the sample."""
    result = match_text(sample.encode("utf-8"), live.index, MatchOptions(top_k=1))
    if not result.events:
        first = next((line.strip() for line in sample.splitlines() if line.strip()), "")
        return None, first
    event = result.events[0]
    return event.exception, event.message
