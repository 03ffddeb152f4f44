"""Post results to the service: ``POST /api/v1/verifications``, bearer token, safe to repeat.

Every run carries its ``run_id``; the service stores a run once
(``store.record_verification``, target F4) and answers 200 for a duplicate,
so a POST that timed out is simply sent again with the same body. Only a
transport failure, 429 or a 5xx is retried; a refused token or a conflicting
payload is reported at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx

from app.errors import ErrkbError
from app.verify.outcome import Verification

ENDPOINT = "/api/v1/verifications"
ATTEMPTS = 4
BACKOFF_S = 0.5  # then 1 s, 2 s
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class PostFailed(ErrkbError):
    """The service refused the results, or could not be reached after retries."""


@dataclass(frozen=True)
class Posted:
    created: int
    duplicates: int


def post(
    verifications: Sequence[Verification],
    url: str,
    token: str,
    *,
    transport: httpx.BaseTransport | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Posted:
    """POST each run to the service; ``PostFailed`` on a refusal or when retries run out."""
    endpoint = url.rstrip("/")
    if not endpoint.endswith(ENDPOINT):
        endpoint += ENDPOINT
    headers = {"Authorization": f"Bearer {token}"}
    statuses = []
    with httpx.Client(transport=transport, timeout=30.0, headers=headers) as client:
        for verification in verifications:
            statuses.append(_post_one(client, endpoint, verification, sleep))
    return Posted(statuses.count(201), statuses.count(200))


def _post_one(
    client: httpx.Client, endpoint: str, verification: Verification, sleep: Callable[[float], None]
) -> int:
    """Send one run until the service answers for good; the same run_id on every attempt."""
    problem = ""
    for attempt in range(ATTEMPTS):
        if attempt:
            sleep(BACKOFF_S * 2 ** (attempt - 1))
        try:
            response = client.post(endpoint, json=verification.to_json())
        except httpx.TransportError as exc:
            problem = f"{type(exc).__name__}: {exc}"
            continue
        if response.status_code in (200, 201):  # 200: stored before (a retry), fine
            return response.status_code
        problem = f"HTTP {response.status_code}: {response.text[:300]}"
        if response.status_code not in RETRY_STATUSES:
            break
    raise PostFailed(f"posting run {verification.run_id} ({verification.article_id}): {problem}")
