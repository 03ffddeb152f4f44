"""Keep a script's output bounded: its head and its tail, and how much was dropped (E5).

A repro that prints a gigabyte must not cost the worker a gigabyte. The head
keeps the versions and the first error; the tail keeps the root cause a
launcher prints last (torchrun's "Root Cause" block). Memory stays below
``head + 2 * tail`` whatever the script writes.
"""

from __future__ import annotations

import threading
from typing import IO

CHUNK = 64 * 1024


class HeadTail:
    """Bytes fed in order; ``head`` bytes from the start, ``tail`` bytes from the end."""

    def __init__(self, head: int, tail: int) -> None:
        self._head_limit, self._tail_limit = head, tail
        self._head = bytearray()
        self._tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if not chunk or self._tail_limit <= 0:
            return
        self._tail += chunk
        if len(self._tail) > 2 * self._tail_limit:  # trim rarely: amortised O(1) per byte
            del self._tail[: len(self._tail) - self._tail_limit]

    @property
    def dropped(self) -> int:
        return self.total - len(self._head) - min(len(self._tail), self._tail_limit)

    def value(self) -> bytes:
        """The kept bytes, with ``[truncated N bytes]`` where the middle was dropped."""
        tail = bytes(self._tail[-self._tail_limit :]) if self._tail_limit > 0 else b""
        if self.dropped <= 0:
            return bytes(self._head) + tail
        marker = f"\n[truncated {self.dropped} bytes]\n".encode()
        return bytes(self._head) + marker + tail


class Drain:
    """Read a pipe to its end on a thread into a ``HeadTail``, so the script never blocks."""

    def __init__(self, pipe: IO[bytes], buffer: HeadTail) -> None:
        self._pipe, self.buffer = pipe, buffer
        self._thread = threading.Thread(target=self._run, name="errkb-drain", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while chunk := self._pipe.read1(CHUNK):  # type: ignore[attr-defined]
                self.buffer.feed(chunk)
        except (OSError, ValueError):  # closed under us after a kill: what we have is kept
            return

    def finish(self, timeout: float) -> bool:
        """Wait for the end of the output; False when a writer still holds the pipe."""
        self._thread.join(timeout)
        return not self._thread.is_alive()
