"""The MCP server's three tools, built over one loaded KB revision.

Transport is the caller's choice (``errkb mcp``: stdio for an agent that
starts errkb itself, streamable HTTP on 127.0.0.1 for one that connects).
The answers are the API's own: ``match_log`` returns what ``POST
/api/v1/match`` returns as JSON (one ``Reply``, the whole first fix step),
so an agent and a bot never disagree.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from app.api.answers import match_json
from app.api.reply import article_url, build_reply
from app.articles.model import Article
from app.articles.search import search_articles as find_articles
from app.matching.pipeline import MatchOptions, match_text
from app.service.kb import LiveKb

MAX_LOG_BYTES = 16 << 20  # beyond this, send the tail: the failure is at the end
INSTRUCTIONS = (
    "errkb knows model-training failures (PyTorch, transformers, accelerate, TRL, PEFT, "
    "DeepSpeed, CUDA, NCCL). When a run fails, call match_log with the traceback or the tail "
    "of the log; read the top match's fix; call get_article for the whole article."
)


def _lang(lang: str) -> str:
    return lang if lang in ("en", "zh") else "en"


def build_server(live: LiveKb, *, base_url: str) -> MCPServer:
    """An MCP server answering from ``live`` (see the module docstring)."""
    server: MCPServer = MCPServer(name="errkb", instructions=INSTRUCTIONS)

    @server.tool()
    def match_log(log: str, lang: str = "en", top_k: int = 3) -> dict[str, Any]:
        """Match a traceback or a training log to the articles that fix it, best first.

        Returns the matches (title, confidence, score, summary_markdown with the whole
        first fix step, fix_markdown, url), the error events found, and answer_text.
        """
        chosen = _lang(lang)
        data = log.encode("utf-8", "replace")[-MAX_LOG_BYTES:]
        options = MatchOptions(lang=chosen, top_k=max(1, min(10, top_k)))
        result = match_text(data, live.index, options)
        reply = build_reply(result, live, lang=chosen, base_url=base_url, result_link=None)
        return match_json(result, reply, kb_revision=live.revision, match_event_id=None)

    @server.tool()
    def get_article(article_id: str, lang: str = "en") -> dict[str, Any]:
        """One article: title, summary, cause, fix (Markdown), references, layer, libraries."""
        loaded = live.kb.articles.get(article_id)
        if loaded is None or loaded.article.status == "draft":  # drafts stay private
            raise ValueError(f"no article {article_id!r}; search_articles lists the ids")
        return _article(loaded.article, _lang(lang), base_url)

    @server.tool()
    def search_articles(query: str, lang: str = "en", limit: int = 10) -> list[dict[str, str]]:
        """Articles that hold words of ``query`` (either language), best first (BM25F)."""
        chosen = _lang(lang)
        everything = [loaded.article for loaded in live.kb.articles.values()]
        found = find_articles(everything, query=query)[: max(1, min(50, limit))]
        return [
            {"id": a.id, "title": a.title.get(chosen), "summary": a.summary.get(chosen),
             "url": article_url(base_url, a.id)}
            for a in found
        ]  # fmt: skip

    return server


def _article(article: Article, lang: str, base_url: str) -> dict[str, Any]:
    return {
        "id": article.id,
        "title": article.title.get(lang),
        "summary": article.summary.get(lang),
        "cause": article.cause.get(lang),
        "fix": article.fix.get(lang),
        "layer": article.layer,
        "libraries": list(article.libraries),
        "references": [str(ref) for ref in article.references],
        "url": article_url(base_url, article.id),
    }
