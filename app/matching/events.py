"""Find the failures in a log and put the root cause first (DESIGN.md, step 3).

1. Every line's prefixes are parsed (``prefixes.py``), chat formatting is
   undone (``chat.py``), and the line goes to its stream: one per rank, pod
   or NCCL process, plus the unprefixed rest, so a rank's traceback is
   contiguous again however eight ranks interleaved.
2. One RE2 pass over the whole log picks the candidate lines, those holding
   a literal some extractor needs (a traceback header, a frame, "Error",
   "NCCL WARN", "Signal", ...; ``scan.py``); only those are parsed, in stream
   order, by the traceback parser (``tracebacks.py``) or the first matching
   line rule (``markers.py``).
3. Drafts are classified (``consequences.py``), survived ones marked
   (``survived.py``), then merged: the same failure
   printed by eight ranks, or echoed by torchrun, is one event with all
   ranks (identity: kind, exception, masked message, key frames).
4. Events are ordered: failures that are not consequences first; then the
   first in time (log position, or the timestamps when every event has one);
   inside a chain the original cause (depth 0) first. ``root_cause`` marks
   the first; at most ``MAX_EVENTS`` are kept.

The work is linear in the input: each line is prefix-parsed once, each
candidate parsed at most once, every forward scan is bounded.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.matching import consequences
from app.matching.chat import as_printed
from app.matching.drafts import Draft
from app.matching.events_model import Event
from app.matching.merge import Merged, Occurrence, Stream, merge, order
from app.matching.prefixes import PrefixParser
from app.matching.scan import candidate_lines, extract_stream
from app.matching.survived import mark_survived

MAX_EVENTS = 50  # the matcher scores each event: keep the earliest non-consequence ones
CONTEXT_LINES = 30  # launcher output, model loading and config lines live just before
MAX_TEXT_LINES = 400  # an event's text: head and tail of an overlong traceback
STAMPED_EVERYWHERE = 0.9  # share of stamped lines above which a collector stamped them all


@dataclass
class _Log:
    """The log split into streams, with each line's place."""

    streams: list[Stream] = field(default_factory=list)
    keys: dict[str | None, int] = field(default_factory=dict)


def extract_events(
    lines: Sequence[str],
    *,
    first_line_number: int = 1,
    line_numbers: Sequence[int] | None = None,
) -> list[Event]:
    """The failures in ``lines`` (decoded, no newlines), root cause first. Never raises."""
    log = _split(lines)
    problems: list[str] = []
    found: list[Occurrence] = []
    for stream_no, local in _candidates_by_stream(lines, log):
        stream = log.streams[stream_no]
        for chain_no, chain in enumerate(extract_stream(stream, local, problems)):
            found += [Occurrence(stream, (stream_no, chain_no), draft) for draft in chain]
    found.sort(key=lambda o: o.stream.index[o.draft.start])
    for occurrence in found:
        consequences.classify(occurrence.draft)
    consequences.link(o.draft for o in found)
    mark_survived(found)
    events = order(merge(found))[:MAX_EVENTS]

    def number(index: int) -> int:
        if line_numbers is not None and 0 <= index < len(line_numbers):
            return line_numbers[index]
        return first_line_number + index

    built = [_event(event, number, root=not i) for i, event in enumerate(events)]
    if built and problems:
        built[0] = dataclasses.replace(built[0], notes=built[0].notes + tuple(problems))
    return built


def _split(lines: Sequence[str]) -> _Log:
    """Parse every line's prefixes and deal the lines out to their streams."""
    log = _Log()
    keys, streams = log.keys, log.streams
    for index, prefix in enumerate(map(PrefixParser(), lines)):
        number = keys.get(prefix.stream)
        if number is None:
            number = keys[prefix.stream] = len(streams)
            streams.append(Stream(prefix.stream, prefix.rank))
        stream = streams[number]
        content = prefix.content
        if not content.isascii() or "](" in content:  # the C-speed test first: most lines
            content = as_printed(content)
        stream.lines.append(content)
        stream.index.append(index)
        stream.record.append(prefix.record)
        stream.stamps.append(prefix.timestamp)
        stream.stamped.append(prefix.stamped)
    for stream in streams:
        _mark_stamped_records(stream)
    return log


