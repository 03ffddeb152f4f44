"""Article Markdown to HTML that is safe to put in a page (targets C11-C13).

Two walls: markdown-it-py's ``js-default`` preset with raw HTML off (a
``<script>`` in an article is shown as text), then nh3 (ammonia) with a short
allow-list of tags, attributes, classes and URL schemes, so a ``javascript:``
link or an ``onerror`` cannot survive even if the first wall had a hole.
A soft line break between two CJK characters renders as nothing
(``cjk.break_is_gap``): the source wraps Chinese lines, Chinese has no spaces.
Fenced code is highlighted here, on the server, by ``highlight.code_html``:
the page needs no script for colours, and the spans pass nh3's class list.
markdown-it is imported when the parser is first built (the service's warm-up
or the first page), not at import: ``errkb serve`` is ready sooner.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import nh3

from app.web.cjk import break_is_gap, tighten
from app.web.highlight import LANGUAGES, TOKEN_CLASSES, code_html

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

TAGS = {
    "p", "a", "em", "strong", "code", "pre", "span", "ul", "ol", "li", "blockquote",
    "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td", "hr", "br",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
CLASSES = {"span": set(TOKEN_CLASSES), "code": {f"language-{name}" for name in LANGUAGES}}
URL_SCHEMES = {"http", "https", "mailto"}


def _highlight(code: str, lang: str, _attrs: object) -> str:
    return code_html(code, lang)


def _side(tokens: list[Token], index: int, step: int) -> str:
    """The text next to the break at ``index``, looking back (-1) or ahead (+1)."""
    index += step
    while 0 <= index < len(tokens):
        token = tokens[index]
        if token.type in ("text", "code_inline") and token.content:
            return token.content
        if token.type in ("softbreak", "hardbreak"):
            return ""
        index += step
    return ""


def _softbreak(
    _renderer: object, tokens: list[Token], index: int, _options: OptionsDict, _env: EnvType
) -> str:
    if break_is_gap(_side(tokens, index, -1), _side(tokens, index, 1)):
        return "\n"
    return ""


MARKERS = ("_open", "_close")


def _neighbour(tokens: list[Token], index: int, step: int) -> str:
    """The visible text beside ``tokens[index]`` through emphasis and link markers; code
    reads as Latin (``x``) and a break as nothing."""
    index += step
    while 0 <= index < len(tokens):
        token = tokens[index]
        if token.type == "text":
            return token.content
        if token.type == "code_inline":
            return "x"
        if not token.type.endswith(MARKERS):
            return ""
        index += step
    return ""


def _tighten(state: StateCore) -> None:
    """Drop the spaces between two CJK characters in every inline run (see ``cjk.tighten``)."""
    for block in state.tokens:
        children = block.children or []
        for index, token in enumerate(children):
            if token.type == "text":
                before, after = _neighbour(children, index, -1), _neighbour(children, index, 1)
                token.content = tighten(token.content, before, after)


@cache
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    parser = MarkdownIt("js-default", {"html": False, "linkify": False, "typographer": False})
    parser.options["highlight"] = _highlight
    parser.add_render_rule("softbreak", _softbreak)
    parser.core.ruler.push("cjk_tighten", _tighten)
    return parser


def warm() -> None:
    """Import and build the parser now (the service's warm-up), not on the first page."""
    _parser()


def render_markdown(text: str) -> str:
    """Sanitised HTML for an article's Markdown field."""
    html = _parser().render(text)
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        allowed_classes=CLASSES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
