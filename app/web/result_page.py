"""What the result template needs from a stored view and the live KB.

The view holds ids, scores, evidence and redacted log lines; the article's
words come from the KB being served, in the reader's language, so a
permalink opened in Chinese reads in Chinese. An article removed since the
match keeps the title that was stored with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request

from app.articles.layers import INFRASTRUCTURE, layer_note
from app.service.kb import LiveKb
from app.web.pages import page_lang
from app.web.present import article_draft, event_label, log_rows, rank_rows


def _article(live: LiveKb, match: Mapping[str, Any], lang: str) -> dict[str, Any]:
    loaded = live.kb.articles.get(match["article_id"])
    card: dict[str, Any] = {**match, "known": loaded is not None, "percent": _percent(match)}
    if loaded is not None:
        article = loaded.article
        card |= {
            "title": article.title.get(lang),
            "summary": article.summary.get(lang),
            "cause": article.cause.get(lang),
            "fix": article.fix.get(lang),
            "layer": article.layer,
            "layer_note": layer_note(article.layer, lang),
            "infrastructure": article.layer in INFRASTRUCTURE,
            "libraries": article.libraries,
        }
    return card


def _percent(match: Mapping[str, Any]) -> int:
    return round(float(match.get("score", 0.0)) * 100)


def _error_lines(event: Mapping[str, Any]) -> dict[str, Any]:
    """A stand-in match that marks an unknown event's own error line(s)."""
    start = event.get("error_line_start") or event.get("line_end", 0)
    end = max(event.get("error_line_end") or start, start)
    return {"evidence": [{"kind": "error", "signature": "", "line_start": start, "line_end": end}]}


def _near(live: LiveKb, view: Mapping[str, Any], lang: str) -> list[dict[str, Any]]:
    """The stored nearest articles still in the KB, with their words in ``lang``."""
    cards = []
    for item in view.get("near", []):
        if item.get("article_id") in live.kb.articles:
            cards.append(_article(live, {**item, "confidence": "low"}, lang))
    return cards


def result_context(
    request: Request,
    live: LiveKb,
    view: Mapping[str, Any],
    link: str | None,
    *,
    seen: int | None = None,
) -> dict[str, Any]:
    """Best article, its evidence rows, the per-rank table, the others; or the unknown page
    with the nearest articles, a prefilled search and how often the error was ``seen``."""
    lang = page_lang(request)
    events = list(view.get("events", []))
    for index, event in enumerate(events):
        event["label"] = event_label(event)
        event["short"] = event_label(event, 100)
        event["index"] = index
    windows = view.get("windows", {})
    matches = [_article(live, m, lang) for m in view.get("matches", [])]
    others = sorted(matches[1:], key=lambda m: -float(m.get("score", 0.0)))
    context: dict[str, Any] = {
        "view": view,
        "events": events,
        "ranks": rank_rows(events),
        "matches": matches,
        "others": others,
        "versions": sorted(view.get("versions", {}).items()),
        "near": _near(live, view, lang),
        "near_query": view.get("query", ""),
        "seen": seen,
        "link": link,
        "thanks": False,
        "best": matches[0] if matches else None,
        "best_rows": [],
        "shown_lines": set(),
        "best_event": None,
        "unknown_events": [],
        "draft": article_draft(events[0]) if events else "",
    }
    if matches:
        best = matches[0]
        index = best["event_index"]
        context["best_event"] = events[index] if index < len(events) else None
        context["best_rows"] = log_rows(windows.get(str(index), []), best)
        context["shown_lines"] = {row.number for row in context["best_rows"]}
    else:
        context["unknown_events"] = [
            {**event, "rows": log_rows(windows.get(str(i), []), _error_lines(event))}
            for i, event in enumerate(events)
        ]
    return context
