"""Every article through every answer format: the first fix step arrives whole (issue 20).

For each article its first must-match example is matched, the reply is built
once, and each format of ``http.clients.FORMATS`` is rendered from it. A code
line of the first fix step that a format drops, or a line of the text answer
that ends in ":" with nothing after it, fails here; so does a chat message
over its platform's documented limit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from app.api import chat
from app.api.answers import Rendered, respond
from app.api.reply import Reply, build_reply
from app.api.schemas import MatchResponse
from app.http.clients import FORMATS
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import LiveKb

ROOT = Path(__file__).resolve().parents[2]
LINK = "http://errkb/r/7/k3y"


def _cases(live: LiveKb) -> list[tuple[str, str]]:
    return [(key, lang) for key in sorted(live.kb.articles) for lang in ("en", "zh")]


def _example(live: LiveKb, article_id: str) -> bytes:
    article = live.kb.articles[article_id].article
    first = next(e for e in article.examples if e.expect == "match")
    return (ROOT / "kb" / "examples" / article_id / first.file).read_bytes()


def _reply(live: LiveKb, article_id: str, lang: str) -> tuple[Rendered, Reply]:
    result = match_text(_example(live, article_id), live.index, MatchOptions(lang=lang))
    reply = build_reply(result, live, lang=lang, base_url="http://errkb", result_link=LINK)
    assert reply.top is not None
    assert reply.top.article_id == article_id
    return Rendered(result, reply, live.revision, 7), reply


def _rendered_text(fmt: str, rendered: Rendered) -> str:
    response = respond(rendered, fmt=fmt)  # type: ignore[arg-type]
    body = bytes(response.body).decode()
    if fmt == "text":
        return body
    payload = json.loads(body)
    if fmt == "json":
        return str(payload["matches"][0]["summary_markdown"]) + "\n" + payload["answer_text"]
    return "\n".join(_strings(payload))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_every_format_has_a_renderer() -> None:
    assert set(FORMATS) == {"json", "text", "slack", "feishu", "dingtalk", "wecom"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_article_carries_its_whole_first_step_in_every_format(
    repository_kb: LiveKb, fmt: str
) -> None:
    missing: list[str] = []
    for article_id, lang in _cases(repository_kb):
        rendered, reply = _reply(repository_kb, article_id, lang)
        shown = _rendered_text(fmt, rendered)
        assert reply.top is not None
        for block in reply.top.step.code_blocks():
            for line in filter(str.strip, block.splitlines()):
                if chat.html_escape(line.strip()) not in shown and line.strip() not in shown:
                    missing.append(f"{article_id} [{lang}] {fmt}: {line.strip()[:60]}")
    assert not missing, "\n".join(missing[:20])


def test_the_text_answer_never_ends_a_line_in_a_dangling_colon(repository_kb: LiveKb) -> None:
    for article_id, lang in _cases(repository_kb):
        rendered, _ = _reply(repository_kb, article_id, lang)
        lines = bytes(respond(rendered, fmt="text").body).decode().splitlines()
        for number, line in enumerate(lines):
            if line.endswith((":", "：")):
                following = lines[number + 1] if number + 1 < len(lines) else ""
                assert following.startswith("    "), f"{article_id} [{lang}]: {line!r}"
        assert lines[-1] == f"{'分析结果' if lang == 'zh' else 'result'}: {LINK}"


def test_chat_messages_keep_to_their_platforms_limits(repository_kb: LiveKb) -> None:
    for article_id, lang in _cases(repository_kb):
        _rendered, reply = _reply(repository_kb, article_id, lang)
        slack = chat.slack(reply)
        assert len(slack["blocks"]) <= 50
        assert len(slack["blocks"][0]["text"]["text"]) <= 150
        for block in slack["blocks"]:
            if block["type"] == "section":
                assert len(block["text"]["text"]) <= 3000
        assert len(json.dumps(chat.feishu(reply), ensure_ascii=False).encode()) < 20 * 1024
        assert len(chat.dingtalk(reply)["markdown"]["text"]) <= 5000
        assert len(chat.wecom(reply)["markdown"]["content"].encode()) <= 4096


def test_pasted_text_cannot_inject_markup(repository_kb: LiveKb) -> None:
    """An unknown log full of <, >, & and every platform's marks comes out inert."""
    nasty = (
        b"Traceback (most recent call last):\n"
        b"ValueError: <!channel> *bold* [x](http://evil) & `tick` <at id=all></at>\n"
    )
    result = match_text(nasty, repository_kb.index, MatchOptions())
    reply = build_reply(result, repository_kb, lang="en", base_url="http://errkb", result_link=None)
    assert reply.top is None
    slack = json.dumps(chat.slack(reply))
    assert "<!channel>" not in slack
    assert "&lt;!channel&gt;" in slack
    feishu = json.dumps(chat.feishu(reply), ensure_ascii=False)
    assert "<at id=all>" not in feishu
    for message in (
        chat.dingtalk(reply)["markdown"]["text"],
        chat.wecom(reply)["markdown"]["content"],
    ):
        assert "<!channel>" not in message
        assert "[x](http://evil)" not in message


def test_the_docs_show_an_example_of_every_format_and_no_internal_notes(client: Any) -> None:
    spec = client.get("/openapi.json").json()
    ok = spec["paths"]["/api/v1/match"]["post"]["responses"]["200"]["content"]
    assert set(ok["application/json"]["examples"]) == set(FORMATS) - {"text"}
    assert ok["text/plain"]["example"].startswith("errkb: CUDA out of memory [cuda-oom]")
    example = ok["application/json"]["examples"]["json"]["value"]
    assert MatchResponse.model_validate(example).matches[0].article_id == "cuda-oom"
    text = re.sub(r"```.*?```", "", json.dumps(spec), flags=re.S)  # code fences are fine
    assert "``" not in text  # reStructuredText marks belong in docstrings, not in /docs
    assert not re.search(r"\(issue \d+|issue \d+\)", text)


def test_the_root_cause_stays_first_though_its_wrapper_scores_higher(
    repository_kb: LiveKb,
) -> None:
    """torchrun's ChildFailedError around an OOM-killed rank: the killed rank's article leads."""
    log = (
        ROOT / "kb/examples/host-oom-killed-rank/repro-torchrun-2ranks-torch213.log"
    ).read_bytes()
    result = match_text(log, repository_kb.index)
    assert [m.article_id for m in result.matches[:2]] == ["host-oom-killed-rank", "childfailed"]
    assert result.matches[1].score > result.matches[0].score  # the wrapper scores higher
    reply = build_reply(result, repository_kb, lang="en", base_url="http://errkb", result_link=LINK)
    assert [m.article_id for m in reply.matches[:2]] == ["host-oom-killed-rank", "childfailed"]
