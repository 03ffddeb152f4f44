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
the specialised one right.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from app.matching.events_model import Event
from app.matching.index import SignatureIndex
from app.matching.rank import Scored
from app.matching.result import Evidence

YIELD_MARGIN = 0.01  # how far below the general article a contextless specialised one lands
HINT_PATTERNS = 3  # context patterns quoted in the line that tells the articles apart
_ESCAPED = re.compile(r"\\(.)")


def general_first(found: Sequence[Scored], event: Event, index: SignatureIndex) -> list[Scored]:
    """``found`` with contextless specialised articles placed below the general one."""
    result = list(found)
    for position, item in enumerate(found):
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
    if not item.contextless or item.span is None:
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
    """``<article> instead if the log shows deepspeed/runtime/zero/stage3.py, ...``."""
    sids = index.articles[item.article_id].context_sids[:HINT_PATTERNS]
    shown = ", ".join(_ESCAPED.sub(r"\1", index.signatures[sid].pattern) for sid in sids)
    line = event.error_line_start
    text = f"{item.article_id} instead if the log shows {shown}"
    return Evidence("note", item.article_id, line, line, text)
