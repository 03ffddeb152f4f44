"""Who is asking, in which language, and in which format to answer.

A failing job's hook prints the answer into its own log, so command-line
clients (curl, wget, HTTPie, ``errkb report``) get a few lines of plain text
unless they ask for JSON; bots and programs get JSON (DESIGN.md, users
table). ``?format=json|text`` wins over both guesses.
"""

from __future__ import annotations

from typing import Literal, get_args

ClientKind = Literal["api", "curl", "web", "cli", "bot"]
Format = Literal["json", "text", "slack", "feishu", "dingtalk", "wecom"]
FORMATS: tuple[Format, ...] = get_args(Format)
"""The answer formats, listed once: ``?format=`` takes them, ``app.api.answers`` renders each."""
LANGS = ("en", "zh")

_COMMAND_LINE = ("curl/", "wget/", "httpie/", "powershell/")
_CLI = "errkb/"
_BOTS = ("bot", "slack", "feishu", "lark", "dingtalk")


def client_kind(user_agent: str | None) -> ClientKind:
    """What the User-Agent says the client is; ``api`` when it says nothing we know."""
    agent = (user_agent or "").lower()
    if agent.startswith(_CLI):
        return "cli"
    if agent.startswith(_COMMAND_LINE) or agent.startswith("wget"):
        return "curl"
    if any(word in agent for word in _BOTS):
        return "bot"
    return "api"


def answer_format(explicit: str | None, accept: str | None, kind: str) -> Format:
    """``?format=`` first; then Accept: text/plain over JSON; then the client kind."""
    for name in FORMATS:
        if explicit == name:
            return name
    text_q, json_q = _quality(accept, "text/plain"), _quality(accept, "application/json")
    if text_q > json_q:
        return "text"
    if json_q > text_q:
        return "json"
    return "text" if kind in ("curl", "cli") else "json"


def _quality(accept: str | None, media_type: str) -> float:
    """The q-value ``accept`` gives ``media_type`` exactly (wildcards count as no preference)."""
    for item in (accept or "").split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() == media_type:
            return _q(params)
    return 0.0


def _q(params: str) -> float:
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.strip() == "q":
            try:
                return max(0.0, min(1.0, float(value)))
            except ValueError:
                return 0.0
    return 1.0


def negotiate_lang(explicit: str | None, accept_language: str | None, default: str) -> str:
    """The ``lang`` field or parameter, then the best of Accept-Language, then ``default``."""
    if explicit in LANGS:
        return explicit
    best, best_q = default, 0.0
    for item in (accept_language or "").split(",")[:20]:
        tag, _, params = item.strip().partition(";")
        primary = tag.strip().lower().split("-", 1)[0]
        q = _q(params)
        if primary in LANGS and q > best_q:
            best, best_q = primary, q
    return best
