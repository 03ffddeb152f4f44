"""What a match answer says to people and bots: links, a Markdown summary, plain text.

The JSON answer is ``MatchResult.to_json()`` (the shape ``errkb match --json``
prints) plus, per match, the article page's ``url`` and a ``summary_markdown``
a chat bot can post as it is (title, confidence, one-line summary, the first
fix step, the link), plus the stored ``match_event_id`` (issue 4).

The plain-text answer is for a failing job's log: the top article, the
cause and the fix in a few lines, the link. Everything printed to a terminal
has its control characters removed (target C8: no ANSI or OSC sequence, no
bidi override from a log reaches the job's log or the user's terminal).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from starlette.responses import PlainTextResponse, Response

from app.articles.layers import INFRASTRUCTURE, layer_note
from app.articles.model import Article
from app.http.clients import FORMATS, Format
from app.matching.result import Match, MatchResult
from app.service.kb import LiveKb
from app.service.runner import Answer

STEP_CHARS = 300
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+")
_CJK = re.compile("[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
_LABELS = {
    "en": {
        "confidence": "confidence",
        "fix": "Fix",
        "cause": "cause",
        "see": "see",
        "also": "also",
        "high": "high",
        "medium": "medium",
        "low": "low",
        "evidence": "evidence",
        "line": "line",
        "ranks": "ranks",
    },
    "zh": {
        "confidence": "置信度",
        "fix": "修复",
        "cause": "原因",
        "see": "详情",
        "also": "其他",
        "high": "高",
        "medium": "中",
        "low": "低",
        "evidence": "证据",
        "line": "第",
        "ranks": "rank",
    },
}


def printable(text: str) -> str:
    """``text`` without control characters other than newline and tab (target C8)."""
    return _CONTROLS.sub("", text)


def article_url(base_url: str, article_id: str) -> str:
    return f"{base_url.rstrip('/')}/articles/{article_id}"


def _blocks(markdown: str) -> list[str]:
    """Paragraphs and list items of ``markdown``, code blocks left out."""
    blocks: list[str] = []
    current: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.strip().startswith(("```", "~~~")):
            fenced = not fenced
            blocks.append(_joined(current))
            current = []
            continue
        if fenced:
            continue
        starts_item = bool(_NUMBERED.match(line)) and bool(current)
        if not line.strip() or starts_item:
            blocks.append(_joined(current))
            current = []
        if line.strip():
            current.append(line.strip())
    blocks.append(_joined(current))
    return [block for block in blocks if block]


def _joined(lines: list[str]) -> str:
    """Wrapped lines as one: a space between words, none where Chinese text wraps."""
    text = ""
    for line in lines:
        if text and not (_CJK.match(text[-1]) or _CJK.match(line[0])):
            text += " "
        text += line
    return text


def plain(markdown: str) -> str:
    """One line of Markdown as a terminal shows it: no emphasis marks, no code ticks.

    ``**1. See who holds the port** (on rank 0)`` reads as ``See who holds the
    port (on rank 0)`` in a job log; the step's own number goes too.
    """
    text = _EMPHASIS.sub("", markdown).replace("`", "")
    return _NUMBERED.sub("", text)


def first_fix_step(markdown: str, limit: int = STEP_CHARS) -> str:
    """Step 1 of a numbered fix, or the fix's first paragraph; one line, at most ``limit``."""
    blocks = _blocks(markdown)
    step = next((b for b in blocks if _NUMBERED.match(b)), blocks[0] if blocks else "")
    step = " ".join(_NUMBERED.sub("", step).split())
    return step if len(step) <= limit else step[: limit - 1].rstrip() + "…"


def summary_markdown(article: Article, match: Match, lang: str, url: str) -> str:
    """Title with the link, confidence, summary, first fix step: postable as it is."""
    words = _LABELS.get(lang, _LABELS["en"])
    confidence = f"{words['confidence']} {words[match.confidence]} ({match.score:.2f})"
    lines = [
        f"**[{article.title.get(lang)}]({url})** — {confidence}",
        " ".join(article.summary.get(lang).split()),
    ]
    if article.layer in INFRASTRUCTURE:
        lines.append(f"**{layer_note(article.layer, lang)}**")
    lines.append(f"**{words['fix']}:** {first_fix_step(article.fix.get(lang))}")
    return "\n".join(lines)


