"""Issue 21 in a real Chromium: the web UI for a tired engineer, at desktop and phone widths,
in English and Chinese, against ``errkb serve`` with the repository's KB.

Each test leaves screenshots in ``tests/artifacts/`` (``i21-<what>-<width>-<lang>.png``)
and checks the console stayed clean and nothing left 127.0.0.1.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, Route

from tests.e2e.browser import ARTIFACTS, browser_context, ensure_chromium, screenshot, watch_page
from tests.e2e.conftest import Server, start, stop

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
REPO = Path(__file__).resolve().parents[2]
MULTI_RANK = REPO / "tests" / "data" / "logs" / "cuda-oom-4ranks-nccl-timeouts-composed.log"
WIDTHS = {"desktop": (1280, 900), "phone": (390, 844)}
SIZES = [(size, lang) for size in WIDTHS for lang in ("en", "zh")]
CJK = "\\u3000-\\u303f\\u4e00-\\u9fff\\uff00-\\uffef"
VERSIONS = (
    "PyTorch version: 2.13.0+cu128\n"
    "CUDA used to build PyTorch: 12.8\n"
    "[2026-11-25 03:01:02,345] [INFO] [real_accelerator.py:203:get_accelerator] "
    "DeepSpeed info: version=0.16.4, git-hash=unknown, git-branch=unknown\n"
)


def _oom_on_every_rank() -> str:
    """The fixture's rank-2 OOM traceback as ranks 0-3 each print it (composed from it)."""
    lines = MULTI_RANK.read_text().splitlines()
    start = next(
        i for i, line in enumerate(lines) if line == "[rank2]: Traceback (most recent call last):"
    )
    end = next(i for i, line in enumerate(lines) if "[rank2]: torch.OutOfMemoryError" in line)
    block = [line for line in lines[start : end + 1] if line.startswith("[rank2]:")]
    return "".join(
        line.replace("[rank2]:", f"[rank{r}]:").replace("GPU 2", f"GPU {r}") + "\n"
        for r in range(4)
        for line in block
    )


UNKNOWN = (
    "Traceback (most recent call last):\n"
    '  File "/w/train.py", line 12, in <module>\n'
    "RuntimeError: the gradient reservoir overflowed at step 7 of the sampler queue\n"
)
SPACE_BETWEEN_CJK = f"""() => {{
  document.querySelectorAll("pre, textarea, input, select").forEach(n => n.remove());
  document.querySelectorAll("code, kbd").forEach(n => {{ n.textContent = "x"; }});
  const found = [];
  for (const line of document.body.innerText.split("\\n")) {{
    const m = line.match(/[{CJK}][ \\u00a0]+[{CJK}]/u);
    if (m) {{ found.push(line.trim().slice(0, 120)); }}
  }}
  return found;
}}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    ensure_chromium()
    tmp = tmp_path_factory.mktemp("site21")
    running = start(
        f"sqlite:///{tmp / 'errkb.db'}",
        tmp,
        ERRKB_KB_PATH=str(REPO / "kb"),
        ERRKB_RATE_LIMIT_PER_MINUTE="0",
        ERRKB_CACHE_SECONDS="0",
    )
    try:
        yield running
    finally:
        stop(running)


def _first_screen(page: Page, name: str) -> None:
    """What a reader sees before scrolling (the full-page shot of a result is very tall)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def _ids(site: Server) -> list[str]:
    return sorted(p.stem for p in (REPO / "kb" / "articles").glob("*.yaml"))


def _paste(page: Page, text: str) -> None:
    page.fill("#log-text", text)
    with page.expect_navigation():
        page.click("form.paste button[type=submit]")


def test_no_space_between_two_chinese_characters_on_any_zh_page(
    site: Server, tmp_path: Path
) -> None:
    """Every article page and the other pages in Chinese; code blocks excepted (a tab is
    the border between two table cells in ``innerText``, not a space)."""
    with browser_context(tmp_path / "p") as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        paths = ["/", "/articles", "/unmatched", *[f"/articles/{i}" for i in _ids(site)]]
        bad: dict[str, list[str]] = {}
        for path in paths:
            page.goto(f"{site.url}{path}?lang=zh")
            found = page.evaluate(SPACE_BETWEEN_CJK)
            if found:
                bad[path] = found
        page.goto(f"{site.url}/?lang=zh")
        _paste(page, MULTI_RANK.read_text())
        found = page.evaluate(SPACE_BETWEEN_CJK)
        if found:
            bad["result"] = found
        assert bad == {}
        watch.assert_clean()


def test_the_check_itself_sees_a_stray_space(site: Server, tmp_path: Path) -> None:
    with browser_context(tmp_path / "p") as (context, _watch):
        page = context.new_page()
        page.goto(f"{site.url}/articles/cuda-oom?lang=zh")
        page.evaluate("document.querySelector('h1').textContent = '显存 不足'")
        assert page.evaluate(SPACE_BETWEEN_CJK) == ["显存 不足"]


