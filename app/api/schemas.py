"""Request and response models of the JSON API; the OpenAPI schema is generated from these.

Families as in the FastAPI template (STYLE.md rule 11): ``...In`` for what a
client sends, ``...Out`` for what it gets back. The match answer itself is
built by ``app.api.answers.match_json`` (the ``errkb match --json`` shape);
``MatchResponse`` documents that shape, and schemathesis checks that the
answers conform to it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from app.articles.lifecycle import State as LifecycleState
from app.articles.model import ARTICLE_ID_PATTERN
from app.store.tables import COMMENT_MAX, OUTCOMES

Lang = Literal["en", "zh"]
Outcome = Literal["verified", "stale", "drifted", "fix-broken", "unverifiable", "error"]
assert set(OUTCOMES) == set(Outcome.__args__)  # type: ignore[attr-defined]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Health(BaseModel):
    """The process is alive; says nothing about its dependencies."""

    status: Literal["ok"] = "ok"


class ReadinessCheck(BaseModel):
    """One thing `/readyz` checked (listed with `?verbose=true`)."""

    name: Literal["database", "migrations", "kb"]
    ok: bool
    detail: str


class Readiness(BaseModel):
    """Whether this replica should receive traffic, and which KB it serves."""

    status: Literal["ready", "not-ready"]
    database: Literal["ok", "unreachable"]
    migrations: Literal["at-head", "behind", "unknown"] = Field(
        description="The database's schema against the migrations this errkb ships."
    )
    kb_revision: str = Field(description="Content hash of the KB in use.")
    articles: int = Field(description="Number of articles in the KB in use.")
    checks: list[ReadinessCheck] | None = Field(
        default=None, description="Each check, with ?verbose=true."
    )


class ErrorDetail(BaseModel):
    code: str = Field(description="Stable machine-readable code: not_found, too_large, ...")
    message: str = Field(description="Human-readable, redacted; never echoes the input.")
    details: list[str] | None = Field(default=None, description="One line per problem.")


class ErrorResponse(BaseModel):
    """Every error answer: `{"error": {"code", "message"}}`."""

    error: ErrorDetail


ENV_KEYS = 200
"""Most ``env`` entries a match request may carry (issue 24: millions stalled the server)."""
EnvName = Annotated[str, StringConstraints(min_length=1, max_length=128)]
EnvVersion = Annotated[str, StringConstraints(max_length=256)]


class MatchRequest(_In):
    """The JSON form of a match request; raw, gzip and multipart bodies carry only the text."""

    text: str = Field(description="The traceback or job log.")
    env: dict[EnvName, EnvVersion] | None = Field(
        default=None,
        max_length=ENV_KEYS,
        description="Installed versions, e.g. {'torch': '2.4.0'}; weighs article version ranges. "
        "At most 200 entries, names up to 128 characters, versions up to 256.",
    )
    lang: Lang | None = Field(default=None, description="Language of titles and summaries.")
    top_k: int | None = Field(default=None, ge=1, le=50, description="Matches to return (5).")


class EvidenceOut(BaseModel):
    kind: Literal["error", "context", "log-context", "fuzzy", "environment", "note"]
    signature: str
    line_start: int
    line_end: int
    hint: str


class MatchOut(BaseModel):
    article_id: str
    score: float
    confidence: Literal["high", "medium", "low"]
    title: str
    event_index: int
    evidence: list[EvidenceOut]
    url: str = Field(description="The article's page.")
    summary_markdown: str = Field(
        description="Title with the link, confidence, summary and the whole first fix step "
        "(code blocks included): postable as it is."
    )
    fix_markdown: str = Field(description="The article's whole fix, in the asked language.")
    layer: str = Field(
        description="Where the fault lives: hardware, cluster, environment, framework, user-code."
    )
    layer_note: str = Field(description="Who fixes it, in one sentence of the asked language.")


class EventOut(BaseModel):
    exception: str | None
    message: str
    ranks: list[int]
    line_start: int
    line_end: int
    root_cause: bool


class InputOut(BaseModel):
    bytes: int
    lines: int
    redactions: int


class MatchResponse(BaseModel):
    """The `errkb match --json` shape plus links, summaries, the fix and the stored result."""

    matches: list[MatchOut]
    events: list[EventOut]
    unknown: bool
    input: InputOut
    match_event_id: int | None = Field(description="The stored event; null if it was not stored.")
    result_url: str | None = Field(
        description="The analysed log's page (highlighted lines, per-rank table, feedback "
        "buttons); null if the event was not stored."
    )
    result_key: str | None = Field(
        description="The result page's key, which names this answer in a feedback request; "
        "null if the event was not stored."
    )
    answer_text: str = Field(description="The plain-text answer, as curl would print it.")
    hints: list[str] = Field(
        description="How the log could be sent better, e.g. when `curl -d` stripped its newlines."
    )
    lang: Lang
    kb_revision: str


class SlackMessage(BaseModel):
    """`?format=slack`: Block Kit, posted as it is (chat.postMessage, a webhook, a reply)."""

    text: str = Field(description="The notification fallback.")
    blocks: list[dict[str, Any]] = Field(description="Header, sections, context, buttons.")


class FeishuMessage(BaseModel):
    """`?format=feishu`: a Feishu/Lark custom bot's interactive card."""

    msg_type: Literal["interactive"]
    card: dict[str, Any]


