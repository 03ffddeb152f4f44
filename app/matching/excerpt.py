"""Cut a big log down to what can hold an error: windows around markers, plus the tail.

Decoding a 100 MB log costs ~145 ms and doubles its memory; the events live
in well under 1 % of it (performance note, sections 3.3 and 8). One pass of
literal markers over the raw bytes (Hyperscan; ``bytes.find`` without it)
finds where tracebacks and error lines start; only windows around them, the
first lines of the log (where versions are printed at start-up: pip freeze,
collect_env, DeepSpeed's banner) and its last lines are decoded, each with
its original line numbers.

Every window is bounded in bytes as well as in lines (issue 24, item 4): a
log whose first 17 MB are one line (tqdm bars joined by ``\r``, a run of
NULs) used to make the head window, the tail window and every window around
it that long, and the budget then dropped them all, the traceback after the
line included. Cut mid-line, a window starts inside the long line; decoding
keeps what follows its last ``\r``.
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
    b"]: segfault at ",  # the kernel's line for a process killed by SIGSEGV (dmesg)
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
BYTES_BEFORE = 256 << 10  # at most this much of the lines before a marker
BYTES_AFTER = 1 << 20  # and of the lines after it
HEAD_BYTES = 1 << 20
TAIL_BYTES = 4 << 20


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


def _back(data: bytes, offset: int, lines: int, limit: int) -> int:
    """Start of the line ``lines`` before ``offset``, but never more than ``limit`` bytes back."""
    floor = max(0, offset - limit)
    for _ in range(lines + 1):
        offset = data.rfind(b"\n", floor, offset)
        if offset == -1:
            return floor
    return offset + 1


def _forward(data: bytes, offset: int, lines: int, limit: int) -> int:
    """End of the line ``lines`` after ``offset``, but never more than ``limit`` bytes on."""
    ceiling = min(len(data), offset + limit)
    for _ in range(lines):
        offset = data.find(b"\n", offset, ceiling)
        if offset == -1:
            return ceiling
        offset += 1
    return offset


def windows(data: bytes) -> list[tuple[int, int]]:
    """Merged byte ranges (line-aligned) around the markers, plus the head and the tail."""
    spans: list[tuple[int, int]] = []
    for offset in marker_offsets(data):
        if spans and offset < spans[-1][1]:
            continue
        start = _back(data, offset, LINES_BEFORE, BYTES_BEFORE)
        end = _forward(data, offset, LINES_AFTER, BYTES_AFTER)
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    spans.append((0, _forward(data, 0, HEAD_LINES, HEAD_BYTES)))
    spans.append((_back(data, len(data), TAIL_LINES, TAIL_BYTES), len(data)))
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
    """Keep the earliest windows (the first failure) and the latest (the end), up to the budget.

    A window bigger than its half of the budget is cut, not dropped: merged
    windows along one long line would otherwise leave nothing at all.
    """
    if sum(end - start for start, end in spans) <= MAX_EXCERPT_BYTES:
        return spans
    head: list[tuple[int, int]] = []
    budget = MAX_EXCERPT_BYTES // 2
    for start, end in spans:
        take = min(end - start, budget)
        head.append((start, start + take))
        budget -= take
        if budget <= 0:
            break
    tail: list[tuple[int, int]] = []
    floor, budget = head[-1][1], MAX_EXCERPT_BYTES // 2
    for start, end in reversed(spans):
        start = max(start, floor)
        if end <= start or budget <= 0:
            break
        take = min(end - start, budget)
        tail.append((end - take, end))
        budget -= take
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
