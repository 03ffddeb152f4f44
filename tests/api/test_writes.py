"""Token-protected writes, feedback, articles and reload, on SQLite and PostgreSQL.

Targets D1-D3 (tokens), F4 (verifications idempotent by run_id), B6 (a bad
reload keeps the old KB), and the article statistics that feedback feeds.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.store import api_tokens
from app.store.engine import make_engine
from tests.api.conftest import TRACEBACK, app_client
from tests.kbfactory import VALID_ARTICLE, write_article

RUN: dict[str, Any] = {
    "run_id": "run-0001",
    "article_id": "sample-error",
    "content_hash": "abc123",
    "outcome": "verified",
    "environment": {"python": "3.11.7", "torch": "2.13.0", "gpus": 0},
    "started_at": "2026-11-20T10:00:00+00:00",
    "duration_s": 12.5,
    "detail": "repro failed as described; fixed.py passed",
}


def mint(db_url: str, name: str, scope: str) -> str:
    engine = make_engine(db_url)
    with Session(engine) as session:
        plaintext, _ = api_tokens.create_token(session, name=name, scopes=scope)
    engine.dispose()
    return plaintext


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_d1_verifications_need_a_live_token_with_the_verify_scope(
    db_client: TestClient, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Target D1: 401 missing / malformed / revoked, 403 wrong scope; no token in the logs."""
    verify, admin = mint(db_url, "worker", "verify"), mint(db_url, "ops", "admin")
    post = db_client.post
    missing = post("/api/v1/verifications", json=RUN)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert (
        post("/api/v1/verifications", json=RUN, headers={"Authorization": "Basic eDp5"}).status_code
        == 401
    )
    assert post("/api/v1/verifications", json=RUN, headers=bearer("short")).status_code == 401
    assert post("/api/v1/verifications", json=RUN, headers=bearer(verify + "x")).status_code == 401
    assert post("/api/v1/verifications", json=RUN, headers=bearer(admin)).status_code == 403
    engine = make_engine(db_url)
    with Session(engine) as session:
        api_tokens.revoke_token(session, name="worker")
    engine.dispose()
    revoked = post("/api/v1/verifications", json=RUN, headers=bearer(verify))
    assert revoked.status_code == 401
    assert "invalid_token" in revoked.headers["www-authenticate"]
    assert verify not in caplog.text
    assert admin not in caplog.text
    assert "authentication failed" in caplog.text


