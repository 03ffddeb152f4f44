"""Prometheus metrics, one registry per app (tests build many apps in one process).

prometheus-client's default registry is global: a second app in the same
process would fail with "Duplicated timeseries". Each ``create_app`` makes
its own ``Metrics`` and ``/metrics`` renders only that registry. Labels are
bounded: routes are path templates (or ``unmatched``), articles are KB ids,
the KB revision is a content hash cut to 12 characters. Nothing here ever
carries request content (targets A5, H3).
"""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LATENCY_BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
SIZE_BUCKETS = tuple(float(1 << n) for n in range(8, 28, 2))  # 256 B .. 64 MiB


@dataclass(frozen=True)
class Metrics:
    """The service's instruments; see ``make_metrics`` for their names."""

    registry: CollectorRegistry
    requests: Counter
    latency: Histogram
    body_bytes: Histogram
    match_seconds: Histogram
    matches: Counter
    article_matches: Counter
    cache: Counter
    rejected: Counter
    reloads: Counter
    reload_failures: Counter
    persistence_failures: Counter
    kb_articles: Gauge
    kb_revision: Gauge
    article_states: Gauge
    articles_flagged: Gauge

    def show_kb(self, revision: str, articles: int) -> None:
        """The KB in use: its size, and its revision as the one label set to 1."""
        self.kb_articles.set(articles)
        self.kb_revision.clear()
        self.kb_revision.labels(revision[:12]).set(1)

    def render(self) -> bytes:
        return generate_latest(self.registry)


def make_metrics() -> Metrics:
    """A fresh registry with every errkb instrument registered in it."""
    registry = CollectorRegistry(auto_describe=True)

    def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
        return Counter(name, doc, labels, registry=registry)

    return Metrics(
        registry=registry,
        requests=counter(
            "errkb_http_requests",
            "HTTP requests by route, method and status.",
            ("route", "method", "status"),
        ),
        latency=Histogram(
            "errkb_http_request_duration_seconds",
            "Time to answer, by route.",
            ("route",),
            buckets=LATENCY_BUCKETS,
            registry=registry,
        ),
        body_bytes=Histogram(
            "errkb_http_request_body_bytes",
            "Request body sizes as received, by route.",
            ("route",),
            buckets=SIZE_BUCKETS,
            registry=registry,
        ),
        match_seconds=Histogram(
            "errkb_match_seconds",
            "Time to compute a match (body read and cached answers excluded).",
            buckets=LATENCY_BUCKETS,
            registry=registry,
        ),
        matches=counter(
            "errkb_matches",
            "Match requests answered, by outcome (matched or unknown).",
            ("outcome",),
        ),
        article_matches=counter(
            "errkb_article_matches", "Answers whose top article is this one.", ("article_id",)
        ),
        cache=counter(
            "errkb_match_cache",
            "Match answers by source: computed, cached, shared in flight.",
            ("result",),
        ),
        rejected=counter(
            "errkb_rejected", "Requests refused before matching, by reason.", ("reason",)
        ),
        reloads=counter("errkb_kb_reloads", "KB reloads that swapped in a new revision."),
        reload_failures=counter(
            "errkb_kb_reload_failures", "KB reloads refused (lint or self-test errors)."
        ),
        persistence_failures=counter(
            "errkb_persistence_failures",
            "Match events or unmatched clusters not stored (the answer was sent anyway).",
        ),
        kb_articles=Gauge("errkb_kb_articles", "Articles in the KB in use.", registry=registry),
        kb_revision=Gauge(
            "errkb_kb_revision",
            "The KB in use: 1 for its revision (content hash, 12 characters).",
            ("revision",),
            registry=registry,
        ),
        article_states=Gauge(
            "errkb_articles_by_state",
            "Articles per lifecycle state (draft, active, verified, stale, retired).",
            ("state",),
            registry=registry,
        ),
        articles_flagged=Gauge(
            "errkb_articles_flagged",
            "Articles whose latest verifier run in some environment says stale or drifted.",
            ("reason",),
            registry=registry,
        ),
    )
