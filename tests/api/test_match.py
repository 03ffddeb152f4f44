"""POST /api/v1/match in every form, the answer in JSON and plain text, and what it stores."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from tests.api.conftest import TRACEBACK, UNKNOWN, app_client

FORMS = {
    "json": {"json": {"text": TRACEBACK}},
    "text/plain": {"content": TRACEBACK, "headers": {"Content-Type": "text/plain"}},
    "octet-stream": {
        "content": TRACEBACK.encode(),
        "headers": {"Content-Type": "application/octet-stream"},
    },
    "curl --data-binary": {
        "content": TRACEBACK,
        "headers": {"Content-Type": "application/x-www-form-urlencoded"},
    },
    "gzip": {
        "content": gzip.compress(TRACEBACK.encode()),
        "headers": {"Content-Type": "text/plain", "Content-Encoding": "gzip"},
    },
    "gzip file without header": {"content": gzip.compress(TRACEBACK.encode())},
    "multipart": {"files": {"log": ("train.log", TRACEBACK.encode())}},
    "multipart .gz": {"files": {"log": ("train.log.gz", gzip.compress(TRACEBACK.encode()))}},
    "multipart text field": {"files": {"text": (None, TRACEBACK)}},
}


@pytest.mark.parametrize("form", FORMS)
def test_every_form_gives_the_same_answer(client: TestClient, form: str) -> None:
    response = client.post("/api/v1/match", **FORMS[form])  # type: ignore[arg-type]
    assert response.status_code == 200, response.text
    body = response.json()
    top = body["matches"][0]
    assert top["article_id"] == "sample-error"
    assert top["url"] == "/articles/sample-error"
    assert top["summary_markdown"].startswith("**[Sample failure](/articles/")
    assert "**Fix:** Feed it less:" in top["summary_markdown"]
    assert isinstance(body["match_event_id"], int)
    assert body["events"][0]["exception"] == "SampleError"
    assert body["unknown"] is False
    assert body["lang"] == "en"
    assert response.headers["cache-control"] == "no-store"


def test_answer_is_the_cli_json_shape_plus_links(client: TestClient) -> None:
    body = client.post("/api/v1/match", json={"text": TRACEBACK}).json()
    assert set(body) == {"matches", "events", "unknown", "input", "match_event_id", "lang"} | {
        "kb_revision",
        "result_url",
        "answer_text",
        "hints",
        "result_key",
    }
    assert set(body["matches"][0]) == {
        "article_id", "score", "confidence", "title", "event_index", "evidence", "url",
        "summary_markdown", "fix_markdown", "layer", "layer_note",
    }  # fmt: skip
    assert body["result_url"].startswith("/r/")
    assert body["answer_text"].startswith("errkb: Sample failure [sample-error]")
    assert set(body["input"]) == {"bytes", "lines", "redactions"}


@pytest.mark.parametrize(
    ("agent", "accept", "fmt", "expect"),
    [
        ("curl/8.5.0", None, None, "text"),
        ("Wget/1.21", None, None, "text"),
        ("HTTPie/3.2", None, None, "text"),
        ("errkb/0.1.0", None, None, "text"),
        ("python-httpx/0.28", "text/plain", None, "text"),
        ("python-httpx/0.28", None, None, "json"),
        ("curl/8.5.0", None, "json", "json"),
        ("curl/8.5.0", "application/json", None, "json"),
        ("python-httpx/0.28", None, "text", "text"),
    ],
)
def test_format_follows_client_accept_and_override(
    client: TestClient, agent: str, accept: str | None, fmt: str | None, expect: str
) -> None:
    headers = {"User-Agent": agent, **({"Accept": accept} if accept else {})}
    params = {"format": fmt} if fmt else {}
    response = client.post("/api/v1/match", content=TRACEBACK, headers=headers, params=params)
    assert response.headers["content-type"].startswith(
        "text/plain" if expect == "text" else "application/json"
    )


def test_plain_text_answer_is_a_few_lines(client: TestClient) -> None:
    text = client.post("/api/v1/match", content=TRACEBACK, headers={"User-Agent": "curl/8"}).text
    lines = text.strip().split("\n")
    assert lines[0].startswith("errkb: Sample failure [sample-error] — confidence high")
    assert lines[1] == "cause: A failure used by the tests."
    assert lines[2] == "Fix: Feed it less:"
    assert lines[3] == "    feed(1)"  # the step's code, indented: it survives a job log
    assert lines[4] == "see: /articles/sample-error"
    assert lines[5].startswith("result: /r/")  # the last line is the link
    assert len(lines) == 6


def test_unknown_log_says_so_in_text_and_lands_on_the_unmatched_list(client: TestClient) -> None:
    for _ in range(3):
        text = client.post("/api/v1/match", content=UNKNOWN, headers={"User-Agent": "curl/8"}).text
    assert text.startswith("errkb: no known article matches this log (1 error event(s); first:")
    assert text.rstrip().endswith("to-do list: /unmatched")  # the page (issue 21)
    clusters = client.get("/api/v1/unmatched").json()["clusters"]
    assert len(clusters) == 1
    assert clusters[0]["count"] == 3
    assert clusters[0]["exception"] == "ValueError"
    assert "flux capacitor" in clusters[0]["sample"]


@pytest.mark.parametrize(
    ("how", "expect"),
    [
        ({"json": {"text": TRACEBACK, "lang": "zh"}}, "zh"),
        ({"json": {"text": TRACEBACK, "lang": "en"}, "params": {"lang": "zh"}}, "en"),
        ({"json": {"text": TRACEBACK}, "params": {"lang": "zh"}}, "zh"),
        ({"json": {"text": TRACEBACK}, "headers": {"Accept-Language": "zh-CN,zh;q=0.9"}}, "zh"),
        ({"json": {"text": TRACEBACK}, "headers": {"Accept-Language": "fr, en;q=0.5"}}, "en"),
        ({"json": {"text": TRACEBACK}, "headers": {"Accept-Language": "fr"}}, "en"),
    ],
)
def test_language_field_then_parameter_then_accept_language(
    client: TestClient, how: dict[str, object], expect: str
) -> None:
    body = client.post("/api/v1/match", **how).json()  # type: ignore[arg-type]
    assert body["lang"] == expect
    title = body["matches"][0]["title"]
    assert title == ("示例错误" if expect == "zh" else "Sample failure")
    if expect == "zh":
        assert "**修复:** 少喂一点。" in body["matches"][0]["summary_markdown"]


def test_default_language_setting(sqlite_url: str, tmp_path: Path) -> None:
    with app_client(sqlite_url, tmp_path, default_lang="zh") as client:
        assert client.post("/api/v1/match", json={"text": TRACEBACK}).json()["lang"] == "zh"


def test_c17_json_sent_as_text_plain_is_log_text(client: TestClient) -> None:
    """Target C17: a text/plain body is never parsed as JSON."""
    raw = json.dumps({"text": "nothing", "lang": "zh"})
    body = client.post("/api/v1/match", content=raw, headers={"Content-Type": "text/plain"}).json()
    assert body["lang"] == "en"
    assert body["input"]["bytes"] == len(raw)


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xfe\xfa" + TRACEBACK.encode(),
        TRACEBACK.encode().replace(b"widget", b"wid\x00get"),
        "\ufeff".encode() + TRACEBACK.encode(),
        TRACEBACK.encode("utf-16"),
        b"\xed\xa0\x80" + TRACEBACK.encode(),
    ],
    ids=["invalid-utf8", "nul", "bom", "utf16", "lone-surrogate"],
)
def test_c7_odd_encodings_never_fail(client: TestClient, data: bytes) -> None:
    """Target C7: each still finds the traceback (junk after ``ff fe`` is not UTF-16)."""
    response = client.post("/api/v1/match", content=data, headers={"Accept": "application/json"})
    assert response.status_code == 200
    assert response.json()["matches"][0]["article_id"] == "sample-error"


CONTROLS = ["\x1b[2J", "\x1b]8;;http://evil\x07", "\x1b]0;PWNED\x07", "\x9b", "\u202e"]


def test_c8_control_sequences_never_reach_the_output(client: TestClient) -> None:
    """Target C8: neither the text nor the JSON answer carries the input's controls."""
    log = "".join(CONTROLS) + TRACEBACK.replace("exploded", "exploded" + "".join(CONTROLS))
    for fmt in ("text", "json"):
        response = client.post("/api/v1/match", content=log, params={"format": fmt})
        assert response.status_code == 200
        shown = response.text if fmt == "text" else json.dumps(response.json(), ensure_ascii=False)
        assert not any(control in shown for control in CONTROLS)
        assert "sample-error" in shown


