"""Operations: security headers, request ids, JSON access logs, metrics, docs, trusted hosts.

Targets C14 (headers on every response), C15 (docs offline), C18 (Host),
D7 (secret settings), and the per-app Prometheus registry.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from app.http.logs import JsonFormatter
from app.http.middleware import CSP
from app.settings import Settings
from tests.api.conftest import TRACEBACK, app_client

PATHS = ["/healthz", "/readyz", "/api/v1/articles", "/no/such/path", "/docs", "/metrics"]


@pytest.mark.parametrize("path", PATHS)
def test_security_headers_on_every_response(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.headers["content-security-policy"] == CSP
    assert "object-src 'none'" in CSP
    assert "frame-ancestors 'none'" in CSP
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["cross-origin-opener-policy"] == "same-origin"
    assert response.headers["x-frame-options"] == "DENY"
    assert "strict-transport-security" not in response.headers
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["x-request-id"])


def test_hsts_only_when_served_over_https(sqlite_url: str, tmp_path: Path) -> None:
    with app_client(sqlite_url, tmp_path, https=True) as client:
        assert client.get("/healthz").headers["strict-transport-security"].startswith("max-age=")


def test_unknown_path_and_method_use_the_error_shape(client: TestClient) -> None:
    assert client.get("/nope").json() == {"error": {"code": "not_found", "message": "Not Found"}}
    assert client.get("/api/v1/match").json()["error"]["code"] == "method_not_allowed"


def test_request_id_is_taken_when_sane_and_made_otherwise(client: TestClient) -> None:
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"] == (
        "abc-123"
    )
    made = client.get("/healthz", headers={"X-Request-ID": "<script>" + "x" * 100}).headers
    assert re.fullmatch(r"[0-9a-f]{32}", made["x-request-id"])


def test_one_json_access_line_per_request_without_content(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="errkb.access")
    client.post(
        "/api/v1/match?format=json&token=t0ps3cret",
        content=TRACEBACK,
        headers={"User-Agent": "curl/8.5", "X-Request-ID": "rid-1"},
    )
    records = [r for r in caplog.records if r.name == "errkb.access"]
    assert len(records) == 1
    line = json.loads(JsonFormatter().format(records[0]))
    assert line["request_id"] == "rid-1"
    assert line["route"] == "/api/v1/match"
    assert line["status"] == 200
    assert line["client_kind"] == "curl"
    assert line["body_bytes"] == len(TRACEBACK)
    assert line["duration_ms"] >= 0
    assert "t0ps3cret" not in caplog.text
    assert "SampleError" not in caplog.text


def test_metrics_count_requests_matches_and_sizes(client: TestClient) -> None:
    client.post("/api/v1/match", content=TRACEBACK)
    client.post("/api/v1/match", content="nothing to see")
    text = client.get("/metrics").text
    assert 'errkb_http_requests_total{method="POST",route="/api/v1/match",status="200"} 2.0' in text
    assert 'errkb_article_matches_total{article_id="sample-error"} 1.0' in text
    assert 'errkb_matches_total{outcome="unknown"} 1.0' in text
    assert 'errkb_http_request_body_bytes_count{route="/api/v1/match"} 2.0' in text
    assert 'errkb_http_request_duration_seconds_bucket{le="0.5",route="/api/v1/match"}' in text
    assert "errkb_kb_articles 1.0" in text


def test_every_app_has_its_own_registry(sqlite_url: str, tmp_path: Path) -> None:
    with app_client(sqlite_url, tmp_path) as first, app_client(sqlite_url, tmp_path) as second:
        first.post("/api/v1/match", content=TRACEBACK)
        assert 'errkb_matches_total{outcome="matched"} 1.0' in first.get("/metrics").text
        assert 'outcome="matched"' not in second.get("/metrics").text


def test_c15_docs_are_local_and_the_schema_is_served(client: TestClient) -> None:
    """Target C15: no external URL in the page; its stylesheet comes from here."""
    page = client.get("/docs")
    assert page.status_code == 200
    assert "/api/v1/match" in page.text
    assert "multipart/form-data" in page.text
    assert not re.search(r"(src|href)=\"(https?:)?//", page.text)
    assert "<script" not in page.text
    assert client.get("/docs/docs.css").headers["content-type"].startswith("text/css")
    assert client.get("/openapi.json").json()["info"]["title"] == "errkb"
    assert client.get("/redoc").status_code == 404


def test_docs_can_be_turned_off(sqlite_url: str, tmp_path: Path) -> None:
    with app_client(sqlite_url, tmp_path, docs=False) as client:
        assert client.get("/docs").status_code == 404
        assert client.get("/openapi.json").status_code == 404


def test_c18_trusted_hosts_refuse_others_in_the_error_shape(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Target C18."""
    with app_client(sqlite_url, tmp_path, allowed_hosts=["errkb.example.org"]) as client:
        evil = client.get("/healthz", headers={"Host": "evil.example"})
        good = client.get("/healthz", headers={"Host": "errkb.example.org"})
    assert evil.status_code == 400
    assert evil.json()["error"]["code"] == "bad_request"
    assert evil.headers["x-content-type-options"] == "nosniff"
    assert good.status_code == 200


