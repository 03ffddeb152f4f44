"""``errkb report FILE``: what a training job's on-failure hook runs.

It sends the tail of the log, gzip-compressed, to ``POST /api/v1/match`` and
prints the plain-text answer. A hook must never hurt the job it reports on:
short connect and read timeouts, one deadline for everything, and whatever
goes wrong (errkb down, slow, refusing, the log unreadable) ends in one line
on stderr and exit status 0 (issue 4, item 9). When errkb refuses, that line
is errkb's own reason (target H8).

A busy errkb (503 from the big-log guard, 429 from the rate limit) says when
to come back; the hook tries twice more after ``Retry-After`` plus up to a
second of jitter, so a herd of ranks does not come back in lock-step, and
only while the wait fits in the deadline. A timeout is not retried: a hung
server would only hang again.
"""

from __future__ import annotations

import gzip
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TAIL_BYTES = 2 << 20
CONNECT_TIMEOUT_S = 3.0
TOTAL_TIMEOUT_S = 20.0
RETRIES = 2
BUSY_STATUSES = frozenset({429, 503})
MAX_JITTER_S = 1.0
_JITTER = secrets.SystemRandom()  # the OS source: dlint (B8) flags the seeded one
MAX_REASON_CHARS = 500  # the server's one-line refusal; a longer "line" is not errkb's
MIN_ATTEMPT_S = 2.0  # a retry that cannot get this long to run is not worth sending


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
    sleep: Callable[[float], None] = time.sleep,
) -> Outcome:
    """Post the log's tail and return the answer, or a note saying why there is none."""
    try:
        body = gzip.compress(read_tail(path, tail_bytes), compresslevel=6)
    except OSError as exc:
        return Outcome(note=f"errkb: cannot read {path}: {exc.strerror or exc}")
    headers = {"Content-Encoding": "gzip", "Content-Type": "text/plain", "Accept": "text/plain"}
    params = {"format": "text", **({"lang": lang} if lang else {})}
    endpoint = url.rstrip("/") + "/api/v1/match"
    deadline = time.monotonic() + timeout_s
    try:
        with httpx.Client(transport=transport, headers=_agent()) as client:
            for attempt in range(RETRIES + 1):
                left = deadline - time.monotonic()
                timeout = httpx.Timeout(left, connect=min(CONNECT_TIMEOUT_S, left))
                response = client.post(
                    endpoint, content=body, headers=headers, params=params, timeout=timeout
                )
                wait = _busy_wait(response)
                if attempt == RETRIES or wait is None:
                    break
                if time.monotonic() + wait + MIN_ATTEMPT_S > deadline:
                    break
                sleep(wait)
    except (httpx.HTTPError, ValueError) as exc:
        return Outcome(note=f"errkb: not reachable at {url} ({type(exc).__name__}); job unaffected")
    if response.status_code != 200:
        tries = f" after {attempt + 1} tries" if attempt else ""
        return Outcome(note=f"{_refusal(response)}{tries}; job unaffected")
    return Outcome(answer=response.text.rstrip("\n"))


def _refusal(response: httpx.Response) -> str:
    """errkb's own one-line reason, ``errkb: <message> (<status> <code>)``, when it sent one.

    Anything else (a proxy's HTML page, an empty body) comes down to the status.
    """
    line = response.text[:MAX_REASON_CHARS].split("\n", 1)[0]
    if line.startswith("errkb: ") and line.isprintable() and len(line) < MAX_REASON_CHARS:
        return line
    return f"errkb: answered {response.status_code}"


def _busy_wait(response: httpx.Response) -> float | None:
    """Seconds to wait before asking again, or None when the answer is final."""
    if response.status_code not in BUSY_STATUSES:
        return None
    header = response.headers.get("retry-after", "").strip()
    after = float(header) if header.isdigit() else 1.0  # an HTTP-date: come back soon
    return after + _JITTER.uniform(0, MAX_JITTER_S)


def _agent() -> dict[str, str]:
    from importlib.metadata import version

    return {"User-Agent": f"errkb/{version('errkb')}"}