@pytest.mark.parametrize("name", ["token", "access_token", "api_key"])
def test_d2_a_token_in_the_query_string_is_refused_even_when_valid_and_never_logged(
    db_client: TestClient, db_url: str, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    """Target D2: 400 for a live token in the URL, with or without the header; nothing stored."""
    caplog.set_level(logging.DEBUG)
    verify, admin = mint(db_url, "worker", "verify"), mint(db_url, "ops", "admin")
    alone = db_client.post("/api/v1/verifications", json=RUN, params={name: verify})
    both = db_client.post(
        "/api/v1/verifications", json=RUN, params={name: verify}, headers=bearer(verify)
    )
    reload = db_client.post("/api/v1/admin/reload", params={name: admin}, headers=bearer(admin))
    for refused in (alone, both, reload):
        assert refused.status_code == 400, refused.text
        assert refused.json()["error"]["message"] == (
            "tokens are accepted only in the Authorization header"
        )
        assert verify not in refused.text
    assert db_client.get("/api/v1/articles/sample-error").json()["verification"] is None
    server_side = "\n".join(
        f"{r.getMessage()} {getattr(r, 'fields', '')}"
        for r in caplog.records
        if not r.name.startswith("httpx")  # the test's own client logs the URL it sent
    )
    assert "token in the query string" in server_side
    assert "/api/v1/verifications" in server_side  # the access line is there, its query is not
    assert verify not in server_side
    assert admin not in server_side


def test_f4_verifications_are_idempotent_by_run_id(db_client: TestClient, db_url: str) -> None:
    token = bearer(mint(db_url, "worker", "verify"))
    first = db_client.post("/api/v1/verifications", json=RUN, headers=token)
    assert first.status_code == 201, first.text
    again = db_client.post("/api/v1/verifications", json=RUN, headers=token)
    assert again.status_code == 200
    assert again.json() == first.json()
    changed = db_client.post(
        "/api/v1/verifications", json=RUN | {"outcome": "stale"}, headers=token
    )
    assert changed.status_code == 422
    assert changed.json()["error"]["code"] == "idempotency_key_reused"
    article = db_client.get("/api/v1/articles/sample-error").json()
    assert article["verification"]["run_id"] == "run-0001"
    assert article["verification"]["outcome"] == "verified"


def test_f4_ten_concurrent_posts_of_one_run_store_one_row(
    db_client: TestClient, db_url: str
) -> None:
    """Target F4, the concurrent half: one 201, the others 200 with the stored run."""
    token = bearer(mint(db_url, "worker", "verify"))
    run = RUN | {"run_id": "run-concurrent"}
    with ThreadPoolExecutor(max_workers=10) as pool:
        codes = list(
            pool.map(
                lambda _: db_client.post("/api/v1/verifications", json=run, headers=token),
                range(10),
            )
        )
    statuses = sorted(c.status_code for c in codes)
    assert statuses.count(201) == 1, statuses
    assert statuses == [200] * 9 + [201]
    engine = make_engine(db_url)
    try:
        with engine.connect() as db:
            stored = db.execute(
                sa.text("SELECT count(*) FROM verification_run WHERE run_id = 'run-concurrent'")
            ).scalar_one()
    finally:
        engine.dispose()
    assert stored == 1


def test_verification_free_text_is_redacted(db_client: TestClient, db_url: str) -> None:
    token = bearer(mint(db_url, "worker", "verify"))
    secret = "hf_" + "Qw3" * 11 + "z"
    run = RUN | {
        "run_id": "run-2",
        "detail": f"HF_TOKEN={secret}",
        "environment": {"HF_TOKEN": secret},
    }
    response = db_client.post("/api/v1/verifications", json=run, headers=token)
    assert response.status_code == 201
    assert secret not in response.text


def test_d3_find_token_compares_in_constant_time(db_url: str) -> None:
    """Target D3: the lookup is by hash, then hmac.compare_digest."""
    from app.store import migrate

    migrate.upgrade(db_url)
    plaintext = mint(db_url, "w", "verify")
    engine = make_engine(db_url)
    with (
        mock.patch.object(
            api_tokens.hmac, "compare_digest", wraps=api_tokens.hmac.compare_digest
        ) as spy,
        Session(engine) as session,
    ):
        assert api_tokens.find_token(session, plaintext=plaintext) is not None
    engine.dispose()
    spy.assert_called_once()


def test_d3_only_the_sha256_of_a_token_is_stored(db_url: str) -> None:
    """Target D3: the plaintext is in no column; the row holds its SHA-256, 256 bits minted."""
    from app.store import migrate

    migrate.upgrade(db_url)
    plaintext = mint(db_url, "w", "verify")
    secret = plaintext.removeprefix("errkb_verify_")
    assert len(base64.urlsafe_b64decode(secret + "=")) == 32
    engine = make_engine(db_url)
    try:
        with engine.connect() as db:
            rows = [tuple(r) for r in db.execute(sa.text("SELECT * FROM api_token"))]
    finally:
        engine.dispose()
    assert len(rows) == 1
    cells = [str(cell) for cell in rows[0]]
    assert hashlib.sha256(plaintext.encode()).hexdigest() in cells
    assert not any(secret in cell or secret[:12] in cell for cell in cells)


def _result_key(client: TestClient, text: str) -> str:
    answer = client.post("/api/v1/match", json={"text": text}).json()
    key: str = answer["result_key"]
    assert answer["result_url"].endswith(f"/r/{answer['match_event_id']}/{key}")
    return key


def test_feedback_shows_in_the_article_statistics(db_client: TestClient) -> None:
    key = _result_key(db_client, TRACEBACK)
    other = _result_key(db_client, TRACEBACK + "\n")
    fixed = db_client.post("/api/v1/feedback", json={"result_key": key, "verdict": "fixed"})
    assert fixed.status_code == 201, fixed.text
    assert fixed.json()["replaced"] is False
    wrong = {"result_key": other, "verdict": "wrong", "right_article_id": "sample-error"}
    assert db_client.post("/api/v1/feedback", json=wrong).status_code == 201
    stats = db_client.get("/api/v1/articles/sample-error").json()["stats"]
    assert stats == {"hits": 2, "fixed": 1, "wrong": 1, "named_right": 1}


def test_feedback_errors(db_client: TestClient) -> None:
    unknown = db_client.post("/api/v1/feedback", json={"result_key": "A" * 16, "verdict": "fixed"})
    assert unknown.status_code == 404
    key = _result_key(db_client, TRACEBACK)
    nowhere = {"result_key": key, "verdict": "wrong", "right_article_id": "no-such-article"}
    assert db_client.post("/api/v1/feedback", json=nowhere).status_code == 404
    bad = db_client.post("/api/v1/feedback", json={"result_key": key, "verdict": "meh"})
    assert bad.status_code == 422


def test_i1_feedback_names_the_answer_by_its_key_never_by_a_sequential_id(
    db_client: TestClient,
) -> None:
    answer = db_client.post("/api/v1/match", json={"text": TRACEBACK}).json()
    by_id = {"match_event_id": answer["match_event_id"], "verdict": "wrong"}
    assert db_client.post("/api/v1/feedback", json=by_id).status_code == 422
    key = answer["result_key"]
    near = key[:-1] + ("y" if key.endswith("x") else "x")  # one character off, never the key
    for guess in ("1", str(answer["match_event_id"]), near):
        body = {"result_key": guess.ljust(8, "0"), "verdict": "wrong"}
        assert db_client.post("/api/v1/feedback", json=body).status_code in (404, 422)
    stats = db_client.get("/api/v1/articles/sample-error").json()["stats"]
    assert stats["wrong"] == 0


def test_i2_one_verdict_per_answer_per_client(db_client: TestClient) -> None:
    key = _result_key(db_client, TRACEBACK)
    codes = []
    for n in range(20):  # the poisoning of issue 24: one client, one answer, many verdicts
        body = {"result_key": key, "verdict": "wrong" if n < 19 else "fixed"}
        codes.append(db_client.post("/api/v1/feedback", json=body).status_code)
    assert codes == [201] + [200] * 19
    stats = db_client.get("/api/v1/articles/sample-error").json()["stats"]
    assert (stats["wrong"], stats["fixed"]) == (0, 1)  # the last verdict, counted once
    proxied = {"X-Forwarded-For": "203.0.113.9"}  # not a trusted proxy: changes nothing
    again = db_client.post(
        "/api/v1/feedback", json={"result_key": key, "verdict": "wrong"}, headers=proxied
    )
    assert again.status_code == 200
    assert db_client.get("/api/v1/articles/sample-error").json()["stats"]["wrong"] == 1


def test_i5_feedback_is_rate_limited_per_client(db_url: str, tmp_path: Path) -> None:
    """A client that tries keys in turn meets the same per-address bucket as matches."""
    with app_client(db_url, tmp_path, rate_limit_per_minute=60, rate_limit_burst=4) as client:
        key = _result_key(client, TRACEBACK)
        codes = [
            client.post(
                "/api/v1/feedback",
                json={"result_key": f"guess{n:04d}", "verdict": "wrong"},
                headers={"X-Forwarded-For": f"10.0.0.{n}"},
            ).status_code
            for n in range(5)
        ]
        refused = client.post("/api/v1/feedback", json={"result_key": key, "verdict": "wrong"})
    assert codes == [404] * 3 + [429] * 2  # the match took the first token
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["retry-after"]) <= 2


