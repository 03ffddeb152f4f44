"""Python tracebacks and their chains, read from one stream's lines.

Python prints a chained failure cause first: the original exception's
traceback, then "The above exception was the direct cause of the following
exception:" (``raise ... from``) or "During handling of the above exception,
another exception occurred:", then the outer one. Each printed traceback
becomes one draft; the drafts of one chain share a chain ordinal and count
their depth from the first printed (0 = the original cause), so the matcher
can prefer the cause over a generic wrapper (research/field.md section 17.5).

Lines are judged by shape, not by absolute indentation: ``[rank1]: `` strips
one space, torchelastic's summary indents its embedded traceback by two, a
user's paste may be indented or flattened. What counts is that source lines
sit deeper than their ``File`` line and the exception line does not.
Everything here is plain string methods over single lines: linear, no regex.

IPython and Jupyter print the same traceback in their own shape (issue 18,
shape 3): a dashed rule, ``ValueError        Traceback (most recent call
last)`` without its colon, frames as ``File /p/x.py:553, in fn(*args)`` or
``Cell In[3], line 5`` and a numbered source listing with a ``---->`` arrow.
Rich (``rich.traceback``, used by accelerate, typer and many training CLIs)
draws a box: ``╭── Traceback (most recent call last) ──╮``, frames as
``│ /p/x.py:934 in fn │``, a listing with a ``❱`` arrow, ``╰──╯``, then the
exception line. ``is_header``, ``parse_frame`` and ``_is_frame_detail`` read
all three shapes, so a notebook's or a rich chain is one event with its
frames, as a terminal's is.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from app.matching.drafts import MESSAGE_LINES, Draft, View
from app.matching.events_model import EventKind, Frame

HEADER = "Traceback (most recent call last):"
GROUP_HEADER = "Exception Group Traceback (most recent call last):"
SEPARATORS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
MAX_JUNK = 3  # foreign lines tolerated inside one traceback (an unprefixed rank writing)
MAX_FRAMES = 200  # deeper tracebacks keep their innermost frames
STANDALONE_SUFFIXES = (
    "Error",
    "Exception",
    "Exit",
    "Interrupt",
    "Failure",
    "Fault",
    "Failed",
    "Timeout",
    "Invalid",  # pyarrow.lib.ArrowInvalid, the error of datasets.map
)
IPYTHON_HEADER_TAIL = "Traceback (most recent call last)"
RICH_SIDE = "│"
RICH_BOX_TOP = "╭─"
RICH_BOX_SIDES = "│╰"
_LOG_LEVELS = ("INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL", "FATAL", "NOTICE")
# A message never continues into a line that starts another event.
_RECORD_STARTS = (
    HEADER,
    *SEPARATORS,
    'File "',
    "terminate called",
    "Fatal Python error",
    "Sending process",
    "[Previous line repeated",
    "Signal ",
    "Killed",
    "+-",
)
_EVENT_WORDS = (
    "NCCL WARN",
    "CUDA error:",
    "died with <Signals",
    "killed by signal",
    "(core dumped)",
    "Out of memory: Kill",
    "oom-kill",
    "failed (exitcode",
    "exits with return code",
    "Killing subprocess",
    "Traceback (most recent call last)",
)

# Builds the draft for an exception line: (view, line index, name, message, first
# line of the event, frames) -> (draft, chains found inside it, its last line).
ExceptionBuilder = Callable[
    [View, int, str, str, int, tuple[Frame, ...]], tuple[Draft, list[list[Draft]], int]
]


def is_header(text: str) -> bool:
    """``Traceback (most recent call last):``, the exception-group form, or IPython's."""
    stripped = text.strip()
    if stripped.startswith(HEADER) or stripped.lstrip("+ ").startswith(GROUP_HEADER):
        return True
    if stripped[:1] in RICH_BOX_TOP and IPYTHON_HEADER_TAIL in stripped:
        return True
    return _ipython_header(stripped)


def _ipython_header(stripped: str) -> bool:
    """``KeyError                      Traceback (most recent call last)``."""
    name, _, rest = stripped.partition(" ")
    return (
        rest.strip() == IPYTHON_HEADER_TAIL
        and rest.startswith("  ")
        and bool(name)
        and _is_dotted_identifier(name)
    )


def parse_frame(line: str) -> tuple[int, Frame] | None:
    """``  File "p", line 3, in f`` -> (indent, Frame); faulthandler's ``line 3 in f`` is not.

    IPython's ``File /p/x.py:553, in f(*args)`` and ``Cell In[3], line 5`` are frames too.
    """
    body = line.lstrip()
    if not body.startswith('File "'):
        frame = _rich_frame(body) if body.startswith(RICH_SIDE) else _ipython_frame(body)
        return None if frame is None else (len(line) - len(body), frame)
    close = body.find('", line ', 6)
    if close < 0:
        return None
    path = body[6:close]
    number, _, rest = body[close + 8 :].partition(",")
    if not number.isdigit() or (rest and not rest.startswith(" in ")):
        return None
    function = rest[4:].strip() if rest else ""  # SyntaxError frames name no function
    return len(line) - len(body), Frame(path, int(number), function)


