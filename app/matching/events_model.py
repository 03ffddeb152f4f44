"""The shapes the event extractor hands to the matcher.

An *event* is one failure found in a log: a Python traceback (with the chain
it belongs to), a standalone error line, an NCCL warning, a signal, the OOM
killer, torchrun's ChildFailedError summary. The same traceback printed by
eight ranks is one event with eight ranks. Line numbers always refer to the
text the user pasted (1-based), so evidence can be highlighted there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class EventKind(StrEnum):
    TRACEBACK = "traceback"  # a Python traceback ending in "<Type>: <message>"
    ERROR_LINE = "error-line"  # "<Type>: <message>" or "CUDA error: ..." without a traceback
    NCCL = "nccl"  # "NCCL WARN ...", NCCL/ProcessGroupNCCL errors and watchdog timeouts
    TERMINATE = "terminate"  # "terminate called after throwing an instance of ..."
    SIGNAL = "signal"  # "Signal 6 (SIGABRT) received by PID", "died with <Signals.SIGKILL: 9>"
    OOM_KILLER = "oom-killer"  # "Out of memory: Killed process ...", "Killed" by the kernel
    CHILD_FAILED = "child-failed"  # torchelastic's ChildFailedError summary and Root Cause


@dataclass(frozen=True)
class Frame:
    """One ``File "path", line N, in function`` frame."""

    path: str
    lineno: int | None
    function: str


@dataclass(frozen=True)
class Event:
    """One failure in the log, with where it stands and whether it is only a consequence."""

    kind: EventKind
    exception: str | None  # "RuntimeError", "torch.OutOfMemoryError"; None when untyped
    message: str  # the error message; continuation lines joined with "\n"
    frames: tuple[Frame, ...] = ()  # outermost first, as Python prints them
    line_start: int = 0  # first line of the event in the pasted text (first rank seen)
    line_end: int = 0  # last line of the event
    error_line_start: int = 0  # the "<Type>: <message>" line(s): where error signatures must hit
    error_line_end: int = 0
    error_text: str = ""  # the printed error line(s), prefixes stripped: error signatures hit here
    text: str = ""  # the event's own lines, rank prefixes and timestamps stripped
    context: str = ""  # lines just before the event in the same rank's stream
    text_lines: tuple[int, ...] = ()  # pasted line number of each line of ``text`` (0: elided)
    context_lines: tuple[int, ...] = ()  # the same for ``context``
    ranks: tuple[int, ...] = ()  # ranks that printed it; () when the log has no rank prefixes
    position: int = 0  # order of first appearance in the log (time order)
    consequence: bool = False  # a victim: NCCL timeout, SIGTERM/SIGKILL, wrapper error
    chain: int = 0  # id of the exception chain the traceback belongs to
    chain_depth: int = 0  # 0 = the innermost (original) cause of its chain
    root_cause: bool = False  # set on the event ordered first
    notes: tuple[str, ...] = field(default=())  # what the extractor could not parse, etc.
    quoted: bool = False  # read from inside prose or Markdown (inline.py): no fuzzy-only match