def test_articles_filter_and_search_in_both_languages(client: TestClient, tmp_path: Path) -> None:
    everything = client.get("/api/v1/articles").json()
    assert everything["count"] == 1
    assert everything["articles"][0]["title"] == {"en": "Sample failure", "zh": "示例错误"}
    for query, count in [
        ({"library": "torch"}, 1),
        ({"library": "deepspeed"}, 0),
        ({"tag": "testing"}, 1),
        ({"q": "overfed"}, 1),
        ({"q": "喂得"}, 1),
        ({"q": "部件 喂"}, 1),
        ({"q": "WIDGET"}, 1),
        ({"q": "gremlin"}, 0),
        ({"q": "sample FAILURE"}, 1),
    ]:
        assert client.get("/api/v1/articles", params=query).json()["count"] == count, query


def test_one_article_in_both_languages_or_the_asked_one(client: TestClient) -> None:
    both = client.get("/api/v1/articles/sample-error").json()
    assert both["fix"]["zh"] == "少喂一点。"
    assert both["fix"]["en"].startswith("Feed it less")
    assert both["url"] == "/articles/sample-error"
    assert both["verification"] is None
    assert both["stats"] == {"hits": 0, "fixed": 0, "wrong": 0, "named_right": 0}
    zh = client.get("/api/v1/articles/sample-error", params={"lang": "zh"}).json()
    assert zh["title"] == {"zh": "示例错误"}
    for missing in ("/api/v1/articles/nope", "/api/v1/articles/Bad..ID"):
        response = client.get(missing)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"


