"""Sockets that send nothing, or headers a byte at a time, are closed (issue 24, item 3)."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from app.http.protocol import HEADER_SECONDS
from tests.e2e.conftest import start, stop

SOCKETS = 50


def _closed_within(sock: socket.socket, seconds: float, trickle: bool) -> float | None:
    """Seconds until the server closed ``sock`` (reading EOF or a reset); None if it did not."""
    started = time.monotonic()
    sock.settimeout(0.5)
    header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
    sent = 0
    while time.monotonic() - started < seconds:
        try:
            if trickle and sent < len(header):
                sock.send(header[sent : sent + 1])
                sent += 1
            if sock.recv(1024) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - started
    return None


def test_i4_idle_and_slow_header_sockets_are_closed_and_healthz_answers(tmp_path: Path) -> None:
    server = start(f"sqlite:///{tmp_path / 'errkb.db'}", tmp_path)
    parts = urlsplit(server.url)
    address = (parts.hostname or "127.0.0.1", parts.port or 80)
    idle = [socket.create_connection(address, timeout=5) for _ in range(SOCKETS)]
    slow = socket.create_connection(address, timeout=5)
    try:
        with httpx.Client(base_url=server.url, timeout=5) as client:
            assert client.get("/healthz").status_code == 200  # while 51 sockets hang open
        bound = HEADER_SECONDS + 5
        trickled = _closed_within(slow, bound, trickle=True)
        assert trickled is not None, f"a slow-header socket open after {bound} s"
        waited = [_closed_within(sock, 2, trickle=False) for sock in idle]
        assert all(w is not None for w in waited), "idle sockets outlived the header deadline"
        print(f"I4: slow headers closed after {trickled:.1f} s; {SOCKETS} idle sockets closed")
        with httpx.Client(base_url=server.url, timeout=5) as client:
            assert client.get("/healthz").status_code == 200
    finally:
        for sock in [*idle, slow]:
            sock.close()
        stop(server)
