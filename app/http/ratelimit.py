"""Per-client-IP token buckets, and the client IP as far as it can be trusted (target D4).

The key is the TCP peer's address. ``X-Forwarded-For`` is believed only when
the peer is one of the configured trusted proxies, and then only up to the
first address (from the right) that is not a trusted proxy itself: a client
cannot pick its own key by sending the header (ASVS 4.1.3; slowapi's
``get_ipaddr`` trusts it blindly, which is what this avoids). ``errkb serve``
turns uvicorn's own proxy-header rewriting off so that this is the one place
that decides.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
MAX_CLIENTS = 10_000  # buckets kept; the least recently seen client is forgotten first


def parse_networks(values: Iterable[str]) -> tuple[Network, ...]:
    """``10.0.0.1``, ``10.0.0.0/8``, ``::1``: each a network (a host is a /32 or /128)."""
    return tuple(ipaddress.ip_network(value.strip(), strict=False) for value in values)


def _trusted(address: str, networks: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_ip(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The address to key limits on (see the module docstring)."""
    address = peer or "unknown"
    if not forwarded_for or not trusted or not _trusted(address, trusted):
        return address
    for hop in reversed([part.strip() for part in forwarded_for.split(",")][-20:]):
        if not hop:
            continue
        if not _trusted(hop, trusted):
            return hop[:64]
        address = hop
    return address


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    """``per_minute`` requests per key on average, ``burst`` at once; 0 per minute: no limit."""

    def __init__(
        self, per_minute: int, burst: int, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.clock = clock
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def take(self, key: str) -> int | None:
        """Spend one token of ``key``; None when allowed, else seconds until one is back."""
        if not self.enabled:
            return None
        now = self.clock()
        bucket = self._buckets.pop(key, None) or _Bucket(self.burst, now)
        bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.stamp) * self.rate)
        bucket.stamp = now
        self._buckets[key] = bucket
        if len(self._buckets) > MAX_CLIENTS:
            self._buckets.popitem(last=False)
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return None
        return max(1, math.ceil((1 - bucket.tokens) / self.rate))