def test_match_event_is_stored_redacted_and_bounded(client: TestClient) -> None:
    noise = "".join(f'  File "/w/layer{n}.py", line {n}, in f{n}\n' for n in range(3000))
    log = TRACEBACK.replace(
        "Traceback (most recent call last):\n", "Traceback (most recent call last):\n" + noise
    )
    log = log.replace("exploded", "exploded HF_TOKEN=hf_" + "a1B2" * 8 + "cD")
    body = client.post("/api/v1/match", json={"text": log}).json()
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        row = (
            conn.execute(
                sa.text(
                    "SELECT match_event.*, stored_text.body AS excerpt FROM match_event"
                    " JOIN stored_text ON stored_text.id = match_event.excerpt_id"
                    " WHERE match_event.id = :id"
                ),
                {"id": body["match_event_id"]},
            )
            .mappings()
            .one()
        )
    assert row["top_article_id"] == "sample-error"
    assert len(row["excerpt"].encode()) <= 8 * 1024
    assert "hf_a1B2" not in row["excerpt"]
    assert row["client_kind"] == "api"
    assert row["lang"] == "en"
    assert len(row["fingerprint"]) == 64
    assert row["kb_revision"] == body["kb_revision"]


def test_f5_idempotency_key_counts_a_retry_once(client: TestClient) -> None:
    headers = {"Idempotency-Key": "job-42-attempt-1"}
    first = client.post("/api/v1/match", content=UNKNOWN, headers=headers).json()
    again = client.post("/api/v1/match", content=UNKNOWN, headers=headers).json()
    assert first["match_event_id"] == again["match_event_id"]


