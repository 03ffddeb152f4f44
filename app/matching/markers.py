"""Error lines outside tracebacks: one ordered table of line rules.

Each ``LineRule`` names the literals that must occur in a line before its
parser looks at it (``scan.py`` finds every literal in the whole log in one
RE2 pass, so lines without any are never parsed), and a parser that returns
drafts or None. ``LINE_RULES`` is tried in order and the first rule
that returns drafts wins; the order is commented where it matters.

Kinds follow ``events_model.EventKind``. Consequences that a single line
shows (a launcher terminating survivors, a wrapper exit code) are marked here;
the rest is ``consequences.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.matching import rx
from app.matching.drafts import Draft, View
from app.matching.events_model import EventKind, Frame
from app.matching.inline import find_quoted
from app.matching.summary import SIGNALS, parse_summary
from app.matching.tracebacks import STANDALONE_SUFFIXES, exception_head, read_message

Found = tuple[list[list[Draft]], int]  # chains of drafts, index of the last line they cover
FAULT_SCAN = 200  # lines after "Fatal Python error" searched for the faulthandler dump
_SIGNAL_NAMES = {
    "Segmentation fault": "SIGSEGV",
    "Bus error": "SIGBUS",
    "Aborted": "SIGABRT",
    "Floating point exception": "SIGFPE",
    "Illegal instruction": "SIGILL",
    "Killed": "SIGKILL",
    "Segfault": "SIGSEGV",  # the kernel's word, capitalised by ``_signal_name``
}


def build_exception(
    view: View, index: int, name: str, message: str, start: int, frames: tuple[Frame, ...]
) -> tuple[Draft, list[list[Draft]], int]:
    """The draft for an exception line, inside a traceback (start < index) or alone."""
    if name.endswith("ChildFailedError"):
        return parse_summary(view, index, name, start, frames, build_exception)
    lines, last, cut = read_message(view, index, message)
    kind = EventKind.TRACEBACK if frames or start != index else EventKind.ERROR_LINE
    draft = Draft(kind, name, "\n".join(lines), start, last, index, last, frames)
    if cut:
        draft.notes.append("message cut after its first continuation lines")
    return draft, [], last


def _single(index: int, kind: EventKind, text: str) -> Draft:
    return Draft(kind, None, text, index, index, index, index)


def _typed(view: View, index: int, text: str) -> Found | None:
    """``RuntimeError: CUDA error: ...`` at the start of a line, outside any traceback."""
    head = exception_head(text, standalone=True)
    if head is None:
        return None
    draft, chains, last = build_exception(view, index, head[0], head[1], index, ())
    return [[draft], *chains], last


def _quoted(view: View, index: int, text: str) -> Found | None:
    """``I get `RuntimeError: ...` with 2 GPUs``: an exception line inside other text."""
    quoted = find_quoted(text)
    if quoted is None:
        return None
    if quoted.closed:
        lines, last = [quoted.message], index
    else:
        lines, last, _cut = read_message(view, index, quoted.message)
    draft = Draft(EventKind.ERROR_LINE, quoted.name, "\n".join(lines), index, last, index, last)
    draft.quoted = not quoted.whole  # a whole-line constructor call delimits its message
    draft.printed = "\n".join([f"{quoted.name}: {lines[0]}", *lines[1:]])
    draft.notes.append("the error line was quoted inside other text")
    return [[draft]], last


def _terminate(view: View, index: int, text: str) -> Found | None:
    """``terminate called after throwing an instance of 'c10::DistBackendError'`` + what()."""
    text = text.strip()
    if not text.startswith("terminate called"):
        return None
    quoted = text.split("'")
    exception = quoted[1] if len(quoted) > 2 else None
    draft = _single(index, EventKind.TERMINATE, text)
    draft.exception = exception
    for j in range(index + 1, min(len(view), index + 3)):
        what = view.lines[j].strip()
        if what.startswith("what():"):
            lines, last, _cut = read_message(view, j, what[len("what():") :].strip())
            draft.message, draft.end, draft.error_end = "\n".join(lines), last, last
            break
    draft.signal = "SIGABRT"  # std::terminate aborts the process
    return [[draft]], draft.end


def _fatal_python(view: View, index: int, text: str) -> Found | None:
    """``Fatal Python error: Segmentation fault`` and faulthandler's dump of the crashing thread."""
    if not text.startswith("Fatal Python error:"):
        return None
    draft = _single(index, EventKind.SIGNAL, text)
    reason = text[len("Fatal Python error:") :].strip()
    draft.signal = _SIGNAL_NAMES.get(reason.split(":")[0].strip())
    frames, last = _fault_frames(view, index + 1)
    draft.frames, draft.end = tuple(reversed(frames)), max(last, index)
    return [[draft]], draft.end