class DingTalkMarkdown(BaseModel):
    title: str
    text: str


class DingTalkMessage(BaseModel):
    """`?format=dingtalk`: a DingTalk custom robot's markdown message."""

    msgtype: Literal["markdown"]
    markdown: DingTalkMarkdown


class WeComMarkdown(BaseModel):
    content: str = Field(description="At most 4,096 bytes of UTF-8.")


class WeComMessage(BaseModel):
    """`?format=wecom`: a WeCom group robot's markdown message."""

    msgtype: Literal["markdown"]
    markdown: WeComMarkdown


AnyMatchAnswer = MatchResponse | SlackMessage | FeishuMessage | DingTalkMessage | WeComMessage
"""The JSON answers of ``POST /api/v1/match``, one per ``?format=``."""


class LifecycleOut(BaseModel):
    state: LifecycleState = Field(description="draft, active, verified, stale or retired.")
    reason: str = Field(description="Why, in a few words.")
    since: datetime | None = Field(description="Since when, where the reason has a date.")
    flag: Literal["stale", "drifted"] | None = Field(
        default=None,
        description="The verifier outcome that made the article stale: the latest run "
        "in some environment says stale or drifted.",
    )


class ArticleBrief(BaseModel):
    id: str
    title: dict[str, str]
    summary: dict[str, str]
    libraries: list[str]
    tags: list[str]
    layer: str
    status: str = Field(description="As its authors set it: draft, active or retired.")
    lifecycle: LifecycleOut
    url: str


class ArticleList(BaseModel):
    articles: list[ArticleBrief]
    count: int


class VerificationOut(BaseModel):
    run_id: str
    article_id: str
    content_hash: str
    outcome: Outcome
    environment: dict[str, Any]
    environment_key: str = Field(
        description="Runs with the same key share an environment (Python minor, torch, CUDA, "
        "GPU model and count, package versions): one row each in `verifications`."
    )
    started_at: datetime
    duration_s: float
    detail: str | None
    created_at: datetime


class ArticleStatsOut(BaseModel):
    hits: int = Field(description="Answers whose top article this was.")
    fixed: int = Field(description="Feedback 'fixed' on those answers.")
    wrong: int = Field(description="Feedback 'wrong' on those answers.")
    named_right: int = Field(description="Feedback on other answers naming this one as right.")


class ArticleOut(ArticleBrief):
    cause: dict[str, str]
    fix: dict[str, str]
    affects: dict[str, str]
    references: list[str]
    kb_revision: str
    verification: VerificationOut | None = Field(description="The latest verifier run.")
    verifications: list[VerificationOut] = Field(
        description="The latest run in each environment (Python, torch, CUDA, GPU model and "
        "count, the article's packages), newest first: the verification matrix."
    )
    stats: ArticleStatsOut | None = Field(description="Null while the database is unavailable.")


RESULT_KEY_PATTERN = r"^[A-Za-z0-9_-]{8,32}$"


class FeedbackIn(_In):
    result_key: str = Field(
        pattern=RESULT_KEY_PATTERN,
        description="The key of the answer's result page: the last part of its `result_url` "
        "(`/r/<id>/<key>`), also given as `result_key` in the match answer.",
    )
    verdict: Literal["fixed", "wrong"]
    right_article_id: str | None = Field(default=None, pattern=ARTICLE_ID_PATTERN, max_length=128)
    comment: str | None = Field(default=None, max_length=COMMENT_MAX)


class FeedbackOut(BaseModel):
    id: int
    result_key: str
    replaced: bool = Field(
        description="True when this client's earlier verdict on this answer was replaced: "
        "each client holds one verdict per answer."
    )


class UnmatchedOut(BaseModel):
    fingerprint: str
    exception: str
    sample: str = Field(description="A redacted excerpt of the first sighting.")
    count: int
    first_seen: datetime
    last_seen: datetime


class UnmatchedList(BaseModel):
    clusters: list[UnmatchedOut]
    limit: int
    offset: int


class VerificationIn(_In):
    run_id: str = Field(pattern=r"^[A-Za-z0-9._:-]{1,64}$")
    article_id: str = Field(pattern=ARTICLE_ID_PATTERN, max_length=128)
    content_hash: str = Field(pattern=r"^[A-Za-z0-9]{1,64}$")
    outcome: Outcome
    environment: dict[str, Any] = Field(max_length=200)
    started_at: AwareDatetime
    duration_s: float = Field(ge=0, le=7 * 24 * 3600)
    detail: str | None = Field(default=None, max_length=64 * 1024)


class ReloadOut(BaseModel):
    swapped: bool
    revision: str = Field(description="The revision served now.")
    proposed: str | None = Field(
        default=None, description="The new revision, when it was built but not swapped in."
    )
    articles: int
    warnings: list[str]
    dryrun: dict[str, Any] | None = Field(
        default=None,
        description="Stored events replayed against the new KB: counts, per-article impact.",
    )


ERROR_LINE = {
    "text/plain": {
        "schema": {
            "type": "string",
            "description": "For text clients: `errkb: <message> (<status> <code>)`.",
        }
    }
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for error statuses: the one error shape, or its text line."""
    return {status: {"model": ErrorResponse, "content": ERROR_LINE} for status in statuses}