def test_i8_an_idempotency_key_reused_with_another_body_is_422(client: TestClient) -> None:
    """Issue 24 item 8: the reused key returned the first body's event for another body."""
    headers = {"Idempotency-Key": "job-43-attempt-1"}
    first = client.post("/api/v1/match", content=UNKNOWN, headers=headers)
    again = client.post("/api/v1/match", content=UNKNOWN, headers=headers)
    other = client.post("/api/v1/match", content=TRACEBACK, headers=headers)
    assert first.status_code == again.status_code == 200
    assert first.json()["match_event_id"] == again.json()["match_event_id"]
    assert other.status_code == 422
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    fresh = client.post("/api/v1/match", content=TRACEBACK, headers={"Idempotency-Key": "k-2"})
    assert fresh.status_code == 200
    assert fresh.json()["match_event_id"] != first.json()["match_event_id"]


def test_a_database_failure_does_not_fail_the_match(client: TestClient) -> None:
    engine = client.app.state.services.engine  # type: ignore[attr-defined]
    with engine.begin() as conn:
        conn.execute(sa.text("DROP TABLE feedback"))
        conn.execute(sa.text("DROP TABLE match_event"))
    response = client.post("/api/v1/match", json={"text": TRACEBACK})
    assert response.status_code == 200
    assert response.json()["match_event_id"] is None
    assert response.json()["matches"][0]["article_id"] == "sample-error"
    assert "errkb_persistence_failures_total 1.0" in client.get("/metrics").text


def test_the_cache_answers_identical_logs_with_one_stored_event(
    sqlite_url: str, tmp_path: Path
) -> None:
    with app_client(sqlite_url, tmp_path, cache_seconds=60) as client:
        ids = {
            client.post("/api/v1/match", content=TRACEBACK).json()["match_event_id"]
            for _ in range(5)
        }
        other = client.post("/api/v1/match", content=TRACEBACK, params={"lang": "zh"}).json()
        metrics = client.get("/metrics").text
    assert len(ids) == 1
    assert other["match_event_id"] not in ids
    assert 'errkb_match_cache_total{result="cached"} 4.0' in metrics
    assert 'errkb_match_cache_total{result="computed"} 2.0' in metrics


@pytest.mark.parametrize(
    "body",
    [b"", b" \n\t\r\n  ", gzip.compress(b"\n\n"), b"\x00" * 10_000, b"\x00\n\x00 \x7f\n"],
    ids=["empty", "blanks", "gzip-blanks", "nuls", "nuls-and-blanks"],
)
def test_c7_an_empty_blank_or_nul_log_is_422_and_stores_nothing(
    client: TestClient, body: bytes
) -> None:
    """A log of NULs (a truncated core file, /dev/zero) is as empty as no log: nothing stored."""
    response = client.post("/api/v1/match", content=body, headers={"Accept": "application/json"})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == "the log is empty"
    assert "errkb_matches_total{" not in client.get("/metrics").text


def test_curl_d_stripped_newlines_get_a_hint_and_still_an_answer(client: TestClient) -> None:
    """``curl -d @train.log`` drops CR and LF: the lines are put back and the user is told."""
    flat = TRACEBACK.replace("\n", "").encode()
    form = {"Content-Type": "application/x-www-form-urlencoded", "User-Agent": "curl/8.5.0"}
    text = client.post("/api/v1/match", content=flat, headers=form).text
    lines = text.splitlines()
    assert lines[0].startswith("errkb: your client stripped the log's newlines")
    assert "--data-binary" in lines[0]
    assert lines[1].startswith("errkb: Sample failure [sample-error]")
    body = client.post(
        "/api/v1/match", content=flat, headers={**form, "Accept": "application/json"}
    )
    assert body.json()["hints"] == [lines[0].removeprefix("errkb: ")]
    as_json = {**form, "Accept": "application/json"}
    kept = client.post("/api/v1/match", content=TRACEBACK.encode(), headers=as_json).json()
    assert kept["hints"] == []  # newlines present: nothing was stripped


@pytest.mark.parametrize(
    "flat",
    [
        b"step 1 loss 2.0",
        b"a=1&b=2&text=" + b"x" * 100,
        b'no traceback here, just a long sentence that mentions File "x" once ' * 2,
    ],
)
def test_a_short_or_ordinary_form_body_gets_no_hint(client: TestClient, flat: bytes) -> None:
    form = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
    answer = client.post("/api/v1/match", content=flat, headers=form)
    assert answer.status_code == 200
    assert answer.json()["hints"] == [] or b'File "' in flat
