"""The match answer in each format, all rendered from one ``api.reply.Reply``.

- ``json``: ``MatchResult.to_json()`` (the ``errkb match --json`` shape) plus,
  per match, the article ``url``, ``summary_markdown`` (postable as it is:
  title, confidence, summary, the whole first fix step with its code), the
  whole ``fix_markdown`` and the layer; plus the stored result page
  (``result_url``) and ``answer_text`` (what a terminal would print), so a bot
  needs no second request.
- ``text``: a few lines for a failing job's log: the top article, the cause,
  the first fix step with its code indented (it survives a job log and is
  copied as it is), the other candidates, and last the link a person clicks.
- ``slack``, ``feishu``, ``dingtalk``, ``wecom``: chat messages (``api.chat``).

Everything printed to a terminal has its control characters removed (target
C8: no ANSI or OSC sequence, no bidi override from a log reaches a job's log).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.responses import PlainTextResponse, Response

from app.api import chat
from app.api.reply import Reply, ReplyMatch, result_key
from app.http.clients import FORMATS, Format
from app.matching.result import MatchResult

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    """``text`` without control characters other than newline and tab (target C8)."""
    return _CONTROLS.sub("", text)


def confidence_words(reply: Reply, match: ReplyMatch) -> str:
    return f"{reply.word('confidence')} {reply.word(match.confidence)} ({match.score:.2f})"


def summary_markdown(reply: Reply, match: ReplyMatch) -> str:
    """Title with the link, confidence, summary, who fixes it, the first fix step whole."""
    lines = [
        f"**[{match.title}]({match.url})** — {confidence_words(reply, match)}",
        match.summary,
    ]
    if match.infrastructure:
        lines.append(f"**{match.layer_note}**")
    lines.append(f"**{reply.word('fix')}:** {match.step.markdown}")
    return "\n".join(lines)


def text_answer(reply: Reply) -> str:
    """A few lines for a terminal or a job log (see the module docstring)."""
    hints = [f"errkb: {hint}" for hint in reply.hints]
    return printable("\n".join([*hints, _answer_lines(reply)])) + "\n"


def _answer_lines(reply: Reply) -> str:
    top = reply.top
    if top is None:
        lines = [f"errkb: {reply.word('none')} ({reply.unknown}).",
                 f"{reply.word('unmatched')}: {reply.unmatched_url}"]  # fmt: skip
        return "\n".join(lines)
    lines = [f"errkb: {top.title} [{top.article_id}] — {confidence_words(reply, top)}"]
    lines.append(f"{reply.word('cause')}: {top.summary}")
    if top.infrastructure:
        lines.append(top.layer_note)
        if reply.evidence:
            lines.append(reply.evidence)
    step = top.step.terminal_lines() or [""]
    lines.append(f"{reply.word('fix')}: {step[0]}")
    lines.extend(step[1:])
    others = [f"{m.article_id} ({m.score:.2f})" for m in reply.matches[1:3]]
    if others:
        lines.append(f"{reply.word('also')}: {', '.join(others)}")
    lines.append(f"{reply.word('see')}: {top.url}")
    if reply.result_url:
        lines.append(f"{reply.word('result')}: {reply.result_url}")
    return "\n".join(lines)


def match_json(
    result: MatchResult, reply: Reply, *, kb_revision: str, match_event_id: int | None
) -> dict[str, Any]:
    """The ``errkb match --json`` shape plus links, summaries, the fix and the stored event."""
    payload = result.to_json()
    ordered = sorted(result.matches, key=lambda m: -m.score)  # the reply's order (stable)
    payload["matches"] = [
        _match_item(match.to_json(), reply, shown)
        for match, shown in zip(ordered, reply.matches, strict=True)
    ]
    payload["match_event_id"] = match_event_id
    payload["result_url"] = reply.result_url
    payload["result_key"] = result_key(reply.result_url)
    payload["lang"] = reply.lang
    payload["kb_revision"] = kb_revision
    payload["answer_text"] = text_answer(reply)
    payload["hints"] = list(reply.hints)
    return payload


def _match_item(item: dict[str, Any], reply: Reply, match: ReplyMatch) -> dict[str, Any]:
    return {
        **item,
        "url": match.url,
        "summary_markdown": summary_markdown(reply, match),
        "fix_markdown": match.fix_markdown,
        "layer": match.layer,
        "layer_note": match.layer_note,
    }


def _json(payload: Any) -> Response:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(body, media_type="application/json")


@dataclass(frozen=True)
class Rendered:
    """What every renderer gets: the result, its reply, the KB revision, the stored event."""

    result: MatchResult
    reply: Reply
    kb_revision: str
    match_event_id: int | None


def _json_answer(r: Rendered) -> Response:
    return _json(
        match_json(r.result, r.reply, kb_revision=r.kb_revision, match_event_id=r.match_event_id)
    )


def _text_answer(r: Rendered) -> Response:
    return PlainTextResponse(text_answer(r.reply))


def _chat_answer(build: Callable[[Reply], dict[str, Any]]) -> Callable[[Rendered], Response]:
    def render(r: Rendered) -> Response:
        return _json(build(r.reply))

    return render


RENDERERS: dict[Format, Callable[[Rendered], Response]] = {
    "json": _json_answer,
    "text": _text_answer,
    "slack": _chat_answer(chat.slack),
    "feishu": _chat_answer(chat.feishu),
    "dingtalk": _chat_answer(chat.dingtalk),
    "wecom": _chat_answer(chat.wecom),
}
assert tuple(RENDERERS) == FORMATS  # every format of app.http.clients has its renderer


def respond(rendered: Rendered, *, fmt: Format) -> Response:
    """The answer in the chosen format (``http.clients.answer_format``)."""
    return RENDERERS[fmt](rendered)
