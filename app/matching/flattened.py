"""A log whose newlines were stripped on the way in (``curl -d @train.log``).

``curl -d`` (``--data``) sends a file as a form value and drops its CR and LF
bytes, so a traceback arrives as one long line ("...line 5, in main
loss.backward()RuntimeError: ..."): the events and their frames are gone and a
matcher could name a wrong article with confidence. The HTTP edge recognises
the case (a form-encoded body without one newline) and asks :func:`unflatten`
to put the lines that Python and the launchers print back where they began,
so the answer is as good as it can be, and tells the user to send
``--data-binary`` next time (issue 20, item 6). Pure: bytes in, bytes out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

MIN_BYTES = 80  # shorter bodies are one line anyway: nothing to restore
_STARTS = re.compile(
    rb"(?=Traceback \(most recent call last\):)"
    rb"|(?=  File \")"
    rb"|(?=During handling of the above exception)"
    rb"|(?=The above exception was the direct cause)"
    rb"|(?=\[(?:rank|default)\d{1,5}\]:)"
    rb"|(?<=[0-9)\]}'\"])(?=[A-Z][A-Za-z0-9_]{0,80}(?:Error|Exception|Interrupt|Exit): )"
    rb"|(?<=[)\]}'\"])(?=[a-z_][A-Za-z0-9_.]{0,80}\.[A-Z][A-Za-z0-9_]{0,80}(?:Error|Exception): )"
)
_RAISE = re.compile(
    rb"(raise [a-z_][a-z0-9_]{0,40}?)"
    rb"(?=[A-Z][A-Za-z0-9_]{0,80}(?:Error|Exception|Interrupt|Exit): )"
)
"""``raise exc`` glued to the exception it raised: lower-case name, then the class."""
_SOURCE = re.compile(rb"(, in [A-Za-z0-9_<>.]{1,120})( {2,})(?=\S)")
"""A frame's source line, still indented, glued to ``File "...", line N, in fn``."""
"""Where a line began, in the order Python prints them: each rule is one kind of line.

The traceback header, a frame, the two chain sentences, a rank prefix, and an
exception line glued to the source line above it (``backward()RuntimeError:``,
``step()torch.OutOfMemoryError:``; ``raise excValueError:`` is ``_RAISE``'s).
"""


def looks_flattened(data: bytes) -> bool:
    """No newline at all in a body long enough to be a log, with a traceback's marks in it."""
    if len(data) < MIN_BYTES or b"\n" in data or b"\r" in data:
        return False
    return b"Traceback (most recent call last):" in data or b'  File "' in data


def unflatten(data: bytes) -> bytes:
    """The lines put back where Python and the launchers began them (see the module docstring)."""
    lines = _RAISE.sub(rb"\1\n", _STARTS.sub(b"\n", data))
    return _SOURCE.sub(rb"\1\n\2", lines).lstrip(b"\n")  # a frame's source line keeps its indent


_JOINED = re.compile(r"Traceback \(most recent call last\):.{0,4000}?\bFile \"")
"""A traceback header and a frame on one line: a traceback whose newlines became spaces."""
_SPACED_STARTS = re.compile(
    r" (?=Traceback \(most recent call last\):)"
    r"| (?=File \"[^\"]{1,400}\", line \d{1,7})"
    r"| (?=During handling of the above exception)"
    r"| (?=The above exception was the direct cause)"
    r"| (?=\[(?:rank|default)\d{1,5}\]:)"
    r"| (?=(?:[a-z_][A-Za-z0-9_]{0,40}\.){0,6}(?:[A-Z][A-Za-z0-9_]{0,80})?"
    r"(?:Error|Exception|Interrupt|Exit|Invalid)(?:: |$))"
)
_SPACED_SOURCE = re.compile(
    r'^(File "[^"]{1,400}", line \d{1,7}, in [A-Za-z0-9_<>.]{1,120}) +(?=\S)'
)


def unfold_lines(lines: Sequence[str], numbers: Sequence[int]) -> tuple[list[str], list[int]]:
    """Lines with a traceback pasted on one line (newlines turned into spaces) put back.

    Chat apps and single-line inputs join a traceback into one line:
    ``Traceback (most recent call last): File "t.py", line 3, in <module> x()
    RuntimeError: ...``. Such a line is split where Python began its lines;
    each piece keeps the pasted line's number, so the page shows what was
    pasted. Other lines pass unchanged; the check is one search per line.
    """
    out: list[str] = []
    out_numbers: list[int] = []
    for line, number in zip(lines, numbers, strict=True):
        pieces = _unfold(line) if "Traceback (most recent" in line else [line]
        out += pieces
        out_numbers += [number] * len(pieces)
    return out, out_numbers


_BARE_RANK = re.compile(r"^\[(?:rank|default)\d{1,5}\]:\s*$")
"""A piece that is only a rank prefix: its line's content was split off after it."""


def _unfold(line: str) -> list[str]:
    if _JOINED.search(line) is None:
        return [line]
    pieces: list[str] = []
    for piece in _SPACED_STARTS.split(line):
        frame = _SPACED_SOURCE.match(piece)
        if frame is None:
            pieces.append(piece)
        else:  # the frame's source line, indented below its File line as Python prints it
            pieces += ["  " + frame[1], "    " + piece[frame.end() :]]
    return _reprefixed(pieces)


def _reprefixed(pieces: list[str]) -> list[str]:
    """Each bare ``[rank0]:`` piece put back before the piece that followed it.

    Shape "joined into one line" of a rank-prefixed log: ``[rank0]: RuntimeError:
    ...`` splits at the rank and again at the exception, and an exception line
    without the prefix that its continuation lines (``[rank0]: \tsize
    mismatch for ...``) carry ended its message at the first of them.
    """
    out: list[str] = []
    prefix = ""
    for piece in pieces:
        if _BARE_RANK.match(piece):
            prefix = piece + " "
            continue
        out.append(prefix + piece if prefix else piece)
        prefix = ""
    if prefix:
        out.append(prefix.rstrip())
    return out