def evidence_line(result: MatchResult, match: Match, lang: str) -> str:
    """``evidence: line 812 (ranks 0, 3): NCCL WARN ...``: where the answer points in the log."""
    words = _LABELS.get(lang, _LABELS["en"])
    event = result.events[match.event_index]
    first = (event.error_text or event.message).strip().split("\n", 1)[0][:STEP_CHARS]
    where = f"{words['line']} {event.error_line_start or event.line_start}"
    if lang == "zh":
        where += " 行"
    if event.ranks:
        where += f" ({words['ranks']} {', '.join(str(r) for r in event.ranks[:8])})"
    return f"{words['evidence']}: {where}: {first}"


def match_json(
    result: MatchResult, live: LiveKb, *, lang: str, base_url: str, match_event_id: int | None
) -> dict[str, Any]:
    """The ``errkb match --json`` shape plus links, summaries and the stored event's id."""
    payload = result.to_json()
    for match, item in zip(result.matches, payload["matches"], strict=True):  # type: ignore[call-overload]
        url = article_url(base_url, match.article_id)
        item["url"] = url
        loaded = live.kb.articles.get(match.article_id)
        item["summary_markdown"] = (
            summary_markdown(loaded.article, match, lang, url) if loaded else match.title
        )
        layer = loaded.article.layer if loaded else "user-code"
        item["layer"] = layer
        item["layer_note"] = layer_note(layer, lang)
    payload["match_event_id"] = match_event_id
    payload["lang"] = lang
    payload["kb_revision"] = live.revision
    return payload


def text_answer(result: MatchResult, live: LiveKb, *, lang: str, base_url: str) -> str:
    """A few lines for a terminal or a job log (see the module docstring)."""
    words = _LABELS.get(lang, _LABELS["en"])
    top = result.top
    if top is None:
        return printable(_unknown_text(result, base_url)) + "\n"
    loaded = live.kb.articles.get(top.article_id)
    url = article_url(base_url, top.article_id)
    lines = [f"errkb: {top.title} [{top.article_id}]"]
    lines[0] += f" — {words['confidence']} {words[top.confidence]} ({top.score:.2f})"
    if loaded is not None:
        lines.append(f"{words['cause']}: {' '.join(loaded.article.summary.get(lang).split())}")
        if loaded.article.layer in INFRASTRUCTURE:
            lines.append(layer_note(loaded.article.layer, lang))
            lines.append(evidence_line(result, top, lang))
        lines.append(f"{words['fix']}: {plain(first_fix_step(loaded.article.fix.get(lang)))}")
    lines.append(f"{words['see']}: {url}")
    others = [f"{m.article_id} ({m.score:.2f})" for m in result.matches[1:3]]
    if others:
        lines.append(f"{words['also']}: {', '.join(others)}")
    return printable("\n".join(lines)) + "\n"


def _unknown_text(result: MatchResult, base_url: str) -> str:
    if not result.events:
        return "errkb: no error found in this log and no known article matches it."
    first = result.events[0]
    head = f"{first.exception}: " if first.exception else ""
    message = (head + first.message).split("\n", 1)[0][:160]
    return (
        f"errkb: no known article matches this log ({len(result.events)} error event(s); "
        f"first: {message}).\n"
        f"It is counted on the KB's to-do list: {base_url.rstrip('/')}/unmatched"
    )


def _json_response(answer: Answer, lang: str, base_url: str) -> Response:
    """``MatchResponse``: the ``errkb match --json`` shape with links and summaries."""
    payload = match_json(
        answer.result,
        answer.live,
        lang=lang,
        base_url=base_url,
        match_event_id=answer.match_event_id,
    )
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return Response(body, media_type="application/json")


def _text_response(answer: Answer, lang: str, base_url: str) -> Response:
    """A few lines of plain text, for curl and a job's hook."""
    return PlainTextResponse(text_answer(answer.result, answer.live, lang=lang, base_url=base_url))


RENDERERS: dict[Format, Callable[[Answer, str, str], Response]] = {
    "json": _json_response,
    "text": _text_response,
}
assert tuple(RENDERERS) == FORMATS  # every format of app.http.clients has its renderer


def respond(answer: Answer, *, fmt: Format, lang: str, base_url: str) -> Response:
    """The answer in the chosen format (``http.clients.answer_format``)."""
    return RENDERERS[fmt](answer, lang, base_url)
