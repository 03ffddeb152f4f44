"""The end of a log: the part that holds the failure, bounded in memory.

A failed job's log can be gigabytes; its failure is at the end. A file is
read from ``size - tail_bytes``; a stream (stdin, a wrapped command's
output) is kept in a ring of whole lines no bigger than ``tail_bytes``.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from typing import BinaryIO

LINE_SEARCH_BYTES = 4096  # a cut tail starts after the first newline found this close


def read_file_tail(path: str, tail_bytes: int) -> tuple[bytes, int]:
    """The last ``tail_bytes`` of the file and the 1-based line number they start at.

    The start moves to the next line boundary when one is near, so the first
    line is whole; the line number lets annotations point into the file.
    """
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - tail_bytes)
        handle.seek(start)
        data = handle.read()
        if start > 0:
            newline = data.find(b"\n", 0, LINE_SEARCH_BYTES)
            if newline >= 0:
                data = data[newline + 1 :]
                start += newline + 1
        return data, 1 + _count_newlines(handle, start)


def _count_newlines(handle: BinaryIO, end: int) -> int:
    handle.seek(0)
    count, left = 0, end
    while left > 0:
        chunk = handle.read(min(left, 1 << 20))
        if not chunk:
            break
        count += chunk.count(b"\n")
        left -= len(chunk)
    return count


def read_stream_tail(stream: BinaryIO, tail_bytes: int) -> bytes:
    """The last ``tail_bytes`` of a stream read to its end, in bounded memory."""
    ring = TailRing(tail_bytes)
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        ring.add("stream", chunk)
    return ring.text()


class TailRing:
    """The last whole lines of one or more streams, at most ``limit`` bytes.

    Each source keeps its unfinished line apart, so stdout and stderr of a
    command never splice into one line; a line longer than the limit is cut
    to its end (a tqdm bar without newlines).
    """

    def __init__(self, limit: int) -> None:
        self._limit = max(1, limit)
        self._lines: deque[bytes] = deque()
        self._size = 0
        self._partial: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def add(self, source: str, chunk: bytes) -> None:
        with self._lock:
            data = self._partial.pop(source, b"") + chunk
            *whole, rest = data.split(b"\n")
            for line in whole:
                self._push(line + b"\n")
            if rest:
                self._partial[source] = rest[-self._limit :]

    def text(self) -> bytes:
        with self._lock:
            for source in list(self._partial):
                self._push(self._partial.pop(source) + b"\n")
            return b"".join(self._lines)[-self._limit :]

    def _push(self, line: bytes) -> None:
        self._lines.append(line)
        self._size += len(line)
        while self._size > self._limit and len(self._lines) > 1:
            self._size -= len(self._lines.popleft())
