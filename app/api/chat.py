"""Chat messages built from one ``Reply``: Slack, Feishu/Lark, DingTalk, WeCom.

A bot posts these bodies as they are to its platform (the reference bot in
``examples/`` does). Each keeps to its platform's documented shape and
limits, and escapes what a pasted log may carry: ``&``, ``<`` and ``>`` as
HTML entities, and the platform's own markup in text that came from the log
(shown as inline code, or with its marks escaped where there is none).
Article text is our own Markdown, converted to the platform's dialect.

- Slack Block Kit (https://docs.slack.dev/reference/block-kit/blocks):
  ``text`` fallback, at most 50 blocks, header ``plain_text`` <= 150
  characters, section ``mrkdwn`` <= 3,000, button text <= 75, URL <= 3,000;
  mrkdwn links are ``<url|text>``, bold is ``*x*``.
- Feishu/Lark custom bot interactive card
  (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot):
  ``msg_type: interactive``, a header title in ``plain_text``, ``markdown``
  elements (code blocks allowed), a button with a ``url``; the request body
  must stay under 20 KB.
- DingTalk custom robot ``markdown``
  (https://open.dingtalk.com/document/orgapp/custom-bot-send-message-type):
  ``title`` and ``text``; headings, bold, links, lists and quotes, no code
  blocks, so code lines are shown as quoted lines; errkb keeps ``text``
  under 5,000 characters.
- WeCom group robot ``markdown``
  (https://developer.work.weixin.qq.com/document/path/91770): ``content`` at
  most 4,096 bytes of UTF-8; headings, bold, links, one-line inline code and
  quotes, no code blocks, so each code line is its own inline code.
"""

from __future__ import annotations

import json
import re
from typing import Any

from app.api.reply import Reply, ReplyMatch