_FAULT_FRAME = r'^File "(?P<path>[^"]*)", line (?P<line>\d+) in (?P<function>\S+)$'


def _fault_frames(view: View, index: int) -> tuple[list[Frame], int]:
    """Frames (most recent first) of faulthandler's "Current thread" block, and its last line.

    The dump follows the fatal line at once: thread headers, ``File "p", line 3 in f``
    frames, ``<no Python frame>`` and blank lines; anything else ends it.
    """
    frames: list[Frame] = []
    current, last = False, -1
    for k in range(index, min(len(view), index + FAULT_SCAN)):
        body = view.lines[k].strip()
        frame = rx.search(_FAULT_FRAME, body) if body.startswith('File "') else None
        if frame is not None:
            if current:
                frames.append(Frame(frame["path"], int(frame["line"]), frame["function"]))
        elif body.startswith(("Thread 0x", "Current thread 0x")):
            current = body.startswith("Current thread")
        elif body and body != "<no Python frame>":
            break
        if body:
            last = k
    return frames, last


def _nccl(view: View, index: int, text: str) -> Found | None:
    """``NCCL WARN ...``, ``ncclSystemError``, ProcessGroupNCCL watchdog timeouts."""
    pattern = (
        r"NCCL WARN|NCCL error|nccl[A-Z]\w*Error|Watchdog caught collective"
        r"|Timeout at NCCL work|NCCL operations have failed|NCCL communicator was aborted"
        r"|watchdog thread terminated|watchdog got stuck"
    )
    if "NCCL INFO" in text or not rx.found(pattern, text):
        return None
    return [[_single(index, EventKind.NCCL, text.strip())]], index


# (literal, pattern) for signal lines, tried in order; the literal must occur first.
# Groups: sig (a name), num (a number), code (an exit code), pid, kill (a pid being
# terminated), name (the shell's words for it).
_SIGNAL_LINES: tuple[tuple[str, str], ...] = (
    ("Signal ", r"Signal (?P<num>\d+) \((?P<sig>SIG\w+)\) received by PID (?P<pid>\d+)"),
    ("Sending process", r"Sending process (?P<kill>\d+) closing signal (?P<sig>SIG\w+)"),
    ("Killing subprocess", r"Killing subprocess (?P<kill>\d+)"),
    (
        "exitcode",
        r"failed \(exitcode: (?P<code>-?\d+)\)(?: local_rank: (?P<local>\d+))?"
        r"(?:.*?\(pid: (?P<pid>\d+)\))?",
    ),
    ("return code", r"exits with return code = (?P<code>-?\d+)"),
    ("<Signals.", r"died with <Signals\.(?P<sig>SIG\w+): (?P<num>\d+)>"),
    ("killed by signal", r"killed by signal: (?P<name>[A-Za-z ]+)"),
    ("bus error encountered", r"Unexpected (?P<name>bus error) encountered in worker"),
    ("received at time=", r"\*\*\* (?P<sig>SIG\w+) received at time="),
    ("death signal", r"Received (?P<num>\d+) death signal"),
    # the kernel's log (dmesg, journalctl -k) of a process that died of SIGSEGV:
    # ``python[3494041]: segfault at 34 ip 00007f.. sp 00007f.. error 4 in libX.so[...]``
    # (arch/x86/mm/fault.c show_signal_msg); its other fault lines (``traps: ... general
    # protection fault``, ``trap invalid opcode``) say another kind of death and are not read
    (
        "]: segfault at ",
        r"\[(?P<pid>\d+)\]: (?P<name>segfault) at [0-9a-f]+ ip [0-9a-f]+ sp [0-9a-f]+ error \d+",
    ),
    (
        "",
        r"(?:^|\s)(?P<name>Segmentation fault|Bus error|Aborted|Floating point exception"
        r"|Illegal instruction)(?: \(core dumped\))?(?:\s|$)",
    ),
)


def _signal(view: View, index: int, text: str) -> Found | None:
    """Processes dying by signals, and launchers reporting or sending them."""
    for literal, pattern in _SIGNAL_LINES:
        if literal in text:
            groups = rx.search(pattern, text)
            if groups is not None:
                return [[_signal_draft(index, text.strip(), groups)]], index
    return None


def _signal_draft(index: int, text: str, groups: dict[str, str]) -> Draft:
    draft = _single(index, EventKind.SIGNAL, text)
    code = int(groups["code"]) if "code" in groups else None
    number = int(groups["num"]) if "num" in groups else (-code if code and code < 0 else None)
    name = groups.get("name", "")
    draft.signal = groups.get("sig") or SIGNALS.get(number or 0) or _signal_name(name)
    draft.pid = int(groups["pid"]) if "pid" in groups else None
    draft.kills = (int(groups["kill"]),) if "kill" in groups else ()
    if "local" in groups:  # torchelastic names the local rank of the process that failed
        draft.notes.append(f"local_rank {groups['local']}")
    if code is not None and code >= 0:  # a launcher reporting a plain exit: a wrapper
        draft.kind, draft.consequence = EventKind.ERROR_LINE, True
    return draft


