"""Issue 21 without a browser: Chinese typesetting, page words, counts, drafts, no-match help."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.web.browse import cluster_message
from app.web.cjk import join_wrapped, typeset
from app.web.i18n import MESSAGES
from app.web.markdown import render_markdown
from app.web.pages import rank_ranges
from app.web.results import line_count
from tests.api.conftest import UNKNOWN
from tests.web.conftest import paste_and_open

CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
ASCII_PUNCT_NEXT_TO_CJK = re.compile(f"[{CJK}][,:;!?()]|[,:;!?(][{CJK}]")


def test_wrapped_chinese_lines_join_without_a_space_and_code_keeps_its_lines() -> None:
    source = "然后对每个参数子组\n原地缩放，\n再 `step()`\nthen English\n\n```\n中\n文\n```"
    html = render_markdown(source)
    assert "子组原地缩放，再 <code>step()</code>\nthen English" in html
    assert '<code class="language-text">中\n文\n</code>' in html
    assert join_wrapped("标题第一行\n  第二行\nword\n行") == "标题第一行第二行\nword\n行"
    assert typeset("显存 不足。 下一句\n接着, English 词") == "显存不足。下一句接着, English 词"


def test_spaces_written_around_emphasis_between_chinese_characters_go() -> None:
    html = render_markdown("1. **看不到 GPU。** 只要 `x` 为 False\n\n端点 *和* rendezvous 中 文")
    assert "<strong>看不到 GPU。</strong>只要 <code>x</code> 为 False" in html
    assert "端点<em>和</em> rendezvous 中文" in html


def test_chinese_strings_use_full_width_punctuation() -> None:
    wrong = {k: v for k, v in MESSAGES["zh"].items() if ASCII_PUNCT_NEXT_TO_CJK.search(v)}
    assert wrong == {}


def test_both_languages_have_the_same_words() -> None:
    assert set(MESSAGES["en"]) == set(MESSAGES["zh"])
    assert MESSAGES["zh"]["line_n"].format(n=59) == "第 59 行"


@pytest.mark.parametrize(
    ("data", "lines"), [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"a\n" * 107, 107)]
)
def test_line_counts_as_a_reader_counts_them(data: bytes, lines: int) -> None:
    assert line_count(data) == lines


def test_every_rank_is_named() -> None:
    assert rank_ranges([3, 0, 1, 2, 1]) == "0, 1, 2, 3"
    assert rank_ranges([*range(64), 70]) == "0–63, 70"


def test_the_unknown_list_names_the_message_not_only_the_exception() -> None:
    sample = 'Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad flux 3'
    assert cluster_message("ValueError", sample) == "ValueError: bad flux 3"
    assert cluster_message("Signal", "") == "Signal"


def test_the_no_match_page_is_no_dead_end(client: TestClient) -> None:
    for _ in range(2):
        _, page = paste_and_open(client, UNKNOWN)
    html = page.text
    assert "No known article" in html
    assert re.search(r"This error has been seen 2 times so far", html)
    assert 'href="/articles?q=ValueError' in html
    assert 'href="/unmatched"' in html
    listing = client.get("/unmatched").text
    assert "flux capacitor" in listing.split('class="exc">', 1)[1].split("</code>", 1)[0]


def test_search_ranks_and_highlights_on_the_page(client: TestClient) -> None:
    html = client.get("/articles", params={"q": "sample"}).text
    assert '<a class="item-title" href="/articles/sample-error"><mark>Sample</mark> failure' in html
    assert ">1 article</p>" in html
    pasted = client.get("/articles", params={"q": "SampleError: widget 3 exploded"}).text
    assert "recognises this error" in pasted
