"""What a no-match page offers instead of a dead end (issue 21).

The nearest articles: the matcher's best candidates under the threshold
(marked as such on the page), topped up from the library search on the
first event's message. Run once, when the paste is answered, and stored with
the view; a log above ``RERUN_LIMIT`` is not matched a second time.
"""

from __future__ import annotations

from typing import Any

from app.articles.search import rank_articles
from app.matching.normalize import fingerprint
from app.matching.pipeline import MatchOptions, match_text
from app.matching.result import MatchResult
from app.service.kb import LiveKb
from app.web.present import event_label

NEAR_THRESHOLD = 0.05
NEAR_COUNT = 3
RERUN_LIMIT = 1 << 20


def nearest(live: LiveKb, data: bytes, result: MatchResult, lang: str) -> dict[str, Any]:
    """``{"fingerprint", "query", "near": [{"article_id", "score", "how"}]}`` (blocking)."""
    root = result.events[0] if result.events else None
    query = event_label(_event(root), 160) if root is not None else ""
    near: list[dict[str, Any]] = []
    if len(data) <= RERUN_LIMIT:
        options = MatchOptions(lang=lang, top_k=NEAR_COUNT, threshold=NEAR_THRESHOLD)
        for match in match_text(data, live.index, options).matches:
            near.append({"article_id": match.article_id, "score": match.score, "how": "matcher"})
    public = [x.article for x in live.kb.articles.values() if x.article.status != "draft"]
    for hit in rank_articles(public, query=query) if query else []:
        if len(near) >= NEAR_COUNT:
            break
        if all(hit.article.id != item["article_id"] for item in near):
            near.append({"article_id": hit.article.id, "score": 0.0, "how": "text"})
    return {"fingerprint": fingerprint(root) if root else "", "query": query, "near": near}


def _event(event: Any) -> dict[str, Any]:
    return {"exception": event.exception, "message": event.message, "kind": event.kind.value}