def _signal_name(name: str) -> str | None:
    return _SIGNAL_NAMES.get(name.strip().capitalize())


def _oom_killer(view: View, index: int, text: str) -> Found | None:
    """The kernel's OOM killer, and the shell's ``Killed`` for a SIGKILLed child."""
    pattern = (
        r"Out of memory: Kill|Killed process (?P<pid>\d+)|oom-kill:|invoked oom-killer"
        r"|Memory cgroup out of memory|oom_reaper: reaped|^(?:.*: line \d+: +\d+ )?Killed(?:\s|$)"
    )
    groups = rx.search(pattern, text.strip())
    if groups is None:
        return None
    draft = _single(index, EventKind.OOM_KILLER, text.strip())
    draft.signal = "SIGKILL"
    draft.pid = int(groups["pid"]) if "pid" in groups else None
    return [[draft]], index


def _cuda(view: View, index: int, text: str) -> Found | None:
    """``CUDA error: ...`` printed without an exception type (c10 logs, what() copies)."""
    if "CUDA error:" not in text and "CUDA out of memory" not in text:
        return None
    lines, last, _cut = read_message(view, index, text.strip())
    draft = Draft(EventKind.ERROR_LINE, None, "\n".join(lines), index, last, index, last)
    return [[draft]], last


def _slurm(view: View, index: int, text: str) -> Found | None:
    """``slurmstepd: error: *** JOB 1 ON n1 CANCELLED AT ... DUE TO TIME LIMIT ***``."""
    if "CANCELLED" in text:
        return [[_single(index, EventKind.SIGNAL, text.strip())]], index
    if not rx.found(r"srun: error: .*task \d+: Exited with exit code \d+", text):
        return None
    draft = _single(index, EventKind.ERROR_LINE, text.strip())
    draft.consequence = True
    return [[draft]], index


@dataclass(frozen=True)
class LineRule:
    """One kind of error line: literals that must occur, then a parser."""

    name: str
    literals: tuple[str, ...]
    parse: Callable[[View, int, str], Found | None]


LINE_RULES: tuple[LineRule, ...] = (
    # before "typed": what() and the fatal line carry their own typed text
    LineRule("terminate", ("terminate called",), _terminate),
    LineRule("fatal-python", ("Fatal Python error",), _fatal_python),
    # before the markers: "RuntimeError: CUDA error: ..." keeps its exception type
    LineRule(
        "typed",
        STANDALONE_SUFFIXES,
        _typed,
    ),
    # NCCL INFO lines (thousands with NCCL_DEBUG=INFO) carry none of these
    LineRule(
        "nccl",
        (
            *("NCCL WARN", "NCCL error", "NCCL operations", "NCCL work", "NCCL communicator"),
            *("ncclSystemError", "ncclInternalError", "ncclUnhandledCudaError", "ncclRemoteError"),
            *("ncclInvalidUsage", "ncclInvalidArgument", "Watchdog caught", "watchdog"),
        ),
        _nccl,
    ),
    LineRule(
        "signal",
        (
            *("Signal", "signal", "exitcode", "return code", "Killing", "SIG", "bus error"),
            *(
                "Bus error",
                "Segmentation fault",
                "Aborted",
                "Floating point",
                "Illegal instruction",
                "]: segfault at ",
            ),
        ),
        _signal,
    ),
    LineRule(
        "oom-killer",
        ("Out of memory", "Killed", "oom-kill", "oom_reaper", "out of memory"),
        _oom_killer,
    ),
    LineRule("cuda", ("CUDA error", "CUDA out of memory"), _cuda),
    LineRule("slurm", ("slurmstepd: error", "srun: error"), _slurm),
    # last: only a line no rule recognised at its start is searched for a quoted error
    LineRule(
        "quoted",
        STANDALONE_SUFFIXES,
        _quoted,
    ),
)


def match_line(view: View, index: int) -> Found | None:
    """Drafts for the line at ``index`` from the first rule that recognises it."""
    text = view.lines[index]
    for rule in LINE_RULES:
        if any(literal in text for literal in rule.literals):
            found = rule.parse(view, index, text)
            if found is not None:
                return found
    return None


def literals() -> tuple[str, ...]:
    """Every literal a rule needs: a line without any of them is never parsed."""
    return tuple(sorted({literal for rule in LINE_RULES for literal in rule.literals}))
