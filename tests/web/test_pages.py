"""The HTML pages against a real app: paste, result, permalink, articles, search, unmatched.

Every test goes through HTTP (the app as ``errkb serve`` builds it) on a
fresh database; the database-dependent ones run on SQLite and PostgreSQL.
"""

from __future__ import annotations

import gzip
import re
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

from fastapi.testclient import TestClient
from sqlmodel import Session

from app.errors import StoreError
from app.store import verifications
from app.store.engine import make_engine
from tests.api.conftest import TRACEBACK, UNKNOWN, app_client
from tests.web.conftest import paste, paste_and_open

MULTI_RANK = (
    "".join(
        f"[rank{r}]: {line}\n"
        for r in (1, 0)
        for line in (
            "Traceback (most recent call last):",
            '  File "/work/sample/module.py", line 3, in explode',
            "    raise SampleError(f'widget {n} exploded')",
            "SampleError: widget 3 exploded",
        )
    )
    + "[rank2]: RuntimeError: [Rank 2] Watchdog caught collective operation timeout\n"
)


def test_paste_page_is_a_form_that_works_without_script(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert '<form class="paste card" method="post" action="/match"' in html
    assert 'enctype="multipart/form-data"' in html
    assert 'name="text"' in html
    assert 'type="file" name="log"' in html
    assert "redacted" in html


def test_c14_pages_carry_a_strict_csp_and_no_inline_script_or_style(client: TestClient) -> None:
    """Target C14: script-src 'self' only, so no inline script, handler or style attribute."""
    _, result = paste_and_open(client, TRACEBACK)
    for page in (client.get("/"), result, client.get("/articles"), client.get("/unmatched")):
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert page.headers["x-content-type-options"] == "nosniff"
        html = page.text
        assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline script"
        assert not re.search(r"\son[a-z]+\s*=", html, re.IGNORECASE), "inline handler"
        assert not re.search(r"\sstyle\s*=", html, re.IGNORECASE), "inline style"
        assert "<style" not in html


def test_static_files_are_served(client: TestClient) -> None:
    css, script = client.get("/static/app.css"), client.get("/static/app.js")
    assert css.status_code == script.status_code == 200
    assert css.headers["content-type"].startswith("text/css")
    assert "javascript" in script.headers["content-type"]
    assert css.headers["cache-control"] == "public, max-age=3600"
    assert client.get("/").headers["cache-control"] == "no-store"


def test_language_order_is_query_then_cookie_then_header_then_default(
    sqlite_url: str, tmp_path: Path
) -> None:
    with app_client(sqlite_url, tmp_path, default_lang="zh") as client:
        assert "训练为什么挂了" in client.get("/").text  # the default
        english = client.get("/", headers={"Accept-Language": "en-US,en;q=0.9"})
        assert "What killed your run?" in english.text  # the header beats the default
        chosen = client.get("/?lang=zh", headers={"Accept-Language": "en"})
        assert "训练为什么挂了" in chosen.text  # the parameter beats the header
        assert chosen.cookies.get("errkb_lang") == "zh"
        remembered = client.get("/", headers={"Accept-Language": "en"})
        assert "训练为什么挂了" in remembered.text  # the cookie beats the header
        assert "What killed" in client.get("/?lang=en").text  # the parameter beats the cookie
        assert '<html lang="en">' in client.get("/").text


def test_paste_redirects_to_a_permalink_with_the_evidence_marked(db_client: TestClient) -> None:
    link, page = paste_and_open(db_client, TRACEBACK)
    html = page.text
    assert "Sample failure" in html
    assert "Feed it less" in html  # the fix, rendered from Markdown
    assert '<pre><code class="language-python">' in html
    assert re.search(r'<tr class="hit-error" id="L5"><td class="ln">5</td>', html)
    assert "<mark>SampleError: widget 3 exploded</mark>" in html
    assert f'href="{link}"' in html
    again = db_client.get(link + "?lang=zh")
    assert "示例错误" in again.text  # the same stored answer, read in Chinese
    assert db_client.get(link[:-1] + ("A" if link[-1] != "A" else "B")).status_code == 404
    assert db_client.get("/r/999999/abcdefghijkl").status_code == 404


def test_multi_rank_log_shows_the_per_rank_breakdown(client: TestClient) -> None:
    _, page = paste_and_open(client, MULTI_RANK)
    html = page.text
    assert "Sample failure" in html
    assert "Per rank" in html
    for rank in (0, 1, 2):
        assert f'<th scope="row">rank {rank}</th>' in html
    assert "Ranks: 0, 1" in html


def test_the_page_shows_lines_around_the_evidence_not_the_whole_log(client: TestClient) -> None:
    filler = "".join(f"step {i} loss 1.{i % 10} filler-line-{i}\n" for i in range(20_000))
    _, page = paste_and_open(client, filler + TRACEBACK + filler)
    html = page.text
    assert "SampleError: widget 3 exploded" in html
    assert "filler-line-19999" in html  # the line just before the traceback
    assert "filler-line-100<" not in html
    assert "filler-line-10000" not in html
    assert len(html) < 60_000


def test_gzip_upload_is_expanded(client: TestClient) -> None:
    posted = client.post(
        "/match",
        data={"text": "", "lang": "en"},
        files={"log": ("train.log.gz", gzip.compress(TRACEBACK.encode()), "application/gzip")},
        follow_redirects=False,
    )
    assert posted.status_code == 303
    assert "Sample failure" in client.get(posted.headers["location"]).text


def test_an_empty_paste_gets_the_form_back_with_a_message(client: TestClient) -> None:
    answer = paste(client, "   \n")
    assert answer.status_code == 422
    assert "Paste a log or choose a file." in answer.text
    assert 'action="/match"' in answer.text


def test_c7_an_upload_of_nuls_is_an_empty_paste(client: TestClient) -> None:
    answer = client.post(
        "/match",
        data={"text": "", "lang": "en"},
        files={"log": ("core.log", b"\x00" * 50_000, "application/octet-stream")},
        follow_redirects=False,
    )
    assert answer.status_code == 422
    assert "Paste a log or choose a file." in answer.text


def test_a_corrupt_gzip_upload_is_a_400_page(client: TestClient) -> None:
    answer = client.post(
        "/match",
        data={"text": ""},
        files={"log": ("x.gz", b"\x1f\x8b\x08\x00garbage", "application/gzip")},
    )
    assert answer.status_code == 400
    assert "gzip" in answer.text
    assert answer.headers["content-type"].startswith("text/html")


def test_a_refusal_on_a_chinese_page_says_what_it_means_in_chinese(client: TestClient) -> None:
    answer = client.post(
        "/match?lang=zh",
        data={"text": ""},
        files={"log": ("x.gz", b"\x1f\x8b\x08\x00garbage", "application/gzip")},
    )
    assert answer.status_code == 400
    assert "请求无效（the gzip body is " in answer.text


def test_unknown_log_gets_an_honest_page_and_joins_the_unmatched_list(
    db_client: TestClient,
) -> None:
    _, page = paste_and_open(db_client, UNKNOWN)
    html = page.text
    assert "No known article matches this log" in html
    assert "ValueError: the flux capacitor is out of range 42" in html
    assert "exception: ValueError" in html  # the article skeleton
    paste(db_client, "first run\n" + UNKNOWN)
    listing = db_client.get("/unmatched")
    assert listing.status_code == 200
    assert "ValueError" in listing.text
    assert "seen 2 times" in listing.text  # pluralised: "seen once" for one
    assert "flux capacitor" in listing.text


def test_article_page_in_both_languages_with_stats_and_verification(
    db_client: TestClient, db_url: str
) -> None:
    english = db_client.get("/articles/sample-error")
    assert english.status_code == 200
    html = english.text
    assert "Sample failure" in html
    assert "<strong>overfed</strong>" in html
    assert "SampleError: widget \\d+ exploded" in html  # the signature, readable
    assert "&gt;=2.4" in html  # affects
    assert 'href="https://example.org/issue/1" rel="noopener noreferrer nofollow"' in html
    assert "has not recorded a run" in html
    chinese = db_client.get("/articles/sample-error?lang=zh")
    assert "示例错误" in chinese.text
    assert "部件被" in chinese.text
    engine = make_engine(db_url)
    with Session(engine) as session:
        verifications.record_verification(
            session,
            run_id="r1",
            article_id="sample-error",
            content_hash="h",
            outcome="verified",
            environment={
                "python": "3.11.7",
                "torch": "2.13.0",
                "gpu_count": 0,
                "packages": {"torch": "2.13.0", "transformers": "5.2.0"},
                "fixed": {"python": "3.11.7", "packages": {"torch": "2.13.0", "numpy": "1.26.4"}},
            },
            started_at=datetime(2026, 11, 20, 10, 0, tzinfo=UTC),
            duration_s=3.0,
        )
    engine.dispose()
    matrix = db_client.get("/articles/sample-error").text
    assert 'class="outcome outcome-verified"' in matrix
    assert "2026-11-20 10:00" in matrix
    assert "2.13.0" in matrix
    assert "transformers</span> 5.2.0" in matrix
    assert "fixed.py numpy</span> 1.26.4" in matrix  # fixed.py's own set (repro.fixed_requires)
    assert matrix.count("2.13.0") == 1  # torch once, not again among the packages
    assert db_client.get("/articles/no-such-article").status_code == 404
    assert db_client.get("/articles/..%2Fetc").status_code == 404


def test_browse_and_search_in_both_languages(client: TestClient) -> None:
    assert "Sample failure" in client.get("/articles").text
    assert "Sample failure" in client.get("/articles", params={"q": "部件"}).text
    assert "Sample failure" in client.get("/articles", params={"q": "OVERFED"}).text
    assert "No article matches" in client.get("/articles", params={"q": "没有这个"}).text
    assert "Sample failure" in client.get("/articles", params={"library": "torch"}).text
    assert "No article matches" in client.get("/articles", params={"tag": "nope"}).text


def test_library_facets_keep_the_search_text(client: TestClient) -> None:
    page = client.get("/articles", params={"q": "部件 & co", "tag": "x"}).text
    assert "/articles?library=torch&amp;q=%E9%83%A8%E4%BB%B6%20%26%20co&amp;tag=x" in page


def test_when_the_view_cannot_be_stored_the_answer_is_shown_anyway(client: TestClient) -> None:
    """Issue 4's rule on the page: a database failure costs the permalink, not the fix."""
    with mock.patch("app.service.recorder.record_match_events", side_effect=StoreError("down")):
        answer = paste(client, TRACEBACK)
    assert answer.status_code == 200
    assert "Sample failure" in answer.text
    assert "could not be saved" in answer.text
    assert 'action="/r/' not in answer.text  # no feedback form without a stored event


def test_a_rate_limited_paste_gets_the_form_back_with_retry_after(
    sqlite_url: str, tmp_path: Path
) -> None:
    with app_client(sqlite_url, tmp_path, rate_limit_per_minute=1, rate_limit_burst=1) as client:
        assert paste(client, TRACEBACK).status_code == 303
        refused = paste(client, TRACEBACK)
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) >= 1
    assert 'action="/match"' in refused.text


def test_a_capped_answer_shows_what_was_missing(client: TestClient) -> None:
    _, page = paste_and_open(client, "sampleerror: widget 3 exploded, any idea?")
    html = page.text
    assert "Sample failure" in html
    note = "the message matched only when its case is ignored"
    assert f'<p class="layer-note match-note">{note}</p>' in html