def _mark_stamped_records(stream: Stream) -> None:
    """Timestamps start records only where some lines lack them (a logger's, not kubectl's)."""
    stamped = sum(stream.stamped)
    if stamped and stamped < STAMPED_EVERYWHERE * len(stream.lines):
        stream.record = [r or s for r, s in zip(stream.record, stream.stamped, strict=True)]


def _candidates_by_stream(lines: Sequence[str], log: _Log) -> list[tuple[int, list[int]]]:
    """Candidate lines as (stream number, sorted local indices)."""
    wanted = set(candidate_lines(lines))
    grouped = []
    for stream_no, stream in enumerate(log.streams):
        local = [i for i, g in enumerate(stream.index) if g in wanted]
        if local:
            grouped.append((stream_no, local))
    return grouped


def _event(merged: Merged, number: Callable[[int], int], *, root: bool) -> Event:
    draft, stream = merged.draft, merged.first.stream
    where = stream.index
    notes = list(draft.notes)
    if merged.count > 1:
        notes.append(f"printed {merged.count} times")
    return Event(
        kind=draft.kind,
        exception=draft.exception,
        message=draft.message,
        frames=draft.frames,
        line_start=number(where[draft.start]),
        line_end=number(where[draft.end]),
        error_line_start=number(where[draft.error_start]),
        error_line_end=number(where[draft.error_end]),
        error_text=_error_text(draft, stream),
        text=_join(stream.lines[draft.start : draft.end + 1]),
        context=_join(stream.lines[_context_start(stream.lines, draft.start) : draft.start]),
        text_lines=_numbers(where[draft.start : draft.end + 1], number),
        context_lines=_numbers(
            where[_context_start(stream.lines, draft.start) : draft.start], number
        ),
        ranks=tuple(sorted(merged.ranks)),
        position=merged.position,
        consequence=merged.consequence,
        chain=merged.chain_id,
        chain_depth=draft.depth,
        root_cause=root,
        notes=tuple(notes),
        quoted=draft.quoted,
    )


def _context_start(lines: Sequence[str], start: int) -> int:
    """Where an event's context begins: ``CONTEXT_LINES`` lines before it, blank ones not counted.

    Notebooks and chat pastes space their output with blank lines; those carry
    nothing, so they do not use up the context (at most twice as many lines).
    """
    counted, at = 0, start
    while at > 0 and counted < CONTEXT_LINES and start - at < 2 * CONTEXT_LINES:
        at -= 1
        counted += bool(lines[at].strip())
    return at


def _error_text(draft: Draft, stream: Stream) -> str:
    """The error line(s) as printed: unwrapped from prose, or none for a cut-off traceback."""
    if draft.printed is not None:
        return draft.printed
    return _join(stream.lines[draft.error_start : draft.error_end + 1], strip=True)


def _numbers(indices: Sequence[int], number: Callable[[int], int]) -> tuple[int, ...]:
    """Pasted line numbers matching ``_join``'s lines; the elision marker gets 0."""
    values = [number(i) for i in indices]
    if len(values) > MAX_TEXT_LINES:
        head = MAX_TEXT_LINES // 4
        skipped = len(values) - MAX_TEXT_LINES
        values = [*values[:head], 0, *values[head + skipped :]]
    return tuple(values)


def _join(lines: Sequence[str], *, strip: bool = False) -> str:
    """Lines joined; an overlong span keeps its head and its tail (the error is at the end)."""
    if len(lines) > MAX_TEXT_LINES:
        head = MAX_TEXT_LINES // 4
        skipped = len(lines) - MAX_TEXT_LINES
        lines = [*lines[:head], f"[... {skipped} lines ...]", *lines[head + skipped :]]
    if strip:
        return "\n".join(line.strip() for line in lines)
    return "\n".join(lines)
