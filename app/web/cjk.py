"""Chinese typesetting rules the pages need: where a line break or a space is no gap.

YAML and Markdown sources wrap long Chinese lines; a browser turns each break
into a space, which Chinese does not use between characters ("子组 原地").
A break is dropped when both sides are CJK characters or CJK punctuation;
everything else (English words, code) keeps its space.
"""

from __future__ import annotations

import re
from functools import cache

CJK_CLASS = (
    "\u2e80-\u2eff\u2f00-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u31c0-\u31ef"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
)
"""CJK ideographs, kana, bopomofo, CJK and full-width punctuation."""


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """One CJK character, a wrapped break and a space between two: compiled on first use.

    ``re`` takes tens of milliseconds over these classes, which the server's
    start-up paid at import before ``/readyz`` (issue 23); pages pay it once.
    """
    return (
        re.compile(f"[{CJK_CLASS}]"),
        re.compile(f"(?<=[{CJK_CLASS}])[ \\t]*\\n[ \\t]*(?=[{CJK_CLASS}])"),
        re.compile(f"(?<=[{CJK_CLASS}])[ \\t]+(?=[{CJK_CLASS}])"),
    )


def is_cjk(char: str) -> bool:
    """True for one CJK character or CJK punctuation mark."""
    return bool(char) and _patterns()[0].fullmatch(char) is not None


def join_wrapped(text: str) -> str:
    """``text`` with every line break between two CJK characters removed."""
    return _patterns()[1].sub("", text)


def break_is_gap(before: str, after: str) -> bool:
    """Whether a soft line break between ``before`` and ``after`` reads as a space."""
    return not (before and after and is_cjk(before[-1]) and is_cjk(after[0]))


def tighten(text: str, before: str, after: str) -> str:
    """``text`` between neighbours ``before`` and ``after`` without spaces that separate two
    CJK characters: inside it, and at its edges (``**标题。** 正文`` is written with a space
    only because Markdown emphasis needs one)."""
    text = _patterns()[2].sub("", text)
    core = text.strip(" \t")
    if not core:
        return "" if text and before and after and is_cjk(before[-1]) and is_cjk(after[0]) else text
    if before and is_cjk(before[-1]) and is_cjk(core[0]):
        text = text.lstrip(" \t")
    if after and is_cjk(after[0]) and is_cjk(core[-1]):
        text = text.rstrip(" \t")
    return text


def typeset(text: str) -> str:
    """Plain text (a title, a summary) as Chinese reads it: wrapped lines joined, no space
    between two CJK characters."""
    return tighten(join_wrapped(text), "", "")
