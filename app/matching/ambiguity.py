"""Same message, several causes: the general article first, and what would tell them apart.

Several articles may recognise one message: a bare "found at least two
devices, cuda:0 and cpu" is user code that forgot a ``.to(device)`` far more
often than DeepSpeed's CPU offload, which prints the same words. The
specialised article's error pattern covers more of the message (it names the
``cpu`` device), so on the message alone it would score higher, yet nothing in
the paste shows its cause. Rule (issue 18): a specialised article earns the
top place only with its context signatures. When its error span contains a
more general article's span and none of its context was found, it is placed
just below that general article, and the general match says what would make
the specialised one right. When its context was found, the general article
is placed just below it: the general one's own context often sits on the
shared error line itself (``Timeout(ms)=`` in an NCCL watchdog line), so on
scores alone the specialised article could never earn the place its context
proves.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from app.matching.events_model import Event
from app.matching.index import SignatureIndex
from app.matching.rank import DEFAULT_THRESHOLD, Scored
from app.matching.result import Evidence

YIELD_MARGIN = 0.01  # how far below the other article the one that yields lands
LEAD_MARGIN = 0.06  # how far a specialised article with its context leads the general one:
# clearly, beyond errkb lint's 0.05 "cannot be told apart"
HINT_PATTERNS = 3  # context patterns quoted in the line that tells the articles apart
_ESCAPED = re.compile(r"\\(.)")
_SYNTAX = re.compile(r"[][(){}|*+?^$.]")  # what is left of a regex once its escapes are gone
_CONTEXT_KINDS = frozenset(("context", "log-context"))


def general_first(found: Sequence[Scored], event: Event, index: SignatureIndex) -> list[Scored]:
    """``found`` with each specialised article just below or above the general one.

    Below when none of its context was found; above when some was, by lowering
    the general article's score (the specialised one keeps its own score, caps
    and confidence included).
    """
    result = list(found)
    for position, item in enumerate(found):
        at = _specialised_over(position, found)
        if at is not None and result[at].score > result[position].score - LEAD_MARGIN:
            kept = min(result[at].score, DEFAULT_THRESHOLD)  # still shown, second
            lowered = max(result[position].score - LEAD_MARGIN, kept)
            result[at] = dataclasses.replace(result[at], score=lowered)
        at = _general_for(position, found)
        if at is None:
            continue
        general = result[at]
        result[at] = dataclasses.replace(
            general, evidence=(*general.evidence, _hint(item, event, index))
        )
        if result[position].score >= general.score:
            lowered = max(0.0, general.score - YIELD_MARGIN)
            result[position] = dataclasses.replace(result[position], score=lowered)
    return result


def _general_for(position: int, found: Sequence[Scored]) -> int | None:
    """Where the best article is whose error span ``found[position]``'s strictly contains.

    Only for an article that has context patterns and found none of them.
    """
    item = found[position]
    if not item.contextless:
        return None
    return _best_inside(position, found)


def _specialised_over(position: int, found: Sequence[Scored]) -> int | None:
    """Like ``_general_for``, for an article whose context patterns were found."""
    item = found[position]
    if item.contextless or not any(e.kind in _CONTEXT_KINDS for e in item.evidence):
        return None
    return _best_inside(position, found)


def _best_inside(position: int, found: Sequence[Scored]) -> int | None:
    item = found[position]
    if item.span is None:
        return None
    start, end = item.span
    inside = [
        (other.score, other.article_id, at)
        for at, other in enumerate(found)
        if at != position
        and other.span is not None
        and start <= other.span[0]
        and other.span[1] <= end
        and other.span != item.span
    ]
    return max(inside)[2] if inside else None


def _hint(item: Scored, event: Event, index: SignatureIndex) -> Evidence:
    """``<article> instead if the log shows deepspeed/runtime/zero/stage3.py, ...``.

    The context patterns that read as text once unescaped come first (``hf_device_map``,
    not ``device_map\\s{0,3}=...``, which a reader cannot use), in the article's order.
    """
    sids = index.articles[item.article_id].context_sids
    patterns = [index.signatures[sid].pattern for sid in sids]
    readable = [p for p in patterns if not _SYNTAX.search(_ESCAPED.sub("", p))]
    chosen = (readable + [p for p in patterns if p not in readable])[:HINT_PATTERNS]
    shown = ", ".join(_ESCAPED.sub(r"\1", pattern) for pattern in chosen)
    line = event.error_line_start
    text = f"{item.article_id} instead if the log shows {shown}"
    return Evidence("note", item.article_id, line, line, text)