SEARCHES = [
    ("out of memory", "cuda-oom"),
    ("nccl timeout", "nccl-timeout"),
    ("显存", "cuda-oom"),
    ("RuntimeError: CUDA error: device-side assert triggered", "device-side-assert"),
]


@pytest.mark.parametrize(("size", "lang"), SIZES)
def test_search_ranks_and_highlights(site: Server, tmp_path: Path, size: str, lang: str) -> None:
    width, height = WIDTHS[size]
    with browser_context(tmp_path / "p", width=width, height=height) as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        for query, expected in SEARCHES:
            page.goto(f"{site.url}/articles?lang={lang}")
            page.fill("input[name=q]", query)
            with page.expect_navigation():
                page.press("input[name=q]", "Enter")
            first = page.locator(".article-item .item-title").first
            assert first.get_attribute("href") == f"/articles/{expected}", query
            if query.isascii() or lang == "zh":
                assert page.locator(".article-item mark").count() >= 1, query
        assert page.locator(".recognised-pill").first.is_visible()  # the pasted error line
        page.goto(f"{site.url}/articles?lang={lang}&q=" + ("显存" if lang == "zh" else "memory"))
        screenshot(page, f"i21-search-{size}-{lang}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        watch.assert_clean()


@pytest.mark.parametrize(("size", "lang"), SIZES)
def test_result_page_order_ranks_copy_versions_and_share(
    site: Server, tmp_path: Path, size: str, lang: str
) -> None:
    width, height = WIDTHS[size]
    with browser_context(tmp_path / "p", width=width, height=height) as (context, watch):
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        page = context.new_page()
        watch_page(page, watch)
        page.goto(f"{site.url}/?lang={lang}")
        pasted = VERSIONS + _oom_on_every_rank() + MULTI_RANK.read_text() + f"# {size} {lang}\n"
        page.fill("#log-text", pasted)
        with page.expect_navigation():
            page.press("#log-text", "Control+Enter")  # the shortcut submits
        assert re.search(r"/r/\d+/[\w-]+$", page.url)
        fix_top = page.locator(".best .fix h2").bounding_box()
        assert fix_top is not None
        assert fix_top["y"] < height - 100, f"the fix starts at {fix_top['y']}px"
        title = page.locator(".best-title").bounding_box()
        assert title is not None
        assert fix_top["y"] > title["y"]
        scores = [
            float(s)
            for s in page.locator(".others [data-score]").evaluate_all(
                "nodes => nodes.map(n => n.dataset.score)"
            )
        ]
        assert scores == sorted(scores, reverse=True)
        assert len(scores) >= 1
        pill = page.inner_text(".ranks-pill")
        assert pill.endswith("0, 1, 2, 3"), pill
        line = page.inner_text(".matched-line a")
        assert re.fullmatch(r"第 \d+ 行" if lang == "zh" else r"line \d+", line), line
        versions = page.inner_text(".versions")
        for shown in ("torch 2.13.0+cu128", "cuda 12.8", "deepspeed 0.16.4"):
            assert shown in versions
        lines = len(pasted.splitlines())
        lead = page.inner_text(".evidence p.muted")
        assert (f"共 {lines} 行" if lang == "zh" else f"{lines} lines") in lead, lead
        for pre in page.locator(".prose pre.has-copy").all():
            button, code = (
                pre.locator("button.copy").bounding_box(),
                pre.locator("code").bounding_box(),
            )
            assert button is not None
            assert code is not None
            assert button["y"] + button["height"] <= code["y"] + 1, "Copy covers the code"
        page.click("button.share")
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied == page.url
        screenshot(page, f"i21-result-{size}-{lang}")
        _first_screen(page, f"i21-result-top-{size}-{lang}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        watch.assert_clean()


@pytest.mark.parametrize(("size", "lang"), SIZES)
def test_no_match_is_not_a_dead_end(site: Server, tmp_path: Path, size: str, lang: str) -> None:
    width, height = WIDTHS[size]
    with browser_context(tmp_path / "p", width=width, height=height) as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        page.goto(f"{site.url}/?lang={lang}")
        _paste(page, UNKNOWN + f"# {size} {lang}\n")
        assert page.locator(".unknown h1").is_visible()
        near = page.locator(".near .candidates li")
        assert near.count() >= 1
        assert page.locator(".near .conf-low").first.is_visible()
        search = page.locator(".next-steps a[href^='/articles?q=']")
        assert "gradient" in (search.get_attribute("href") or "")
        seen = page.inner_text(".seen")
        assert re.search(r"\d", seen), seen
        screenshot(page, f"i21-nomatch-{size}-{lang}")
        _first_screen(page, f"i21-nomatch-top-{size}-{lang}")
        with page.expect_navigation():
            search.click()
        assert page.locator(".article-item").count() >= 1
        page.goto(f"{site.url}/unmatched?lang={lang}")
        assert "gradient reservoir overflowed" in page.inner_text(".clusters")
        screenshot(page, f"i21-unmatched-{size}-{lang}")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        watch.assert_clean()


def _big_log(path: Path) -> Path:
    """A 20 MB log: start-up noise, then the multi-rank OOM at the end."""
    filler = "".join(
        f"[rank0]: step {i} loss 2.{i % 997:03d} lr 1e-4 tokens/s 31337\n" for i in range(4000)
    )
    with path.open("w") as out:
        for _ in range(100):
            out.write(filler)
        out.write(MULTI_RANK.read_text())
    return path


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_big_upload_is_gzipped_cut_and_shows_progress(
    site: Server, tmp_path: Path, lang: str
) -> None:
    log = _big_log(tmp_path / "train.log")
    assert log.stat().st_size > 16 << 20
    with browser_context(tmp_path / "p") as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        sent: list[int] = []
        page.on(
            "request",
            lambda r: sent.append(len(r.post_data_buffer or b"")) if r.method == "POST" else None,
        )
        page.goto(f"{site.url}/?lang={lang}")
        page.set_input_files("#log-file", str(log))
        with page.expect_navigation(timeout=120_000):
            page.click("form.paste button[type=submit]")
        assert re.search(r"/r/\d+/", page.url)
        assert page.locator(".best-title").is_visible()
        assert sent
        assert sent[0] < log.stat().st_size // 10, f"sent {sent[0]} bytes: not gzipped"
        watch.assert_clean()


@pytest.mark.parametrize(("size", "lang"), SIZES)
def test_a_failed_upload_keeps_the_file_and_says_what_to_do(
    site: Server, tmp_path: Path, size: str, lang: str
) -> None:
    width, height = WIDTHS[size]
    with browser_context(tmp_path / "p", width=width, height=height) as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        page.goto(f"{site.url}/?lang={lang}")

        def refuse(route: Route) -> None:
            route.abort("connectionreset")

        page.route("**/match", refuse)
        page.set_input_files("#log-file", str(MULTI_RANK))
        page.click("form.paste button[type=submit]")
        status = page.locator("[data-status].failed")
        status.wait_for(timeout=30_000)
        text = status.inner_text()
        assert "errkb report" in text
        assert "gzip" in text
        assert page.evaluate("document.getElementById('log-file').files.length") == 1
        screenshot(page, f"i21-upload-failed-{size}-{lang}")
        page.unroute("**/match")
        with page.expect_navigation():
            page.click("form.paste button[type=submit]")  # try again: the file is still there
        assert page.locator(".best-title").is_visible()
        watch.console_errors.clear()  # the refused request logs a network error on purpose
        watch.assert_clean()


def test_without_javascript_the_paste_form_and_a_gzip_upload_still_work(
    site: Server, tmp_path: Path
) -> None:
    with browser_context(tmp_path / "p", width=390, height=844, script=False) as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        page.goto(f"{site.url}/?lang=zh")
        data = gzip.compress(MULTI_RANK.read_bytes() + b"\n# no script\n")
        upload = {"name": "train.log.gz", "mimeType": "application/gzip", "buffer": data}
        page.set_input_files("#log-file", files=[upload])
        with page.expect_navigation():
            page.click("form.paste button[type=submit]")
        assert "显存不足" in page.inner_text("h1")
        assert page.locator("button.share").is_hidden()  # needs script: not offered
        screenshot(page, "i21-noscript-phone-zh")
        watch.assert_clean()


@pytest.mark.parametrize(("size", "lang"), SIZES)
def test_dark_mode_native_controls_and_no_emoji(
    site: Server, tmp_path: Path, size: str, lang: str
) -> None:
    width, height = WIDTHS[size]
    with browser_context(tmp_path / "p", width=width, height=height) as (context, watch):
        page = context.new_page()
        watch_page(page, watch)
        page.emulate_media(color_scheme="dark")
        for path in ("/", "/articles", "/articles/nccl-timeout", "/unmatched"):
            page.goto(f"{site.url}{path}?lang={lang}")
            scheme = page.evaluate("getComputedStyle(document.documentElement).colorScheme")
            assert "dark" in scheme
            emoji = page.evaluate(
                "[...document.body.innerText].filter(c => c.codePointAt(0) >= 0x1F000"
                " || c === '\\ufe0f')"
            )
            assert emoji == [], path
        page.goto(f"{site.url}/?lang={lang}")
        screenshot(page, f"i21-paste-dark-{size}-{lang}")
        watch.assert_clean()
