"""torchelastic's ChildFailedError summary: one wrapper event, and what it names.

torchrun ends a failed job with its own traceback whose exception line is
``torch.distributed.elastic.multiprocessing.errors.ChildFailedError:``
followed by a block (captured from torch 2.13 in tests/data/logs)::

    ============================================================
    train.py FAILED
    ------------------------------------------------------------
    Failures:
    [1]:
      time      : 2026-11-22_00:47:07
      host      : localhost
      rank      : 0 (local_rank: 0)
      exitcode  : -15 (pid: 12949)  (SIGTERM)
      error_file: <N/A>
      traceback : Signal 15 (SIGTERM) received by PID 12949
    ------------------------------------------------------------
    Root Cause (first observed failure):
    [0]:
      ...
      traceback : Traceback (most recent call last):     <- with @record
        File "/home/user/train.py", line 10, in build_optimizer
      KeyError: 'lr'
    ============================================================

The block is one CHILD_FAILED draft (always a consequence: a wrapper never
beats what it wraps) with the root-cause rank in a note. A traceback embedded
by ``@record`` is parsed as its own chain, attributed to its entry's rank: it
is often the only copy of the culprit's traceback when workers' output went to
files. A root cause that died by a signal becomes a SIGNAL draft, so a log
holding only this block still names "rank 3 was SIGKILLed".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.matching.drafts import Draft, View
from app.matching.events_model import EventKind, Frame
from app.matching.tracebacks import HEADER, ExceptionBuilder, scan_chain

MAX_BLOCK = 2000  # lines: 64 ranks with embedded tracebacks fit
MAX_EMBEDDED = 400  # lines one embedded traceback may span
SIGNALS = {1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE"}
SIGNALS |= {9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}

Chains = list[list[Draft]]


@dataclass
class _Entry:
    """One ``[N]:`` entry of the block."""

    root: bool
    fields: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)

    def number(self, key: str) -> int | None:
        token = self.fields.get(key, "").split(" ", 1)[0]
        return int(token) if token.lstrip("-").isdigit() else None

    @property
    def pid(self) -> int | None:
        value = self.fields.get("exitcode", "")
        start = value.find("(pid: ")
        token = value[start + 6 :].split(")", 1)[0] if start >= 0 else ""
        return int(token) if token.isdigit() else None


def parse_summary(
    view: View,
    index: int,
    name: str,
    start: int,
    frames: tuple[Frame, ...],
    build: ExceptionBuilder,
) -> tuple[Draft, Chains, int]:
    """The CHILD_FAILED draft for the exception line at ``index``, its extra chains, last line."""
    entries: list[_Entry] = []
    extra: Chains = []
    script, last = "", index
    rules, root, j = 0, False, index + 1
    while j < min(len(view), index + MAX_BLOCK) and rules < 2:
        text = view.lines[j].strip()
        if text.startswith("====="):
            rules += 1
        elif rules == 0 and text:
            break  # a bare ChildFailedError line, no block
        elif rules and view.starts_record(j):
            break  # the block was cut off: a new log record begins
        elif text.startswith("Root Cause"):
            root = True
        elif text.startswith("[") and text.endswith("]:"):
            entries.append(_Entry(root))
        elif text.endswith(" FAILED") and not script:
            script = text[: -len(" FAILED")]
        elif entries and ":" in text:
            j = _field(view, j, text, entries[-1], extra, build)
        last = j
        j += 1
    draft = Draft(EventKind.CHILD_FAILED, name, "", start, last, index, last, frames)
    draft.consequence = True
    _describe(draft, script, entries)
    extra += [[signal] for signal in _root_signals(entries)]
    return draft, extra, last


def _field(
    view: View, index: int, text: str, entry: _Entry, extra: Chains, build: ExceptionBuilder
) -> int:
    """Record one ``key : value`` line; an embedded traceback is scanned. Returns its last line."""
    key, _, value = text.partition(":")
    key, value = key.strip(), value.strip()
    entry.fields.setdefault(key, value)
    entry.lines.setdefault(key, index)
    if key != "traceback" or not value.startswith(HEADER):
        return index
    stop = min(len(view), index + MAX_EMBEDDED)
    sub = View([HEADER, *view.lines[index + 1 : stop]], [False, *view.record[index + 1 : stop]])
    chains, following = scan_chain(sub, 0, build)
    rank = entry.number("rank")
    for chain in chains:
        for draft in chain:
            draft.shifted(index)
            draft.ranks = (rank,) if rank is not None else ()
    extra += chains
    return index + max(following - 1, 0)


def _describe(draft: Draft, script: str, entries: list[_Entry]) -> None:
    """Message: the failed script and the root cause; notes: every failed rank."""
    lines = [f"{script} FAILED" if script else "child process failed"]
    for entry in entries:
        rank, code = entry.fields.get("rank", "?"), entry.fields.get("exitcode", "?")
        if entry.root:
            lines.append(f"root cause: rank {rank}, exitcode {code}")
            draft.notes.append(f"root-cause rank {entry.number('rank')} (first observed failure)")
            traceback = entry.fields.get("traceback", "")
            if traceback and not traceback.startswith("To enable traceback"):
                lines.append(f"traceback: {traceback}")
        else:
            draft.notes.append(f"also failed: rank {rank}, exitcode {code}")
    draft.message = "\n".join(lines)


def _root_signals(entries: list[_Entry]) -> list[Draft]:
    """A SIGNAL draft for each root-cause entry whose process died by a signal."""
    found = []
    for entry in entries:
        code = entry.number("exitcode")
        if not entry.root or code is None or code >= 0:
            continue
        line = entry.lines.get("traceback", entry.lines.get("exitcode", 0))
        said = entry.fields.get("traceback", "")
        message = said if said.startswith("Signal ") else f"exitcode {code} ({SIGNALS.get(-code)})"
        draft = Draft(EventKind.SIGNAL, None, message, line, line, line, line)
        rank = entry.number("rank")
        draft.ranks = (rank,) if rank is not None else ()
        draft.pid, draft.signal = entry.pid, SIGNALS.get(-code)
        found.append(draft)
    return found
