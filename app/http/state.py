"""The HTTP app state: what ``create_app`` wires for the routes of ``api`` and ``web``.

It lives in ``app.http``, above ``app.service``, so that the running errkb
(KB holder, runner, recorder) knows nothing of HTTP while both HTTP layers
reach the same object through ``app.http.deps``. Nothing is built at import.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from app.http.bodies import BodyLimits
from app.http.ratelimit import Network, RateLimiter
from app.service.metrics import Metrics, make_metrics
from app.service.reload import KbHolder, Reloader
from app.service.runner import MatchRunner


@dataclass(frozen=True)
class Services:
    """Everything the HTTP layers need, wired by ``create_app``.

    Only ``engine``, ``kb`` and ``default_lang`` are required, so a test can
    build one by hand; ``create_app`` fills in the rest from the settings.
    """

    engine: Engine
    kb: KbHolder
    default_lang: str
    metrics: Metrics = field(default_factory=make_metrics)
    runner: MatchRunner | None = None
    reloader: Reloader | None = None
    limits: BodyLimits = field(default_factory=lambda: BodyLimits(64 << 20, 64 << 20))
    rate_limiter: RateLimiter = field(default_factory=lambda: RateLimiter(0, 1))
    trusted_proxies: tuple[Network, ...] = ()
    public_url: str = ""
    hosts_checked: bool = False  # every request's Host is one of ERRKB_ALLOWED_HOSTS, no wildcard
    stale_after_days: int = 90
    dryrun_days: int = 30
    dryrun_max_loss: float = 0.2
