"""How much redacted text one client address may have stored a day (issue 24, item 6; I7).

Every answered paste stores its excerpt and its result page's view (bounded,
and shared by identical pastes: ``app.store.match_events``), but a client
that sends distinct crafted pastes at the rate limit could still add some
4 GiB a day. Past its daily allowance a client's pastes are still answered
and counted (the match event, its fingerprint and article), but store no
text: no excerpt, no view, so no permalink, until the allowance refills.
A token bucket per address, refilled continuously; the allowance is per
process, like the rate limit. ``per_day`` 0: no limit. A text charged
recently (by any client) is free: the store keeps one copy of identical
texts, so a job's ranks or a retried hook cost their rows only.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from hashlib import sha256

DAY_S = 86_400.0
MAX_CLIENTS = 100_000  # addresses remembered; the least recent is forgotten (it starts full again)
MAX_TEXTS = 10_000  # digests of texts charged recently, which are free again


@dataclass
class _Allowance:
    bytes: float
    stamp: float


class StorageBudget:
    """``per_day`` bytes of stored text per key, refilled continuously (module docstring)."""

    def __init__(self, per_day: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_day = float(per_day)
        self.clock = clock
        self._clients: OrderedDict[str, _Allowance] = OrderedDict()
        self._charged: OrderedDict[bytes, None] = OrderedDict()

    def take_texts(self, key: str, texts: Sequence[str]) -> bool:
        """``take`` for the texts about to be stored; one charged recently costs nothing."""
        if self.per_day <= 0:
            return True
        digests = {sha256(text.encode()).digest(): text for text in texts if text}
        new = [d for d in digests if d not in self._charged]
        if not self.take(key, sum(len(digests[d].encode()) for d in new)):
            return False
        for digest in digests:
            self._charged.pop(digest, None)
            self._charged[digest] = None
        while len(self._charged) > MAX_TEXTS:
            self._charged.popitem(last=False)
        return True

    def take(self, key: str, size: int) -> bool:
        """Spend ``size`` bytes of ``key``'s allowance; False (nothing spent) when it lacks them."""
        if self.per_day <= 0 or size <= 0:
            return True
        now = self.clock()
        left = self._clients.pop(key, None) or _Allowance(self.per_day, now)
        left.bytes = min(self.per_day, left.bytes + (now - left.stamp) * self.per_day / DAY_S)
        left.stamp = now
        self._clients[key] = left
        if len(self._clients) > MAX_CLIENTS:
            self._clients.popitem(last=False)
        if left.bytes < size:
            return False
        left.bytes -= size
        return True
