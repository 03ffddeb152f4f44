"""The web UI in a real Chromium against a real ``errkb serve`` with the repository's KB.

What an engineer does: paste a multi-rank log and see the right article with
the evidence highlighted; switch language; upload a gzip file; say it fixed
it; browse and search in Chinese; and an XSS payload stays text. Every test
also checks that the console stayed clean and no request left 127.0.0.1.
Screenshots of every page go to ``tests/artifacts/`` (ignored by git).
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page

from tests.e2e.browser import Watch, browser_context, ensure_chromium, screenshot, watch_page
from tests.e2e.conftest import Server, start, stop

# The first test may install Chromium with apt (a minute or two) inside its fixture.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
Browser = tuple[BrowserContext, Watch]
REPO = Path(__file__).resolve().parents[2]
LOGS = REPO / "tests" / "data" / "logs"
MULTI_RANK = LOGS / "cuda-oom-4ranks-nccl-timeouts-composed.log"
XSS = (
    "Traceback (most recent call last):\n"
    '  File "/w/x.py", line 1, in <module>\n'
    'ValueError: bad <script>alert(1)</script> "><img src=x onerror=alert(2)>\n'
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module: SQLite, the repository's kb/, no rate limit."""
    ensure_chromium()
    tmp = tmp_path_factory.mktemp("site")
    running = start(
        f"sqlite:///{tmp / 'errkb.db'}",
        tmp,
        ERRKB_KB_PATH=str(REPO / "kb"),
        ERRKB_RATE_LIMIT_PER_MINUTE="0",
    )
    try:
        yield running
    finally:
        stop(running)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with browser_context(tmp_path / "profile") as (context, watch):
        yield context, watch
        watch.assert_clean()


def _open(browser: Browser, url: str) -> Page:
    context, watch = browser
    page = context.new_page()
    watch_page(page, watch)
    page.goto(url)
    return page


def _paste(page: Page, text: str) -> None:
    page.fill("#log-text", text)
    with page.expect_navigation():
        page.click("button[type=submit]")


def test_paste_a_multi_rank_log_and_see_the_article_with_its_evidence(
    site: Server, browser: Browser
) -> None:
    page = _open(browser, site.url + "/?lang=en")
    screenshot(page, "paste")
    _paste(page, MULTI_RANK.read_text())
    assert re.search(r"/r/\d+/[\w-]+$", page.url)
    assert "CUDA out of memory" in page.inner_text("h1")
    assert page.locator(".conf-high").first.is_visible()
    hits = page.locator(".log-table tr.hit-error")
    assert hits.count() >= 1
    assert "out of memory" in hits.first.inner_text()
    assert page.locator(".log-table mark").count() >= 1
    ranks = page.inner_text(".ranks")
    for rank in range(4):
        assert f"rank {rank}" in ranks
    assert "root cause" in ranks
    copy = page.locator(".prose pre button.copy").first  # the progressive script ran
    browser[0].grant_permissions(["clipboard-read", "clipboard-write"])
    copy.click()
    page.wait_for_function("document.querySelector('.prose pre .copy').textContent === 'Copied'")
    first_code = page.locator(".prose pre code").first.inner_text()
    assert page.evaluate("navigator.clipboard.readText()") == first_code
    assert "NCCL" in page.inner_text(".others")
    screenshot(page, "result")


def test_switch_language_and_it_is_remembered(site: Server, browser: Browser) -> None:
    page = _open(browser, site.url + "/articles/cuda-oom?lang=en")
    assert "CUDA out of memory" in page.inner_text("h1")
    with page.expect_navigation():
        page.click(".lang-switch")
    assert "显存不足" in page.inner_text("h1")
    assert page.get_attribute("html", "lang") == "zh-CN"
    screenshot(page, "article-zh")
    page.goto(site.url + "/articles/cuda-oom")  # no parameter: the cookie decides
    assert "显存不足" in page.inner_text("h1")
    page.goto(site.url + "/articles/cuda-oom?lang=en")
    screenshot(page, "article-en")


def test_upload_a_gzip_log(site: Server, browser: Browser) -> None:
    page = _open(browser, site.url + "/?lang=en")
    data = gzip.compress(MULTI_RANK.read_bytes())
    upload = {"name": "train.log.gz", "mimeType": "application/gzip", "buffer": data}
    page.set_input_files("#log-file", files=[upload])
    assert "train.log.gz" in page.inner_text("[data-drop-text]")
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert "CUDA out of memory" in page.inner_text("h1")


def test_submit_feedback(site: Server, browser: Browser) -> None:
    page = _open(browser, site.url + "/?lang=en")
    _paste(page, MULTI_RANK.read_text() + "\n# a second paste\n")
    with page.expect_navigation():
        page.click("button[value=fixed]")
    assert "thanks=1" in page.url
    assert "Thank you" in page.inner_text(".notice")
    page.goto(site.url + "/articles/cuda-oom?lang=en")
    stats = page.inner_text(".stats")
    assert re.search(r"[1-9]\d*\s+fixed it", stats), stats


def test_browse_and_search_in_chinese(site: Server, browser: Browser) -> None:
    page = _open(browser, site.url + "/articles?lang=zh")
    total = page.locator(".article-item").count()
    assert total >= 20
    screenshot(page, "articles-zh")
    page.fill("input[name=q]", "显存")
    with page.expect_navigation():
        page.press("input[name=q]", "Enter")
    found = page.locator(".article-item")
    assert 1 <= found.count() < total
    links = [
        found.nth(i).locator(".item-title").get_attribute("href") for i in range(found.count())
    ]
    assert "/articles/cuda-oom" in links
    page.select_option("select[name=library]", "deepspeed")
    with page.expect_navigation():
        page.click("form.search button")
    assert "library=deepspeed" in page.url
    items = page.locator(".article-item")
    assert items.count() >= 1
    for i in range(items.count()):  # the KB grows: filter by the library, not by title words
        libraries = items.nth(i).locator(".meta a.pill:not(.tagpill)").all_inner_texts()
        assert "deepspeed" in libraries, libraries
    screenshot(page, "search-zh")


def test_xss_stays_text_and_the_unknown_page_invites_an_article(
    site: Server, browser: Browser
) -> None:
    page = _open(browser, site.url + "/?lang=en")
    _paste(page, XSS)
    assert "No known article" in page.inner_text("h1")
    assert "<script>alert(1)</script>" in page.inner_text(".unknown-event")
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 1  # app.js, nothing injected
    screenshot(page, "unknown")
    page.goto(site.url + "/unmatched?lang=en")
    assert "ValueError" in page.inner_text(".clusters")
    screenshot(page, "unmatched")


def test_phone_width(site: Server, tmp_path: Path) -> None:
    with browser_context(tmp_path / "phone", width=390, height=844) as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        page.goto(site.url + "/?lang=zh")
        screenshot(page, "phone-paste")
        _paste(page, MULTI_RANK.read_text() + "\n# phone\n")
        assert "显存不足" in page.inner_text("h1")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone: {width}px"
        screenshot(page, "phone-result")
        watch.assert_clean()
