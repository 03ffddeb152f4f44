"""Target A5: 1,185 fake secrets of 237 formats posted every way leave no trace anywhere.

Each secret sits on the error line of its own traceback (so it is part of the
root-cause event: the excerpt, the fingerprint's source, the unmatched
sample) and again in the lines around it. They are posted as JSON, raw text,
gzip and multipart, in feedback comments (with an ANSI colour code and a
cursor-movement sequence between key and value, as a terminal copy gives
them), in a 422-provoking field and as an Idempotency-Key. Then every place
errkb writes to is searched for every secret and for a 12-character slice of
it: every table of the database, every log record at every level, every
response body and header, /metrics and /api/v1/unmatched. On SQLite and on
PostgreSQL.
"""

from __future__ import annotations

import gzip
import logging
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from tests.api.conftest import app_client
from tests.api.secret_corpus import corpus

SEEDS = 5
MODES = ("json", "raw", "gzip", "multipart")


def log_with(line: str, n: int) -> str:
    return (
        f"[rank0]: step {n} loss 0.5 ({line})\n"
        "[rank0]: Traceback (most recent call last):\n"
        f'[rank0]:   File "/work/upload_{n % 7}.py", line 12, in push\n'
        f"[rank0]: RuntimeError: upload failed: {line}\n"
        f"[rank0]: retrying with {line}\n"
    )


def coloured(line: str) -> str:
    """The line as a terminal copy gives it: colour and a cursor move around the value."""
    for glue in ("=", ": ", ":"):
        if glue in line:
            key, _, value = line.partition(glue)
            return f"see \x1b[2K{key}{glue}\x1b[1;33m{value}\x1b[0m"
    return f"see \x1b[31m{line}\x1b[0m"


def post(client: TestClient, mode: str, text: str, headers: dict[str, str]) -> Any:
    if mode == "json":
        return client.post("/api/v1/match", json={"text": text}, headers=headers)
    if mode == "raw":
        return client.post("/api/v1/match", content=text, headers=headers)
    if mode == "gzip":
        gz = {**headers, "Content-Encoding": "gzip"}
        return client.post("/api/v1/match", content=gzip.compress(text.encode()), headers=gz)
    return client.post("/api/v1/match", files={"log": ("t.log", text.encode())}, headers=headers)


def database_dump(client: TestClient) -> str:
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    out = []
    with engine.connect() as conn:
        for table in sa.inspect(conn).get_table_names():
            out.extend(repr(tuple(row)) for row in conn.execute(sa.text(f"SELECT * FROM {table}")))
    return "\n".join(out)


def leaks(haystack: str, secrets: list[str]) -> list[str]:
    """The secrets found whole, or by the 12-character slice around their middle."""
    return [s for s in secrets if _found(s, s[len(s) // 2 - 6 : len(s) // 2 + 6], haystack)]


def _found(secret: str, middle: str, haystack: str) -> bool:
    # Where the slice lies inside the secret (12+ characters), the whole secret can only be
    # in the haystack if the slice is: one scan of the (megabytes long) haystack, not two.
    if middle in secret:
        return middle in haystack
    return secret in haystack or middle in haystack


@pytest.mark.slow
def test_a5_no_secret_is_stored_logged_or_echoed(
    db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    cases = corpus(SEEDS)
    assert len(cases) >= 1000
    assert len({name for name, _, _ in cases}) >= 200
    seen: list[str] = []
    with app_client(db_url, tmp_path) as client:
        for n, (_name, line, _secret) in enumerate(cases):
            response = post(client, MODES[n % len(MODES)], log_with(line, n), {"X-Run": str(n)})
            assert response.status_code == 200, response.text
            seen.append(response.text + repr(dict(response.headers)))
            if n % 10 == 0:
                key = response.json()["result_key"]
                fb = {"result_key": key, "verdict": "wrong", "comment": coloured(line)}
                seen.append(client.post("/api/v1/feedback", json=fb).text)
                seen.append(client.post("/api/v1/match", json={"text": line, "lang": line}).text)
                seen.append(post(client, "raw", line, {"Idempotency-Key": _secret[:100]}).text)
        seen.append(client.get("/metrics").text)
        unmatched = client.get("/api/v1/unmatched", params={"limit": 200})
        seen.append(unmatched.text)
        dump = database_dump(client)
    secrets = [secret for _, _, secret in cases]
    assert unmatched.json()["clusters"], "the unmatched list was exercised"
    assert "match_event" in dump or dump  # the tables hold rows
    assert leaks(dump, secrets) == []
    assert leaks(caplog.text + repr([r.__dict__ for r in caplog.records]), secrets) == []
    assert leaks("\n".join(seen), secrets) == []


def test_leaks_finds_a_secret_whole_or_by_its_middle_slice_and_nothing_else() -> None:
    secret, short = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2, "k9Q"
    middle = secret[len(secret) // 2 - 6 : len(secret) // 2 + 6]
    assert leaks(f"x {secret} y", [secret, short]) == [secret]
    assert leaks(f"only {middle} here", [secret]) == [secret]
    assert leaks(f"{secret[:10]} {secret[-10:]}", [secret]) == []
    assert leaks("k9Q", [short]) == [short]  # shorter than the slice: found whole
    assert leaks("k9", [short]) == []