def test_b6_reload_swaps_a_clean_kb_and_refuses_a_broken_one(
    db_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Target B6 over HTTP: 422 with the lint messages, the old KB still served."""
    caplog.set_level(logging.INFO)
    with app_client(db_url, tmp_path) as client:
        admin = bearer(mint(db_url, "ops", "admin"))
        before = client.get("/readyz").json()["kb_revision"]
        broken = copy.deepcopy(VALID_ARTICLE)
        broken["signatures"] = {"error": ["(?<=look)SampleError"]}
        write_article(tmp_path / "kb", broken)
        refused = client.post("/api/v1/admin/reload", headers=admin)
        assert refused.status_code == 422
        assert refused.json()["error"]["code"] == "kb_invalid"
        assert any("sample-error.yaml" in d for d in refused.json()["error"]["details"])
        assert client.get("/readyz").json()["kb_revision"] == before
        assert client.post("/api/v1/match", content=TRACEBACK).json()["matches"]
        renamed = copy.deepcopy(VALID_ARTICLE)
        renamed["title"] = {"en": "Renamed", "zh": "改名"}
        write_article(tmp_path / "kb", renamed)
        swapped = client.post("/api/v1/admin/reload", headers=admin)
        assert swapped.status_code == 200, swapped.text
        assert swapped.json()["swapped"] is True
        assert client.get("/readyz").json()["kb_revision"] == swapped.json()["revision"] != before
        assert (
            client.post("/api/v1/match", json={"text": TRACEBACK}).json()["matches"][0]["title"]
            == "Renamed"
        )
        assert client.post("/api/v1/admin/reload").status_code == 401
        verify = bearer(mint(db_url, "worker", "verify"))
        assert client.post("/api/v1/admin/reload", headers=verify).status_code == 403
        metrics = client.get("/metrics").text
    assert "errkb_kb_reloads_total 1.0" in metrics
    assert "errkb_kb_reload_failures_total 1.0" in metrics


def test_a5_feedback_comments_are_stored_decoded_and_redacted(db_client: TestClient) -> None:
    """A comment copied from a terminal: colours, a cursor move and a title sequence."""
    token = "hf_" + "Zq8" * 11 + "x"  # built here: no token-shaped literal in the file
    comment = f"see \x1b[2KHF_TOKEN=\x1b[1;33m{token}\x1b[0m \x1b]0;title\x07 done"
    key = db_client.post("/api/v1/match", json={"text": TRACEBACK}).json()["result_key"]
    sent = {"result_key": key, "verdict": "wrong", "comment": comment}
    assert db_client.post("/api/v1/feedback", json=sent).status_code == 201
    engine = db_client.app.state.services.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        stored = conn.execute(sa.text("SELECT comment FROM feedback")).scalar_one()
    assert stored == "see HF_TOKEN=[REDACTED:hf-token]  done"  # the OSC title is gone
