"""What users of such a service expect of it (research note, section H): the targets H1-H8.

The others: H4 in tests/test_app.py, H5 and H8's real curl in
tests/e2e/test_serve.py, H6 and H9 in tests/test_cli.py, H11 in
tests/test_deploy.py; H10 is not a test (docs/reliability.md says why).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import schemathesis
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from tests.api.conftest import TRACEBACK, app_client

MIB = 1 << 20
PROBES = {"/healthz", "/readyz"}
BROWSER = {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0",
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
}
CURL = {"User-Agent": "curl/8.5.0", "Accept": "*/*"}


def test_h1_the_openapi_document_loads_in_schemathesis(client: TestClient) -> None:
    """Target H1 (that /docs loads nothing from another host: the C15 test)."""
    document = client.get("/openapi.json").json()
    assert document["openapi"].startswith("3.")
    loaded = schemathesis.openapi.from_dict(document)
    operations = [result.ok() for result in loaded.get_all_operations()]
    assert {(op.method.upper(), op.path) for op in operations} >= {
        ("POST", "/api/v1/match"),
        ("GET", "/api/v1/articles/{article_id}"),
        ("POST", "/api/v1/verifications"),
    }


def test_h2_every_json_route_is_versioned_and_deprecated_ones_say_so(client: TestClient) -> None:
    """Target H2. No route is deprecated today; one that is must send the two headers."""
    paths = client.get("/openapi.json").json()["paths"]
    assert sorted(set(paths) - PROBES) == sorted(p for p in paths if p.startswith("/api/v1/"))
    for path, operations in paths.items():
        for method, operation in operations.items():
            if operation.get("deprecated") and "{" not in path:
                answer = client.request(method, path)
                assert {"deprecation", "sunset"} <= set(answer.headers), (method, path)


def test_h3_metrics_parse_and_carry_no_request_content(client: TestClient) -> None:
    """Target H3: the named series exist, every label value is bounded and content-free."""
    secret = "hf_" + "Q7" * 17
    marker = "flux capacitor overheated"
    client.post("/api/v1/match", content=TRACEBACK)
    client.post("/api/v1/match", content=f"ValueError: {marker} token={secret}\n")
    client.get("/api/v1/articles/no-such-article")
    text = client.get("/metrics").text
    families = {family.name: family for family in text_string_to_metric_families(text)}
    assert families["errkb_match_seconds"].type == "histogram"
    assert families["errkb_matches"].type == "counter"
    outcomes = {s.labels.get("outcome") for s in families["errkb_matches"].samples}
    assert {"matched", "unknown"} <= outcomes
    assert "errkb_kb_reload_failures" in families
    revision = families["errkb_kb_revision"].samples
    assert len(revision) == 1
    assert revision[0].value == 1
    assert len(revision[0].labels["revision"]) == 12
    allowed = {"route", "method", "status", "outcome", "article_id", "result", "reason",
               "revision", "state", "le"}  # fmt: skip
    for family in families.values():
        for sample in family.samples:
            assert set(sample.labels) <= allowed, sample
            for value in sample.labels.values():
                assert len(value) <= 64, sample
                assert marker not in value
                assert secret not in value
                assert "testclient" not in value  # the client's address
    assert "no-such-article" not in text
    assert secret not in text


def test_h7_curl_gets_a_short_text_answer_programs_json_browsers_html(client: TestClient) -> None:
    """Target H7: negotiated on Accept and User-Agent, which ``Vary`` names."""
    text = client.post("/api/v1/match", content=TRACEBACK, headers=CURL)
    assert text.headers["content-type"] == "text/plain; charset=utf-8"
    assert len(text.text.splitlines()) <= 20
    assert "\x1b" not in text.text
    assert text.headers["vary"] == "Accept, Accept-Language, User-Agent"
    asked = client.post(
        "/api/v1/match", content=TRACEBACK, headers={**CURL, "Accept": "application/json"}
    )
    assert asked.json()["matches"][0]["article_id"] == "sample-error"
    program = client.post("/api/v1/match", content=TRACEBACK)
    assert program.headers["content-type"] == "application/json"
    page = client.get("/", headers=BROWSER)
    assert page.headers["content-type"].startswith("text/html")


def _is_one_line_for_curl(answer: object) -> bool:
    body = answer.text  # type: ignore[attr-defined]
    return (
        answer.headers["content-type"] == "text/plain; charset=utf-8"  # type: ignore[attr-defined]
        and body.startswith("errkb: ")
        and body.endswith("\n")
        and body.count("\n") == 1
        and "\x1b" not in body
    )


def test_h8_refusals_are_one_readable_line_for_curl_and_json_for_programs(
    sqlite_url: str, tmp_path: Path
) -> None:
    """Target H8: 413, 429 and 503 (busy or past the deadline), each as curl shows it."""
    with app_client(
        sqlite_url, tmp_path, max_body_bytes=4 * MIB, max_text_bytes=8 * MIB, big_body_bytes=MIB,
        answer_seconds=0.001, rate_limit_per_minute=60, rate_limit_burst=4,
    ) as client:  # fmt: skip
        too_big = client.post("/api/v1/match", content=b"x" * (5 * MIB), headers=CURL)
        assert too_big.status_code == 413
        assert _is_one_line_for_curl(too_big), too_big.text
        assert too_big.text.endswith("(413 too_large)\n")

        bomb = gzip.compress(b"\0" * (16 * MIB))
        headers = {**CURL, "Content-Encoding": "gzip"}
        expanded = client.post("/api/v1/match", content=bomb, headers=headers)
        assert expanded.status_code == 413
        assert _is_one_line_for_curl(expanded), expanded.text

        big_log = (TRACEBACK * (2 * MIB // len(TRACEBACK))).encode()
        late = client.post("/api/v1/match", content=big_log, headers=CURL)
        assert late.status_code == 503
        assert _is_one_line_for_curl(late), late.text
        assert "no answer within 0.001 s" in late.text
        assert int(late.headers["retry-after"]) >= 1

        as_json = client.post("/api/v1/match", content=b"x" * (5 * MIB))
        assert as_json.status_code == 413
        assert as_json.json()["error"]["code"] == "too_large"

        limited = [client.post("/api/v1/match", content=TRACEBACK, headers=CURL) for _ in range(4)]
        refused = limited[-1]
        assert refused.status_code == 429
        assert _is_one_line_for_curl(refused), refused.text
        assert int(refused.headers["retry-after"]) >= 1
