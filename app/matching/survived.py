"""Failures the program survived: a traceback logged and continued is not the root cause.

A training script that logs an exception and goes on (a passing evaluation
phase, a retried download, ``logger.exception`` in a callback) prints a
whole traceback, then keeps training for pages before the failure that ends
the run. Time order alone would name the survived one (issue 18, root
cause). A failure is *survived* when its own stream printed at least
``SURVIVED_LINES`` more non-blank lines before the next failure of that
stream that is not a consequence: the process was clearly still running.
The last failure of a stream is never survived, and neither is a failure
followed only by consequences (a rank that died takes its peers down with
it, and their timeouts are not a recovery).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from app.matching.merge import Occurrence

SURVIVED_LINES = 20  # lines a process printed after a failure while it kept running


def mark_survived(found: Sequence[Occurrence]) -> None:
    """Set ``draft.survived`` on every draft of a chain its stream survived."""
    chains: dict[tuple[int, int], list[Occurrence]] = {}
    covered: dict[int, set[int]] = {}
    for occurrence in found:
        chains.setdefault(occurrence.chain, []).append(occurrence)
        draft = occurrence.draft
        covered.setdefault(occurrence.chain[0], set()).update(range(draft.start, draft.end + 1))
    by_stream: dict[int, list[list[Occurrence]]] = {}
    for key, members in chains.items():
        if not all(o.draft.consequence for o in members):
            by_stream.setdefault(key[0], []).append(members)
    for stream_no, members_list in by_stream.items():
        ordered = sorted(members_list, key=lambda m: min(o.draft.start for o in m))
        for chain, following in pairwise(ordered):
            if _kept_running(chain, following, covered[stream_no]):
                for occurrence in chain:
                    occurrence.draft.survived = True


def _kept_running(chain: list[Occurrence], following: list[Occurrence], covered: set[int]) -> bool:
    """Whether the stream printed enough lines of its own (no failure's) between the two."""
    stream = chain[0].stream
    end = max(o.draft.end for o in chain)
    start = min(o.draft.start for o in following)
    printed = 0
    for index in range(end + 1, start):
        printed += index not in covered and bool(stream.lines[index].strip())
        if printed >= SURVIVED_LINES:
            return True
    return False
