"""Cut a big log down to what can hold an error: windows around markers, plus the tail.

Decoding a 100 MB log costs ~145 ms and doubles its memory; the events live
in well under 1 % of it (performance note, sections 3.3 and 8). One pass of
literal markers over the raw bytes (Hyperscan; ``bytes.find`` without it)
finds where tracebacks and error lines start; only windows around them, the
first lines of the log (where versions are printed at start-up: pip freeze,
collect_env, DeepSpeed's banner) and its last lines are decoded, each with
its original line numbers.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from app.matching.decode import decode
from app.matching.scanners import ThreadScratch, hyperscan

MARKERS: tuple[bytes, ...] = (
    b"Traceback (most recent call last)",
    b"Error: ",
    b"Error:\n",
    b"Exception: ",
    b"CUDA error",
    b"NCCL WARN",
    b"ncclSystemError",
    b"ncclInternalError",
    b"Watchdog caught",
    b"terminate called",
    b"Killed process",
    b"out of memory",
    b"ChildFailedError",
    b"Segmentation fault",
    b"Bus error",
    b"SIGABRT",
    b"SIGSEGV",
    b"SIGKILL",
    b"exitcode",
)
LINES_BEFORE = 40  # launcher output and model set-up just before a traceback
LINES_AFTER = 250  # a deep traceback printed by several interleaved ranks
TAIL_LINES = 2000
HEAD_LINES = 500  # start-up output: the versions that ``affects`` ranges are checked against
MAX_MARKERS = 100_000  # a log that says "Error: " a million times is noise past this
MAX_EXCERPT_BYTES = 16 << 20


@cache
def _marker_database() -> tuple[Any, ThreadScratch]:
    database = hyperscan.Database()
    database.compile(
        expressions=[re.escape(marker) for marker in MARKERS],
        ids=list(range(len(MARKERS))),
        flags=[0] * len(MARKERS),
    )
    return database, ThreadScratch(database)


def marker_offsets(data: bytes) -> list[int]:
    """Offsets where a marker ends, in order; at most MAX_MARKERS of them."""
    if hyperscan is None:
        return sorted(_find_all(data))[:MAX_MARKERS]
    found: list[int] = []

    def on_match(sid: int, start: int, end: int, flags: int, context: object) -> bool:
        found.append(end)
        return len(found) >= MAX_MARKERS  # True stops the scan

    database, scratch = _marker_database()
    with contextlib.suppress(hyperscan.ScanTerminated):
        database.scan(data, match_event_handler=on_match, scratch=scratch.get())
    return sorted(found)


def _find_all(data: bytes) -> Iterable[int]:
    for marker in MARKERS:
        position = data.find(marker)
        while position != -1:
            yield position + len(marker)
            position = data.find(marker, position + 1)


def _back(data: bytes, offset: int, lines: int) -> int:
    for _ in range(lines + 1):
        offset = data.rfind(b"\n", 0, offset)
        if offset == -1:
            return 0
    return offset + 1


def _forward(data: bytes, offset: int, lines: int) -> int:
    for _ in range(lines):
        offset = data.find(b"\n", offset)
        if offset == -1:
            return len(data)
        offset += 1
    return offset


def windows(data: bytes) -> list[tuple[int, int]]:
    """Merged byte ranges (line-aligned) around the markers, plus the head and the tail."""
    spans: list[tuple[int, int]] = []
    for offset in marker_offsets(data):
        if spans and offset < spans[-1][1]:
            continue
        start, end = _back(data, offset, LINES_BEFORE), _forward(data, offset, LINES_AFTER)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    spans.append((0, _forward(data, 0, HEAD_LINES)))
    spans.append((_back(data, len(data), TAIL_LINES), len(data)))
    return _within_budget(_merge(spans))


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _within_budget(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Keep the earliest windows (the first failure) and the latest (the end), up to the budget."""
    if sum(end - start for start, end in spans) <= MAX_EXCERPT_BYTES:
        return spans
    head: list[tuple[int, int]] = []
    tail: list[tuple[int, int]] = []
    budget = MAX_EXCERPT_BYTES // 2
    for start, end in spans:
        if budget - (end - start) < 0:
            break
        head.append((start, end))
        budget -= end - start
    budget = MAX_EXCERPT_BYTES // 2
    for start, end in reversed(spans[len(head) :]):
        if budget - (end - start) < 0:
            break
        tail.append((start, end))
        budget -= end - start
    return head + tail[::-1]


def excerpt_lines(data: bytes) -> tuple[list[str], list[int], int]:
    """Decoded lines of the windows, each with its line number, and ``data``'s line count.

    An empty line separates windows so that no traceback is stitched across a gap.
    Newlines are counted once, window by window, for numbers and total alike.
    """
    lines: list[str] = []
    numbers: list[int] = []
    line, position = 1, 0
    for start, end in windows(data):
        line += data.count(b"\n", position, start)
        position = start
        decoded = decode(data[start:end], first_line=line)
        chunk = decoded.text.split("\n")
        if lines:
            lines.append("")
            numbers.append(line)
        lines.extend(chunk)
        numbers.extend(range(line, line + len(chunk)))
    total = line + data.count(b"\n", position)
    return lines, numbers, total
