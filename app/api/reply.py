"""The answer object every channel renders from: built once per response.

Text for a job log, JSON for programs, Markdown for a bot, Slack blocks, a
Feishu card, DingTalk and WeCom messages all say the same thing: the
matches best first, each with its title, confidence, summary, the *whole*
first step of its fix (words and code: ``articles.fixsteps``), who fixes it
(``layer``), and the links (the article, the stored result page). Building
that once here keeps the formats from drifting apart (issue 20).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.articles.fixsteps import FixStep, first_step
from app.articles.layers import INFRASTRUCTURE, layer_note
from app.matching.result import Match, MatchResult
from app.service.kb import LiveKb

LABELS = {
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
        "line": "line {n}",
        "ranks": "ranks",
        "result": "result",
        "open": "Open the article",
        "open_result": "Open the analysed log",
        "none": "no known article matches this log",
        "unmatched": "It is counted on the KB's to-do list",
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
        "line": "第 {n} 行",
        "ranks": "rank",
        "result": "分析结果",
        "open": "查看文章",
        "open_result": "查看分析结果",
        "none": "知识库里没有与这段日志匹配的文章",
        "unmatched": "已计入知识库的待办列表",
    },
}


@dataclass(frozen=True)
class ReplyMatch:
    """One matched article as every format shows it."""

    article_id: str
    title: str
    url: str
    score: float
    confidence: str
    summary: str
    layer: str
    layer_note: str
    infrastructure: bool
    step: FixStep
    fix_markdown: str


@dataclass(frozen=True)
class Reply:
    """What to say, in ``lang``: the matches best first, the links, or why there is none."""

    lang: str
    matches: tuple[ReplyMatch, ...]
    result_url: str | None
    evidence: str | None
    unknown: str | None
    unmatched_url: str
    hints: tuple[str, ...] = ()  # about how the log was sent (e.g. curl -d stripped its lines)

    @property
    def top(self) -> ReplyMatch | None:
        return self.matches[0] if self.matches else None

    def word(self, key: str) -> str:
        return LABELS.get(self.lang, LABELS["en"])[key]


def article_url(base_url: str, article_id: str) -> str:
    return f"{base_url.rstrip('/')}/articles/{article_id}"


def result_url(base_url: str, event_id: int | None, key: str | None) -> str | None:
    """The stored result page (``/r/<id>/<key>``), when the event and its key were stored."""
    if event_id is None or not key:
        return None
    return f"{base_url.rstrip('/')}/r/{event_id}/{key}"


def result_key(url: str | None) -> str | None:
    """The key of a result page's URL (its last part): what feedback names the answer by."""
    return url.rstrip("/").rsplit("/", 1)[-1] if url else None


def build_reply(
    result: MatchResult,
    live: LiveKb,
    *,
    lang: str,
    base_url: str,
    result_link: str | None,
    hints: tuple[str, ...] = (),
) -> Reply:
    """The one answer object (see the module docstring).

    The matcher's first match stays first: it is the root cause's article, and
    a wrapper or a victim may score higher (torchrun's ChildFailedError around
    an OOM-killed rank). The candidates after it are sorted by score.
    """
    first, rest = result.matches[:1], result.matches[1:]
    ordered = [*first, *sorted(rest, key=lambda m: -m.score)]
    matches = tuple(_match(m, live, lang, base_url) for m in ordered)
    evidence = None
    if matches and matches[0].infrastructure:
        evidence = evidence_line(result, ordered[0], lang)
    return Reply(
        lang=lang,
        matches=matches,
        result_url=result_link,
        evidence=evidence,
        unknown=None if matches else _unknown(result, lang),
        unmatched_url=f"{base_url.rstrip('/')}/unmatched",
        hints=hints,
    )


def _match(match: Match, live: LiveKb, lang: str, base_url: str) -> ReplyMatch:
    loaded = live.kb.articles.get(match.article_id)
    article = loaded.article if loaded else None
    layer = article.layer if article else "user-code"
    fix = article.fix.get(lang) if article else ""
    return ReplyMatch(
        article_id=match.article_id,
        title=article.title.get(lang) if article else match.title,
        url=article_url(base_url, match.article_id),
        score=match.score,
        confidence=match.confidence,
        summary=" ".join(article.summary.get(lang).split()) if article else "",
        layer=layer,
        layer_note=layer_note(layer, lang),
        infrastructure=layer in INFRASTRUCTURE,
        step=first_step(fix),
        fix_markdown=fix.strip(),
    )


def evidence_line(result: MatchResult, match: Match, lang: str) -> str:
    """``evidence: line 812 (ranks 0, 3): NCCL WARN ...``: where the answer points in the log."""
    words = LABELS.get(lang, LABELS["en"])
    event = result.events[match.event_index]
    first = (event.error_text or event.message).strip().split("\n", 1)[0][:300]
    where = words["line"].format(n=event.error_line_start or event.line_start)
    if event.ranks:
        where += f" ({words['ranks']} {', '.join(str(r) for r in event.ranks[:8])})"
    return f"{words['evidence']}: {where}: {first}"


def _unknown(result: MatchResult, lang: str) -> str:
    """One line on what was found when no article matched."""
    if not result.events:
        return "no error found in this log" if lang != "zh" else "日志里没有找到错误"
    first = result.events[0]
    head = f"{first.exception}: " if first.exception else ""
    message = (head + first.message).split("\n", 1)[0][:160]
    count = len(result.events)
    if lang == "zh":
        return f"{count} 个错误事件；第一个：{message}"
    return f"{count} error event(s); first: {message}"
