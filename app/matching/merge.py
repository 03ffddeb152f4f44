"""One event per failure, however many ranks printed it; then root cause first.

Eight ranks hitting the same bug print the same traceback eight times, with
different ranks, pids, ports and device indices; torchrun may echo one of
them once more. Their identity is the fingerprint of ``normalize.py`` (kind,
exception, masked message, innermost frames), so they merge into one event
that keeps its first occurrence's lines and lists every rank. Culprits and
victims never merge: "Signal 9 received by PID 12" killed by the kernel and
the same line for a PID the launcher killed stay two events.

Ordering (DESIGN.md step 3, research/field.md section 14):

1. failures that are not consequences before consequences (a victim or a
   wrapper never beats what caused it);
2. then by when their chain started: the log position of its first line, or
   its timestamp when every event carries one (per-rank files concatenated
   one after the other are only in time order by their stamps);
3. inside a chain, the original cause (depth 0) before what wrapped it.

Between 1 and 2, a failure its process survived (``survived.py``) yields to
the failures that ended the run; an error line quoted inside prose or Markdown (``inline.py``)
yields to errors printed as such: a chat message that quotes the error and
then pastes the log is answered from the log; then a failure that names what
the system ran out of (``consequences.EXPLANATIONS``: a full disk, host
memory, file descriptors, the OOM killer, SIGBUS) comes before its symptoms,
even when Python printed it as the outer exception of a chain.

A chain whose original cause is a consequence is a consequence throughout:
``RuntimeError("fetch failed")`` raised from a ``Connection reset by peer``
wraps a victim.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from app.matching.drafts import Draft
from app.matching.normalize import fingerprint_of, first_line, mask_message

MAX_DISTINCT = 5000  # distinct failures tracked; later new ones are dropped (earliest kept)


@dataclass
class Stream:
    """The lines of one rank, pod or process, with their places in the log."""

    key: str | None
    rank: int | None
    lines: list[str] = field(default_factory=list)  # content, prefixes removed
    index: list[int] = field(default_factory=list)  # index of each line in the input
    record: list[bool] = field(default_factory=list)  # starts a log record
    stamps: list[str | None] = field(default_factory=list)  # sortable timestamp, if any
    stamped: list[bool] = field(default_factory=list)  # carried a timestamp of any kind


@dataclass(frozen=True)
class Occurrence:
    """A draft where it was found: its stream and its chain (stream number, ordinal)."""

    stream: Stream
    chain: tuple[int, int]
    draft: Draft

    @property
    def position(self) -> int:
        return self.stream.index[self.draft.start]

    @property
    def stamp(self) -> str | None:
        return self.stream.stamps[self.draft.start]


@dataclass
class Merged:
    """One failure: its first occurrence and what the others add."""

    first: Occurrence
    ranks: set[int] = field(default_factory=set)
    consequence: bool = True
    stamp: str | None = None
    stamped: bool = True  # every occurrence had its own timestamp
    count: int = 0
    chain_id: int = 0
    position: int = 0
    chain_start: tuple[str, int] = ("", 0)

    def add(self, occurrence: Occurrence) -> None:
        draft = occurrence.draft
        if occurrence.stream.rank is not None:
            self.ranks.add(occurrence.stream.rank)
        self.ranks.update(draft.ranks)
        self.consequence = self.consequence and draft.consequence
        stamp = occurrence.stamp
        self.stamped = self.stamped and stamp is not None
        if stamp is not None and (self.stamp is None or stamp < self.stamp):
            self.stamp = stamp
        self.count += 1

    @property
    def draft(self) -> Draft:
        return self.first.draft

    def when(self, by_time: bool) -> tuple[str, int]:
        return ((self.stamp or "") if by_time else "", self.first.position)


def merge(found: Iterable[Occurrence]) -> list[Merged]:
    """Merge occurrences (in log order) that are the same failure."""
    merged: dict[str, Merged] = {}
    masks: dict[str, str] = {}
    for occurrence in found:
        key = _identity(occurrence.draft, masks)
        target = merged.get(key)
        if target is None:
            if len(merged) >= MAX_DISTINCT:
                continue
            target = merged[key] = Merged(occurrence)
        target.add(occurrence)
    return list(merged.values())


def _identity(draft: Draft, masks: dict[str, str]) -> str:
    line = first_line(draft.message)
    masked = masks.get(line)
    if masked is None:
        masked = masks[line] = mask_message(line)
    key = fingerprint_of(draft.kind.value, draft.exception, draft.message, draft.frames, masked)
    return f"{key}:{int(draft.consequence)}"


def order(events: list[Merged]) -> list[Merged]:
    """Root cause first (see the module docstring); sets positions and chain ids."""
    by_time = bool(events) and all(e.stamped for e in events)
    for position, event in enumerate(sorted(events, key=lambda e: e.when(by_time))):
        event.position = position
    chains: dict[tuple[int, int], list[Merged]] = {}
    for event in events:
        chains.setdefault(event.first.chain, []).append(event)
    starts = sorted(chains.values(), key=lambda c: min(e.when(by_time) for e in c))
    for chain_id, members in enumerate(starts):
        _settle_chain(members, chain_id, by_time)
    return sorted(
        events,
        key=lambda e: (
            e.consequence,
            e.draft.survived,
            e.draft.quoted,
            not e.draft.explains,
            e.chain_start,
            e.draft.depth,
            e.position,
        ),
    )


def _settle_chain(members: list[Merged], chain_id: int, by_time: bool) -> None:
    """Chain id and start for every member; a victim's wrappers are consequences too."""
    start = min(e.when(by_time) for e in members)
    wraps_victim = False
    for event in sorted(members, key=lambda e: e.draft.depth):
        wraps_victim = wraps_victim or event.consequence
        event.consequence = wraps_victim
        event.chain_id, event.chain_start = chain_id, start