def test_d7_secret_settings_never_show(monkeypatch: pytest.MonkeyPatch) -> None:
    """Target D7: the database URL may hold a password."""
    monkeypatch.setenv("ERRKB_DATABASE_URL", "postgresql+psycopg://errkb:Sup3rS3cret@db/errkb")
    monkeypatch.setenv("ERRKB_ALLOWED_HOSTS", "a.example, b.example")
    settings = Settings()
    assert "Sup3rS3cret" not in repr(settings)
    assert "Sup3rS3cret" not in str(settings)
    assert settings.database_url.get_secret_value().endswith("@db/errkb")
    assert settings.allowed_hosts == ["a.example", "b.example"]


def test_echo_endpoint_only_when_enabled(sqlite_url: str, tmp_path: Path) -> None:
    with app_client(sqlite_url, tmp_path) as client:
        assert client.post("/api/v1/_echo", content=b"abc").status_code == 404
    with app_client(sqlite_url, tmp_path, echo_endpoint=True) as client:
        assert client.post("/api/v1/_echo", content=b"abc").json() == {"bytes": 3}
        assert "/api/v1/_echo" not in client.get("/openapi.json").text


def _api_routes(routes: list[object]) -> list[APIRoute]:
    """The app's API routes, through the routers it included."""
    found: list[APIRoute] = []
    for route in routes:
        if isinstance(route, APIRoute):
            found.append(route)
        elif (router := getattr(route, "original_router", None)) is not None:
            found += _api_routes(router.routes)
    return found


def _sync_dependencies(dependant: Dependant) -> list[str]:
    found = [] if dependant.call is None else [dependant.call]
    for sub in dependant.dependencies:
        found += _sync_dependencies(sub)  # type: ignore[arg-type]
    return [getattr(call, "__qualname__", repr(call)) for call in found if _is_sync(call)]


def _is_sync(call: object) -> bool:
    inner = getattr(call, "__call__", None)  # noqa: B004 - classes like HTTPBearer
    return not (inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(inner))


def test_api_routes_never_hop_to_the_thread_pool(client: TestClient) -> None:
    """A plain ``def`` endpoint or dependency runs in the thread pool: one hop costs more
    than matching a 10 KB traceback (goal P8; benchmarks/http.py measured it)."""
    routes = _api_routes(client.app.routes)  # type: ignore[attr-defined]
    assert any(r.path == "/api/v1/match" for r in routes)
    offenders = {r.path: _sync_dependencies(r.dependant) for r in routes}
    assert {path: names for path, names in offenders.items() if names} == {}


def test_i8_relative_links_are_announced_at_start_up(
    sqlite_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="app.main"):
        with app_client(sqlite_url, tmp_path, public_url=""):
            pass
        assert any("ERRKB_PUBLIC_URL is unset" in r.getMessage() for r in caplog.records)
        caplog.clear()
        with app_client(sqlite_url, tmp_path, public_url="https://errkb.example.org"):
            pass
        with app_client(sqlite_url, tmp_path, allowed_hosts=["testserver"]):
            pass
        assert not any("ERRKB_PUBLIC_URL" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("settings", "link"),
    [
        ({}, "/articles/sample-error"),
        (
            {"public_url": "https://errkb.example.org/"},
            "https://errkb.example.org/articles/sample-error",
        ),
        ({"allowed_hosts": ["testserver"]}, "http://testserver/articles/sample-error"),
        ({"allowed_hosts": ["testserver", "*.example.org"]}, "/articles/sample-error"),
    ],
    ids=["default", "public-url", "exact-hosts", "wildcard-host"],
)
def test_i8_links_follow_the_request_only_when_its_host_was_checked(
    sqlite_url: str, tmp_path: Path, settings: dict[str, Any], link: str
) -> None:
    """The request's URL is used for links only when ERRKB_ALLOWED_HOSTS names every host
    exactly (TrustedHostMiddleware refused any other before the route ran)."""
    with app_client(sqlite_url, tmp_path, **settings) as client:
        answer = client.post("/api/v1/match", content=TRACEBACK).json()
        article = client.get("/api/v1/articles/sample-error").json()
    assert answer["matches"][0]["url"] == link
    assert article["url"] == link
    assert answer["result_url"].startswith(link.removesuffix("articles/sample-error") + "r/")
