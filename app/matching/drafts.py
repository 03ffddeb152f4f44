"""What the extractors pass around before events are merged, ordered and built.

A ``View`` is one stream's lines (one rank, one pod, one NCCL process, or the
unprefixed rest), prefixes already removed; a ``Draft`` is one failure found
in it, with indices into that view. ``events.py`` turns drafts into the
frozen ``Event``s of ``events_model`` once ranks are merged and the root cause
is known.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.matching.events_model import EventKind, Frame

MESSAGE_LINES = 20  # continuation lines kept after an exception line (CUDA hints, C++ frames)


@dataclass(frozen=True, slots=True)
class View:
    """One stream: contents without prefixes, and which lines start a new log record."""

    lines: Sequence[str]
    record: Sequence[bool]

    def __len__(self) -> int:
        return len(self.lines)

    def starts_record(self, index: int) -> bool:
        """Whether line ``index`` carries a logger tag, so no message continues into it."""
        return bool(self.record[index]) if index < len(self.record) else False


@dataclass(slots=True)
class Draft:
    """One failure in one stream; ``start``..``end`` are inclusive indices into the view."""

    kind: EventKind
    exception: str | None
    message: str
    start: int
    end: int
    error_start: int
    error_end: int
    frames: tuple[Frame, ...] = ()
    consequence: bool = False
    chain: int | None = None  # chain ordinal inside the stream; None: a chain of its own
    depth: int = 0
    notes: list[str] = field(default_factory=list)
    ranks: tuple[int, ...] = ()  # ranks the text itself names (a torchelastic summary entry)
    pid: int | None = None  # the process the line is about ("Signal 6 ... received by PID 12")
    signal: str | None = None  # "SIGKILL", "SIGABRT", ...
    kills: tuple[int, ...] = ()  # pids a launcher says it is terminating
    quoted: bool = False  # found inside prose or Markdown: yields to errors printed as such
    survived: bool = False  # its process kept running for pages: not what ended the run
    explains: bool = False  # names what ran out (disk, memory, files): its symptoms come after
    printed: str | None = None  # the error line(s) as the program printed them, when unwrapped

    def shifted(self, offset: int) -> Draft:
        """The same draft with indices moved by ``offset`` (a sub-view back into its stream)."""
        self.start += offset
        self.end += offset
        self.error_start += offset
        self.error_end += offset
        return self
