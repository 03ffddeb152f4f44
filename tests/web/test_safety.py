"""Targets C11-C16 on the pages: escaping, sanitised Markdown, redaction, same-origin forms."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.store.engine import make_engine
from app.store.tables import Feedback, MatchEvent, StoredText
from app.web.i18n import MESSAGES
from app.web.markdown import render_markdown
from app.web.pages import environment
from tests.api.conftest import TRACEBACK
from tests.api.secret_corpus import formats
from tests.web.conftest import csrf_of, paste_and_open

PAYLOADS = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "javascript:alert(3)",
    "<svg/onload=alert(4)>",
)


def test_c12_every_template_is_autoescaped() -> None:
    env = environment()
    assert env.autoescape is True
    rendered = env.from_string("{{ x }}").render(x="<b>&</b>")
    assert rendered == "&lt;b&gt;&amp;&lt;/b&gt;"


def test_c11_pasted_markup_stays_text_on_the_result_page(client: TestClient) -> None:
    log = (
        "Traceback (most recent call last):\n"
        '  File "/work/x.py", line 1, in <module>\n'
        f"ValueError: bad input {' '.join(PAYLOADS)}\n"
    )
    _, page = paste_and_open(client, log)
    html = page.text
    assert "<script>alert" not in html
    assert "<img src=x" not in html
    assert "<svg/onload" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;&gt;&lt;img src=x onerror=alert(2)&gt;" in html


def test_search_and_parameters_are_escaped(client: TestClient) -> None:
    for payload in PAYLOADS:
        for url in ("/articles", "/"):
            html = client.get(url, params={"q": payload, "tag": payload, "lang": payload}).text
            if "<" in payload:
                assert payload not in html
            assert 'href="javascript' not in html
    html = client.get("/articles", params={"q": PAYLOADS[1]}).text
    assert 'value="&#34;&gt;&lt;img src=x onerror=alert(2)&gt;"' in html


def test_c13_markdown_is_rendered_safely() -> None:
    html = render_markdown(
        "**bold** <script>alert(1)</script> [x](javascript:alert(1)) "
        "<img src=x onerror=alert(2)> [ok](https://example.org)\n\n"
        "```python\nprint('<b>')  # note\n```\n"
    )
    assert "<strong>bold</strong>" in html
    assert "<script>" not in html
    assert "<img" not in html
    assert 'href="javascript' not in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">ok</a>' in html
    assert "<span class=\"tok-str\">'&lt;b&gt;'</span>" in html
    assert '<span class="tok-com"># note</span>' in html


def test_both_languages_have_every_string() -> None:
    assert set(MESSAGES["en"]) == set(MESSAGES["zh"])
    assert not set(MESSAGES["en"]) & set(dir(dict)), "t.copy would be dict.copy in Jinja"
    assert all(value.strip() for table in MESSAGES.values() for value in table.values())


def test_the_permalink_shows_and_stores_redacted_text_only(
    db_client: TestClient, db_url: str
) -> None:
    """Target A5: not one of the corpus's secrets reaches the page or the stored view."""
    secrets = formats(7)
    lines = [context.format(v=value) for context, value in secrets.values()]
    log = (
        "\n".join(lines)
        + "\nTraceback (most recent call last):\n"
        + '  File "/work/sample/module.py", line 3, in explode\n'
        + f"SampleError: widget 3 exploded with {secrets['hf'][1]} and {secrets['aws-id'][1]}\n"
    )
    link, page = paste_and_open(db_client, log)
    engine = make_engine(db_url)
    with Session(engine) as session:
        assert len(session.exec(select(MatchEvent)).all()) == 1
        bodies = session.exec(select(StoredText.body)).all()
    engine.dispose()
    stored = "".join(bodies)
    assert '"windows"' in stored  # the view is among them
    shown = page.text + db_client.get(link + "?lang=zh").text
    assert "Sample failure" in page.text
    assert "&lt;hf-token&gt;" in page.text or "redacted" in page.text
    for name, (_, value) in secrets.items():
        assert value not in shown, name
        assert value not in stored, name


def _feedback(client: TestClient, link: str, token: str, **headers: str) -> int:
    answer = client.post(
        link + "/feedback",
        data={"csrf": token, "verdict": "fixed"},
        headers=headers,
        follow_redirects=False,
    )
    return answer.status_code


def test_c16_feedback_needs_the_same_origin_and_the_token(
    db_client: TestClient, db_url: str
) -> None:
    link, page = paste_and_open(db_client, TRACEBACK)
    token = csrf_of(page)
    assert _feedback(db_client, link, token, Origin="https://evil.example") == 403
    assert _feedback(db_client, link, token, **{"Sec-Fetch-Site": "cross-site"}) == 403
    assert _feedback(db_client, link, "not-the-token") == 403
    db_client.cookies.clear()
    assert _feedback(db_client, link, token) == 403  # no cookie: no proof
    page = db_client.get(link)
    token = csrf_of(page)
    same = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    assert _feedback(db_client, link, token, **same) == 303
    assert _feedback(db_client, link, token, Origin="null") == 303  # Referrer-Policy: no-referrer
    engine = make_engine(db_url)
    with Session(engine) as session:
        verdicts = [f.verdict for f in session.exec(select(Feedback))]
    engine.dispose()
    assert verdicts == ["fixed"]  # one verdict per event per client (I2)
    thanks = db_client.get(link + "?thanks=1")
    assert "Thank you" in thanks.text
    stats = db_client.get("/articles/sample-error").text
    assert "<strong>1</strong> fixed it" in stats


@pytest.mark.parametrize("verdict", ["maybe", ""])
def test_feedback_refuses_an_unknown_verdict(client: TestClient, verdict: str) -> None:
    link, page = paste_and_open(client, TRACEBACK)
    answer = client.post(
        link + "/feedback", data={"csrf": csrf_of(page), "verdict": verdict}, follow_redirects=False
    )
    assert answer.status_code == 422


def test_a_cross_origin_paste_is_refused(client: TestClient) -> None:
    answer = client.post(
        "/match", data={"text": TRACEBACK}, headers={"Origin": "https://evil.example"}
    )
    assert answer.status_code == 403


def test_this_one_was_right_names_the_article(db_client: TestClient, db_url: str) -> None:
    link, page = paste_and_open(db_client, TRACEBACK)
    answer = db_client.post(
        link + "/feedback",
        data={"csrf": csrf_of(page), "verdict": "wrong", "right_article_id": "sample-error"},
        follow_redirects=False,
    )
    assert answer.status_code == 303
    unknown = db_client.post(
        link + "/feedback",
        data={"csrf": csrf_of(page), "verdict": "wrong", "right_article_id": "no-such"},
        follow_redirects=False,
    )
    assert unknown.status_code == 303  # a plain "wrong", the unknown id dropped
    engine = make_engine(db_url)
    with Session(engine) as session:
        rows = [(f.verdict, f.right_article_id) for f in session.exec(select(Feedback))]
    engine.dispose()
    assert rows == [("wrong", None)]  # the second click replaced the first (I2)