def _rich_frame(body: str) -> Frame | None:
    """Rich's frame line: ``│ /p/x.py:934 in fn │`` (a long path may push ``fn`` below)."""
    inner = body.strip(RICH_SIDE + " ")
    if RICH_SIDE in inner:  # a listing line: "│   934 │   │   assert ..."
        return None
    where, sep, function = inner.rpartition(" in")
    if not sep:  # "in fn" wrapped onto the next line of the box
        where, function = inner, ""
    path, colon, number = where.rpartition(":")
    if not colon or not number.isdigit() or " " in path or not _a_path(path):
        return None
    name = function.strip()
    return (
        Frame(path, int(number), name)
        if not name or name.isidentifier() or name[:1] == "<"
        else None
    )


def _a_path(text: str) -> bool:
    return "/" in text or "\\" in text


def _ipython_frame(body: str) -> Frame | None:
    """IPython 8's frame lines: ``File /p/x.py:553, in f(*args)``, ``Cell In[3], line 5``."""
    if body.startswith("Cell In["):
        cell, sep, rest = body.partition("], line ")
        number, _, function = rest.partition(", in ")
        if not sep or not number.isdigit():
            return None
        return Frame(cell + "]", int(number), function.partition("(")[0] or "<module>")
    if not body.startswith("File ") or ", in " not in body:
        return None
    where, _, function = body[5:].partition(", in ")
    path, colon, number = where.rpartition(":")
    if not colon or not number.isdigit() or not path or " " in path:
        return None
    name = function.partition("(")[0]
    return Frame(path, int(number), name) if name.isidentifier() or name.startswith("<") else None


def exception_head(text: str, *, standalone: bool) -> tuple[str, str] | None:
    """(name, message) when ``text`` is an exception line ``pkg.Type: message``.

    Inside a traceback any dotted name counts (``socket.gaierror``, a bare
    ``AssertionError``). Standalone lines need a colon and a name ending in
    Error/Exception/...: ``INFO: x``, ``Error: x`` and ``UserWarning: x`` are
    log lines and warnings, not failures.
    """
    colon = text.find(":")
    name = text if colon < 0 else text[:colon]
    if not 0 < len(name) <= 160:
        return None
    outer = wrapper_of(name)
    if outer is None and not _is_dotted_identifier(name):
        return None
    last = (outer or name).rsplit(".", 1)[-1]
    if standalone:
        if colon < 0 or not last[:1].isupper() or last.isupper():
            return None
        if not last.endswith(STANDALONE_SUFFIXES) or last in STANDALONE_SUFFIXES:
            return None
    elif not (last[:1].isupper() or "." in name):
        return None
    return name, "" if colon < 0 else text[colon + 1 :].strip()


def wrapper_of(name: str) -> str | None:
    """``ray.exceptions.RayTaskError`` of ``ray.exceptions.RayTaskError(CheckpointError)``.

    Ray prints the error a remote task raised as its own class with the
    cause's class in parentheses, then the cause's traceback (issue 18). Both
    names must be dotted identifiers, the cause's last part capitalised.
    """
    if not name.endswith(")"):
        return None
    outer, _, inner = name[:-1].partition("(")
    if not outer or not inner or not _is_dotted_identifier(outer):
        return None
    if not _is_dotted_identifier(inner) or not inner.rsplit(".", 1)[-1][:1].isupper():
        return None
    return outer


def _is_dotted_identifier(name: str) -> bool:
    if not (name[0].isalpha() or name[0] == "_") or name.endswith(".") or ".." in name:
        return False
    return name.replace(".", "").replace("_", "a").isalnum()


def breaks_message(text: str) -> bool:
    """Whether ``text`` cannot continue an exception message: it starts something new."""
    stripped = text.strip()
    if not stripped or stripped.startswith(_RECORD_STARTS) or "%|" in stripped:
        return True
    if any(word in stripped for word in _EVENT_WORDS):
        return True
    head = stripped.lstrip("[")
    for level in _LOG_LEVELS:
        if head.startswith(level) and not head[len(level) : len(level) + 1].isalnum():
            return True
    return exception_head(stripped, standalone=True) is not None


_CJK_CLASS = r"[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]"
"""CJK characters and full-width punctuation: the script of a user's sentence, not a library's."""


@cache
def _cjk() -> re.Pattern[str]:
    """``_CJK_CLASS`` compiled on first use: 7 ms of ``re``'s compile an ASCII log never needs."""
    return re.compile(_CJK_CLASS)


def _has_cjk(text: str) -> bool:
    return not text.isascii() and _cjk().search(text) is not None


def user_sentence_after(message: list[str], line: str) -> bool:
    """Whether ``line`` is a user's own sentence after a message printed without CJK text.

    Issue 18, shape 4 ("continuation lines alone"): a paste often goes on
    after the error line with the user's words (``学习率 2e-4，warmup 0。``).
    The libraries' messages are English; a line in another script after one
    that has none is the user writing, not the message going on.
    """
    return _has_cjk(line) and not any(_has_cjk(part) for part in message)


