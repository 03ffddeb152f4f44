"""``errkb report FILE``: what a training job's on-failure hook runs.

It sends the tail of the log, gzip-compressed, to ``POST /api/v1/match`` and
prints the plain-text answer. A hook must never hurt the job it reports on:
short connect and read timeouts, no retry loop, and whatever goes wrong
(errkb down, slow, refusing, the log unreadable) ends in one line on stderr
and exit status 0 (issue 4, item 9).
"""

from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from pathlib import Path

import httpx

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TAIL_BYTES = 2 << 20
CONNECT_TIMEOUT_S = 3.0
TOTAL_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Outcome:
    """What to print: ``answer`` on stdout when errkb answered, else one ``note`` on stderr."""

    answer: str | None = None
    note: str | None = None


def read_tail(path: Path, tail_bytes: int) -> bytes:
    """The last ``tail_bytes`` of the file, starting at a line boundary when one is near."""
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - tail_bytes)
        handle.seek(start)
        data = handle.read()
    if start > 0:
        newline = data.find(b"\n", 0, 4096)
        data = data[newline + 1 :] if newline >= 0 else data
    return data


def report(
    path: Path,
    *,
    url: str = DEFAULT_URL,
    tail_bytes: int = DEFAULT_TAIL_BYTES,
    lang: str | None = None,
    timeout_s: float = TOTAL_TIMEOUT_S,
    transport: httpx.BaseTransport | None = None,
) -> Outcome:
    """Post the log's tail and return the answer, or a note saying why there is none."""
    try:
        body = gzip.compress(read_tail(path, tail_bytes), compresslevel=6)
    except OSError as exc:
        return Outcome(note=f"errkb: cannot read {path}: {exc.strerror or exc}")
    headers = {"Content-Encoding": "gzip", "Content-Type": "text/plain", "Accept": "text/plain"}
    params = {"format": "text", **({"lang": lang} if lang else {})}
    timeout = httpx.Timeout(timeout_s, connect=min(CONNECT_TIMEOUT_S, timeout_s))
    endpoint = url.rstrip("/") + "/api/v1/match"
    try:
        with httpx.Client(timeout=timeout, transport=transport, headers=_agent()) as client:
            response = client.post(endpoint, content=body, headers=headers, params=params)
    except (httpx.HTTPError, ValueError) as exc:
        return Outcome(note=f"errkb: not reachable at {url} ({type(exc).__name__}); job unaffected")
    if response.status_code != 200:
        return Outcome(note=f"errkb: answered {response.status_code}; job unaffected")
    return Outcome(answer=response.text.rstrip("\n"))


def _agent() -> dict[str, str]:
    from importlib.metadata import version

    return {"User-Agent": f"errkb/{version('errkb')}"}
