"""Error lines that do not start their line: quoted in prose, Markdown or code (issue 18, shape 1).

People paste the error inside a sentence ("I get `RuntimeError: ...` with 2
GPUs", "训练时报错：ValueError: ..."), in quotes (ASCII or full-width), in
inline Markdown (backticks, ``**bold**``, ``_italic_``, ``###`` headings),
after a list bullet or a label (``stderr:``, ``Error:``, ``报错信息：``), or as
the constructor call that raised it (``raise ValueError("...")``). A line
rule (``markers.py``, tried after every rule for lines that start with their
error) finds the first exception name in such a line with one RE2 search and
reads its message up to the closer its opener implies (``OPENERS``), so the
prose after a closing backtick or quote stays out of the message.

The rule never fires on a line of IPython's source listing (``----> 5 raise
ValueError(...)`` is the code, not what it printed), nor on a line a logger
marked as a warning or an info record: an exception named in ``WARNING:
retrying after ConnectionError: ...`` was survived, and must not become a
failure of its own.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from app.matching import rx

_SUFFIXES = "Error|Exception|Exit|Interrupt|Failure|Fault|Failed|Timeout|Invalid"
# An exception name that does not continue a word, then ": " (ASCII or full-width)
# or a constructor's "(" and quote. RE2 finds the leftmost; every repeat is bounded.
_NAME = (
    r"(?:^|[^A-Za-z0-9.])(?P<name>(?:[A-Za-z_][A-Za-z0-9_]{0,60}\.){0,8}"
    rf"[A-Z][A-Za-z0-9_]{{0,60}}(?:{_SUFFIXES}))"
    r"(?:(?P<colon> ?[:：] ?)|\((?P<call>[\"'“]))"
)

# (opener before the name, closer that ends the message), tried in order: the
# character just before the exception name says how the quotation ends.
OPENERS: tuple[tuple[str, str], ...] = (
    ("`", "`"),  # inline code: `RuntimeError: ...` and the prose after it
    ('"', '"'),  # the log says "RuntimeError: ..."
    ("'", "'"),
    ("“", "”"),  # full-width quotes
    ("「", "」"),
    ("‘", "’"),
    ("*", "*"),  # **bold** and *italic*
    ("_", "_"),  # _italic_ and __bold__
)
# IPython's source listing around a frame ("----> 5 raise ValueError(...)", "   4 x = 1"):
# code that raises, not the error it printed.
_SOURCE_LISTING = re.compile(r"\s{0,12}(?:-{0,8}> {0,2})?\d{1,7} ")
# The constructor-call shape (issue 18, shape 1): a line that is nothing but ``raise
# ValueError("...")`` or ``ValueError('...')``, unindented (a traceback's source line is
# indented and belongs to its frame). Its quotes delimit the message exactly, so it may be
# compared by similarity alone like an error line printed as such (rank.py).
_WHOLE_CALL = re.compile(r"(?:raise )?(?:[A-Za-z_][A-Za-z0-9_]{0,60}\.){0,8}\w{1,80}\(.{0,4000}\)")
# A logger's level before the name: the exception was reported and survived.
_SURVIVED = ("INFO", "WARNING", "WARN", "DEBUG", "Warning:", "warning:", "UserWarning")


class Quoted(NamedTuple):
    """An exception line found inside other text."""

    name: str
    message: str
    closed: bool  # the quotation ended on this line: no continuation lines belong to it
    whole: bool = False  # the line is only the call ``raise X("msg")``: the message is exact


def find_quoted(text: str) -> Quoted | None:
    """The first exception line quoted inside ``text``; None if there is none."""
    found = rx.search(_NAME, text)
    if found is None:
        return None
    name = found["name"]
    start = found[""].find(name)
    before = found[""][:start]
    offset = text.find(found[""]) + start
    if survived(text[:offset]) or _SOURCE_LISTING.match(text):
        return None
    rest = text[offset + len(found[""]) - start :]
    if "call" in found:
        return _constructor(name, found["call"], rest, _WHOLE_CALL.fullmatch(text) is not None)
    opener = before[-1:] if before else text[offset - 1 : offset]
    return _closed(name, opener, rest)


def as_raised(line: str) -> str | None:
    """``raise KeyError("'qwen3'")`` as Python prints it (``KeyError: 'qwen3'``), or None.

    Shape "constructor call" (issue 18, shape 1): only a line that is nothing
    but the call (``_WHOLE_CALL``), so the lone-line rule (fragments.py) reads
    the exact message the call spells.
    """
    quoted = find_quoted(line)
    if quoted is None or not quoted.whole:
        return None
    return f"{quoted.name}: {quoted.message}"


def survived(before: str) -> bool:
    """Whether the text before an error names a logger level it is reported at and survived."""
    return any(level in before for level in _SURVIVED)


def _constructor(name: str, quote: str, rest: str, whole: bool) -> Quoted | None:
    """``ValueError("msg")``: the message ends at the matching quote before ``)``."""
    closer = "”" if quote == "“" else quote
    end = rest.rfind(closer + ")")
    if end < 0:
        end = rest.rfind(closer)
    if end < 0:
        return None
    return Quoted(name, rest[:end].strip(), True, whole and rest[end:].strip() == closer + ")")


def _closed(name: str, opener: str, rest: str) -> Quoted | None:
    """The message up to the closer its opener implies, or to the line's end."""
    for start, closer in OPENERS:
        if opener == start:
            end = _closing_backtick(rest) if closer == "`" else rest.rfind(closer)
            if end >= 0:
                return Quoted(name, rest[:end].rstrip(" *_").strip(), True)
            break
    return Quoted(name, rest.strip(), False)


def _closing_backtick(rest: str) -> int:
    """The backtick that closes the quotation: inner code (`` `chunks` ``) opens after a blank."""
    depth = 0
    for position, char in enumerate(rest):
        if char != "`":
            continue
        if position == 0 or rest[position - 1].isspace():
            depth += 1
        elif depth:
            depth -= 1
        else:
            return position
    return -1


class LoggedFailure(NamedTuple):
    """A tool's line that logs a failure it caught and ended on, its message inside."""

    name: str
    literal: str  # must occur in the line before the pattern is tried
    pattern: re.Pattern[str]  # the whole line; group "inner": the caught exception's message


# Tried in order. Each row is a line a tool prints when it catches an exception, gives
# up and exits, quoting only ``str(e)``: a level in front of it is the tool's way of
# printing its end, not a failure it survived, and the message inside is the error,
# without its exception class.
LOGGED_FAILURES: tuple[LoggedFailure, ...] = (
    # xtuner's CLI (xtuner/entry_point.py, cli()): any exception of the mode it ran is
    # logged through mmengine's print_log at WARNING, then the help text, then it returns.
    # mmengine's logger header "05/30 18:04:29 - mmengine - WARNING - " is optional.
    LoggedFailure(
        "xtuner command error",
        "WARNING: command error: '",
        re.compile(
            r"(?:\d\d/\d\d \d\d:\d\d:\d\d - [\w.]{1,80} - (?:WARNING|ERROR|INFO) - )?"
            r"WARNING: command error: '(?P<inner>.{1,2000})'!"
        ),
    ),
)


def logged_failure(text: str) -> str | None:
    """The message inside a line of ``LOGGED_FAILURES`` that ``text`` is, or None."""
    for row in LOGGED_FAILURES:
        found = row.pattern.fullmatch(text) if row.literal in text else None
        if found is not None:
            return found["inner"]
    return None