def read_message(view: View, index: int, first: str) -> tuple[list[str], int, bool]:
    """The message of the exception line at ``index``: (lines, last index, cut short)."""
    lines = [first]
    last = index
    for j in range(index + 1, min(len(view), index + 1 + MESSAGE_LINES)):
        if view.starts_record(j) or breaks_message(view.lines[j]):
            return lines, last, False
        if user_sentence_after(lines, view.lines[j]):
            return lines, last, False
        lines.append(view.lines[j].strip())
        last = j
    cut = last + 1 < len(view) and not breaks_message(view.lines[last + 1])
    return lines, last, cut and last - index >= MESSAGE_LINES


def scan_chain(
    view: View, index: int, build: ExceptionBuilder, *, headless: bool = False
) -> tuple[list[list[Draft]], int]:
    """The traceback at ``index`` and those chained after it: (chains, next index).

    The first chain is this one, cause first; any further chains were found
    inside it (a traceback embedded in torchelastic's summary).
    """
    chain: list[Draft] = []
    extra: list[list[Draft]] = []
    while True:
        draft, inner, end = _scan_one(view, index, build, headless=headless)
        extra += inner
        if draft is None:
            return [c for c in (chain, *extra) if c], end + 1
        draft.depth = len(chain)
        chain.append(draft)
        following = _chained_header(view, end + 1)
        if following is None:
            return [chain, *extra], end + 1
        index, headless = following, False


def _chained_header(view: View, index: int) -> int | None:
    j = _skip_blank(view, index)
    if j >= len(view) or view.lines[j].strip() not in SEPARATORS:
        return None
    j = _skip_blank(view, j + 1)
    return j if j < len(view) and is_header(view.lines[j]) else None


def _skip_blank(view: View, index: int, limit: int = 2) -> int:
    """Past blank lines and IPython's dashed rule before its header."""
    j = index
    while j < len(view) and j - index < limit and not view.lines[j].strip().strip("-"):
        j += 1
    return j


def _scan_one(
    view: View, index: int, build: ExceptionBuilder, *, headless: bool
) -> tuple[Draft | None, list[list[Draft]], int]:
    """One traceback: frames up to the exception line. (draft, inner chains, last index)."""
    if not headless and view.lines[index].strip().lstrip("+ ").startswith(GROUP_HEADER):
        return _group_draft(index), [], index
    frames: list[Frame] = []
    frame_indent: int | None = None
    last, junk = index, 0
    j = index if headless else index + 1
    while j < len(view) and junk <= MAX_JUNK:
        line = view.lines[j]
        frame = parse_frame(line)
        if frame is not None:
            frame_indent, last, junk = frame[0], j, 0
            frames.append(frame[1])
        elif _is_frame_detail(line, frame_indent):
            last = j
        elif (head := _exception_here(line, frame_indent)) is not None:
            return build(view, j, head[0], head[1], index, tuple(frames[-MAX_FRAMES:]))
        elif is_header(line):
            break
        else:
            junk += 1
        j += 1
    if headless:
        return None, [], last
    return _unfinished(index, last, frames), [], last


def _is_frame_detail(line: str, frame_indent: int | None) -> bool:
    """Source lines, ``^^^^`` markers and ``[Previous line repeated N more times]``."""
    if frame_indent is None:
        return False
    stripped = line.strip()
    if stripped.startswith("[Previous line repeated") or _ipython_arrow(stripped):
        return True
    if stripped[:1] in RICH_BOX_SIDES:  # rich's listing, its wrapped names, its bottom edge
        return True
    return bool(stripped) and len(line) - len(line.lstrip()) > frame_indent


def _ipython_arrow(stripped: str) -> bool:
    """IPython's pointer into its source listing: ``----> 553 raise OSError(``."""
    arrow = stripped.lstrip("-")
    return len(arrow) < len(stripped) and arrow.startswith(">") and arrow[1:].lstrip()[:1].isdigit()


def _exception_here(line: str, frame_indent: int | None) -> tuple[str, str] | None:
    indent = len(line) - len(line.lstrip())
    if frame_indent is not None and indent > frame_indent:
        return None
    if "%|" in line:  # another rank's progress bar ("Map: 100%|██| 2/2") between frame lines
        return None
    return exception_head(line.strip(), standalone=False)


def _unfinished(index: int, last: int, frames: list[Frame]) -> Draft:
    draft = Draft(
        EventKind.TRACEBACK, None, "", index, last, last, last, tuple(frames[-MAX_FRAMES:])
    )
    draft.notes.append("traceback without an exception line (cut off or interleaved)")
    draft.printed = ""  # no error line: a source line's comment is not the error (issue 18)
    return draft


def _group_draft(index: int) -> Draft:
    draft = Draft(EventKind.TRACEBACK, "ExceptionGroup", "", index, index, index, index)
    draft.notes.append("exception group: sub-exceptions are not parsed")
    return draft