SLACK_HEADER = 150
SLACK_SECTION = 3000
SLACK_BUTTON = 75
FEISHU_BODY_BYTES = 20 * 1024 - 512  # under the 20 KB request limit, with room to spare
DINGTALK_CHARS = 5000
WECOM_BYTES = 4096
_LINK = re.compile(r"\[([^\]\n]+)\]\((https?://[^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_FENCE = re.compile(r"^\s*```")


def html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def inline_code(text: str) -> str:
    """Pasted text shown as code: no markup of any platform applies inside it."""
    return "`" + text.replace("`", "'").replace("\n", " ") + "`"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _headline(reply: Reply) -> str:
    top = reply.top
    return f"errkb: {top.title}" if top else f"errkb: {reply.word('none')}"


def _confidence(reply: Reply, match: ReplyMatch) -> str:
    return f"{reply.word('confidence')} {reply.word(match.confidence)} ({match.score:.2f})"


def _others(reply: Reply) -> str | None:
    others = [f"{m.article_id} ({m.score:.2f})" for m in reply.matches[1:4]]
    return f"{reply.word('also')}: {', '.join(others)}" if others else None


def _fit_lines(lines: list[str], fits: Any) -> list[str]:
    """Drop lines from the end (marking the cut) until ``fits(lines)``; closes an open fence."""
    kept = list(lines)
    while kept and not fits(kept):
        kept.pop()
        fences = sum(1 for line in kept if _FENCE.match(line))
        tail = ["```"] if fences % 2 else []
        candidate = [*kept, *tail, "…"]
        if fits(candidate):
            return candidate
    return kept


# --- Slack ------------------------------------------------------------------------------


def _mrkdwn(markdown: str) -> str:
    """Our Markdown as Slack mrkdwn: entities first, then bold and links."""
    text = html_escape(markdown)
    text = _BOLD.sub(r"*\1*", text)
    return _LINK.sub(lambda m: f"<{m.group(2)}|{m.group(1)}>", text)


def slack(reply: Reply) -> dict[str, Any]:
    """Block Kit: header, confidence and cause, the fix step, who fixes it, buttons."""
    blocks: list[dict[str, Any]] = [
        {
            "type": "header",
            "text": {"type": "plain_text", "text": _cut(_headline(reply), SLACK_HEADER)},
        }
    ]
    top = reply.top
    if top is None:
        unknown = inline_code(html_escape(reply.unknown or ""))
        blocks.append(_section(f"{unknown}\n{reply.word('unmatched')}: <{reply.unmatched_url}>"))
    else:
        blocks.append(_section(f"*{_confidence(reply, top)}*\n{html_escape(top.summary)}"))
        if top.infrastructure:
            evidence = f"\n{inline_code(html_escape(reply.evidence))}" if reply.evidence else ""
            blocks.append(_section(f"*{html_escape(top.layer_note)}*{evidence}"))
        step = _mrkdwn(f"**{reply.word('fix')}:** {top.step.markdown}").splitlines()
        fitted = _fit_lines(step, lambda lines: len("\n".join(lines)) <= SLACK_SECTION)
        blocks.append(_section("\n".join(fitted)))
        others = _others(reply)
        if others:
            blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": others}]})
        blocks.append({"type": "actions", "elements": _buttons(reply, top)})
    return {"text": _cut(_headline(reply), SLACK_SECTION), "blocks": blocks[:50]}


def _section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": _cut(text, SLACK_SECTION)}}


def _buttons(reply: Reply, top: ReplyMatch) -> list[dict[str, Any]]:
    links = [(reply.word("open"), top.url)]
    if reply.result_url:
        links.append((reply.word("open_result"), reply.result_url))
    return [
        {"type": "button", "text": {"type": "plain_text", "text": _cut(label, SLACK_BUTTON)},
         "url": url[:3000]}
        for label, url in links
    ]  # fmt: skip


# --- Feishu / Lark -----------------------------------------------------------------------

_TEMPLATES = {"high": "red", "medium": "orange", "low": "yellow"}


def feishu(reply: Reply) -> dict[str, Any]:
    """An interactive card: coloured header, cause, the fix step with its code, buttons."""
    top = reply.top
    header = {"title": {"tag": "plain_text", "content": _headline(reply)},
              "template": _TEMPLATES.get(top.confidence, "blue") if top else "grey"}  # fmt: skip
    if top is None:
        body = f"{inline_code(html_escape(reply.unknown or ''))}\n{reply.word('unmatched')}"
        elements: list[dict[str, Any]] = [
            _md(body),
            _actions([(reply.word("see"), reply.unmatched_url)]),
        ]
        return _card(header, elements)
    lines = [f"**{_confidence(reply, top)}**", html_escape(top.summary)]
    if top.infrastructure:
        lines.append(f"**{html_escape(top.layer_note)}**")
        if reply.evidence:
            lines.append(inline_code(html_escape(reply.evidence)))
    links = [(reply.word("open"), top.url)]
    if reply.result_url:
        links.append((reply.word("open_result"), reply.result_url))
    step = _escape_prose(f"**{reply.word('fix')}:** {top.step.markdown}").splitlines()
    others = _others(reply)

    def card(step_lines: list[str]) -> dict[str, Any]:
        parts = [_md("\n".join(lines)), {"tag": "hr"}, _md("\n".join(step_lines))]
        if others:
            parts.append(_md(others))
        return _card(header, [*parts, _actions(links)])

    fitted = _fit_lines(
        step, lambda s: len(json.dumps(card(s), ensure_ascii=False).encode()) <= FEISHU_BODY_BYTES
    )
    return card(fitted)


def _escape_prose(markdown: str) -> str:
    """Entities in prose; code blocks are shown as written."""
    out, fenced = [], False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
        else:
            out.append(line if fenced else html_escape(line))
    return "\n".join(out)


def _md(content: str) -> dict[str, Any]:
    return {"tag": "markdown", "content": content}


def _actions(links: list[tuple[str, str]]) -> dict[str, Any]:
    buttons = [
        {"tag": "button", "text": {"tag": "plain_text", "content": label}, "type": "primary",
         "url": url}
        for label, url in links
    ]  # fmt: skip
    return {"tag": "action", "actions": buttons}


def _card(header: dict[str, Any], elements: list[dict[str, Any]]) -> dict[str, Any]:
    card = {"config": {"wide_screen_mode": True}, "header": header, "elements": elements}
    return {"msg_type": "interactive", "card": card}


# --- DingTalk and WeCom: Markdown without code blocks -----------------------------------

_MARKS = re.compile(r"([\\*_`\[\]#~|])")


def unmark(text: str) -> str:
    """Pasted text with its entities and Markdown marks escaped (no inline code here)."""
    return _MARKS.sub(r"\\\1", html_escape(text))


def _plain_markdown(reply: Reply, code_line: Any) -> list[str]:
    """The answer as Markdown lines without fences: code lines through ``code_line``."""
    top = reply.top
    if top is None:
        unknown = unmark(reply.unknown or "")
        return [f"### {_headline(reply)}", f"> {unknown}",
                f"[{reply.word('unmatched')}]({reply.unmatched_url})"]  # fmt: skip
    lines = [f"### {html_escape(_headline(reply))}", f"**{_confidence(reply, top)}**",
             html_escape(top.summary)]  # fmt: skip
    if top.infrastructure:
        lines.append(f"**{html_escape(top.layer_note)}**")
        if reply.evidence:
            lines.append("> " + unmark(reply.evidence))
    lines.append(f"**{reply.word('fix')}:**")
    fenced = False
    for line in top.step.markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        elif fenced:
            lines.append(code_line(line))
        elif line.strip():
            lines.append(html_escape(line.strip()))
    return lines


def _links(reply: Reply) -> list[str]:
    top = reply.top
    if top is None:
        return []
    links = [f"[{reply.word('open')}]({top.url})"]
    if reply.result_url:
        links.append(f"[{reply.word('open_result')}]({reply.result_url})")
    return links


def dingtalk(reply: Reply) -> dict[str, Any]:
    """``markdown`` with ``title`` and ``text``; code lines shown as quoted lines."""
    body = _plain_markdown(reply, lambda line: "> " + html_escape(line) if line.strip() else ">")
    tail = _links(reply)
    fitted = _fit_lines(body, lambda lines: len("\n\n".join([*lines, *tail])) <= DINGTALK_CHARS)
    text = "\n\n".join([*fitted, *tail])
    return {"msgtype": "markdown", "markdown": {"title": _cut(_headline(reply), 100), "text": text}}


def wecom(reply: Reply) -> dict[str, Any]:
    """``markdown`` ``content`` within 4,096 bytes; each code line its own inline code."""
    body = _plain_markdown(
        reply, lambda line: inline_code(html_escape(line)) if line.strip() else ""
    )
    tail = _links(reply)
    fitted = _fit_lines(body, lambda lines: len("\n".join([*lines, *tail]).encode()) <= WECOM_BYTES)
    return {"msgtype": "markdown", "markdown": {"content": "\n".join([*fitted, *tail])}}
