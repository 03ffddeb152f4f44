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
