"""uvicorn's HTTP protocol with a deadline for a request's headers (issue 24, target I4).

uvicorn closes a connection idle after a response (``timeout_keep_alive``),
but a socket that connects and sends nothing, or sends its headers a byte at
a time, has no deadline at all: 1,100 of them used up a 1,024-descriptor
limit and ``/healthz`` failed. Here every connection must finish a request's
headers within ``HEADER_SECONDS`` of connecting or of its last response, or
it is closed. Bodies have their own deadline (``ERRKB_BODY_SECONDS``, D6).
"""

from __future__ import annotations

import asyncio
import resource
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_SECONDS = 10.0
"""Longest wait for a request's headers, idle time before them included."""


class HeaderDeadlineProtocol(HttpToolsProtocol):
    """``HttpToolsProtocol`` that closes a connection whose headers do not arrive in time."""

    header_seconds = HEADER_SECONDS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request's headers, idle time included

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(self.header_seconds, self._expired)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _expired(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def raise_descriptor_limit() -> int:
    """Raise the soft limit of open files to the hard one; the limit now in force.

    Each open connection holds a descriptor until its deadline; the common soft
    default (1,024) is far below what the hard limit allows.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65_536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            return soft
        return target
    return soft
