"""Stage 1 of matching: turn pasted bytes into clean text, line for line.

Users paste whatever their terminal or CI captured: invalid UTF-8, a BOM,
UTF-16 from PowerShell redirects, NULs, colours and hyperlinks (ANSI CSI/OSC),
tqdm bars rewritten with ``\\r`` a million times, CRLF, bidi overrides
(Trojan Source, CVE-2021-42574) and single lines of 64 MiB. ``decode`` makes
that text what a person would have seen, cheaply and in linear time.

The line invariant that keeps evidence honest: cleaning never adds or removes
a ``\\n``. Output line *n* is input line *n* (lines as ``raw.split(b"\\n")``
gives them; a CRLF is one line, a folded ``\\r`` rewrite keeps its line). So
``DecodedText.source_line`` is arithmetic, not a table, and it stays right
for an excerpt decoded on its own when the caller passes ``first_line``. The
one exception is UTF-16/32 input: there the lines are those of the decoded
text, because a raw ``0x0a`` byte is not a newline in those encodings.

Every pattern here is fixed and each repetition is bounded, so Python's
``re`` runs in linear time on it (see ``_ESCAPES``); user and article
patterns go through RE2 elsewhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields

MIN_LINE_CHARS = 64
DEFAULT_MAX_LINE_CHARS = 10_000
CUT_BACKOFF_CHARS = 256
# Characters a token, key or path is made of: a cut backs off past them so
# that the kept head of a long line never ends in half a secret.
_CUT_BACKOFF_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~%"

_BOMS = (  # longest first: a UTF-32-LE BOM starts with the UTF-16-LE one
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)

# Terminal escape sequences (ECMA-48). Linear in Python's ``re``: every
# alternative starts with a fixed character, each class is bounded and is
# disjoint from the class that follows it, so one start position costs at
# most ~4 KiB of steps and the bodies stop at the next ESC or newline. None
# of them can match a ``\n``, which is what keeps the line invariant. The
# 7-bit forms lead with a literal ESC so ``re`` finds them with its fast
# literal search (3x faster on a log coloured on every line); the rare 8-bit
# C1 forms get their own pass.
_ESCAPES = re.compile(
    "\x1b(?:"
    "\\[[0-?]{0,64}[ -/]{0,8}[@-~]"  # CSI: colours, cursor moves
    "|\\][^\x07\x1b\x9c\n]{0,4096}(?:\x07|\x1b\\\\|\x9c)"  # OSC: titles, hyperlinks
    "|[PX^_][^\x1b\x9c\n]{0,4096}(?:\x1b\\\\|\x9c)"  # DCS, SOS, PM, APC strings
    "|[ -/]{0,4}[0-~])"  # two-byte and nF escapes: charset selection, keypad modes
)
_C1_ESCAPES = re.compile(
    "\x9b[0-?]{0,64}[ -/]{0,8}[@-~]"
    "|\x9d[^\x07\x1b\x9c\n]{0,4096}(?:\x07|\x1b\\\\|\x9c)"
    "|[\x90\x98\x9e\x9f][^\x1b\x9c\n]{0,4096}(?:\x1b\\\\|\x9c)"
)
_C1_INTRODUCERS = "\x90\x98\x9b\x9d\x9e\x9f"  # 8-bit DCS, SOS, CSI, OSC, PM, APC
_C0 = [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]  # keeps \t \n \r
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROLS = re.compile("[" + "".join(map(chr, _C0)) + "\x80-\x9f" + _BIDI + "\ufeff]")
_ASCII_CONTROLS = dict.fromkeys(_C0)
_SURROGATES = re.compile("[\ud800-\udfff]")
_VISIBLE_BYTE = re.compile(rb"[^\x00-\x20\x7f]")
_BOM_SAMPLE_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class DecodeCounts:
    """What cleaning changed, for the result page and metrics (never content)."""

    invalid_sequences: int = 0  # undecodable byte sequences, each now U+FFFD
    escapes_removed: int = 0  # ANSI/VT100 CSI, OSC, DCS... sequences
    controls_removed: int = 0  # other C0/C1 controls, NULs, bidi controls, stray BOMs
    lines_folded: int = 0  # lines whose ``\r`` rewrites were folded to the last one
    lines_cut: int = 0  # lines longer than ``max_line_chars``
    chars_cut: int = 0  # characters dropped by those cuts

    def changed(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))


@dataclass(frozen=True, slots=True)
class DecodedText:
    """Clean text plus what it takes to point evidence back at the paste.

    ``line_count`` counts lines as ``text.split("\\n")`` does (a trailing
    newline ends in an empty last line), which equals the input's own count.
    """

    text: str
    line_count: int
    encoding: str = "utf-8"
    first_line: int = 1
    counts: DecodeCounts = field(default_factory=DecodeCounts)

    def source_line(self, line: int) -> int:
        """The 1-based line of the original paste that output ``line`` came from."""
        if not 1 <= line <= self.line_count:
            raise IndexError(f"line {line} is outside 1..{self.line_count}")
        return self.first_line + line - 1


def decode(
    data: bytes,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    first_line: int = 1,
) -> DecodedText:
    """Decode and clean pasted bytes; never raises on content.

    ``first_line`` numbers the input's first line, for an excerpt cut from a
    larger log (performance note, section 8: decode only the excerpts).
    """
    text, encoding, invalid = _to_str(data)
    return _clean(text, encoding, invalid, max_line_chars, first_line)


def decode_text(
    text: str,
    *,
    max_line_chars: int = DEFAULT_MAX_LINE_CHARS,
    first_line: int = 1,
) -> DecodedText:
    """The same cleaning for text that arrived as ``str`` (a JSON body field).

    Lone surrogates (``"\\ud800"`` is valid JSON) become U+FFFD, one for one,
    so later stages can always encode the text.
    """
    invalid = 0
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text, invalid = _SURROGATES.subn("\ufffd", text)
    return _clean(text, "str", invalid, max_line_chars, first_line)


def is_blank(data: bytes) -> bool:
    """Whether a paste holds nothing to read: only blanks, NULs and other controls.

    Searches for the first visible byte instead of stripping, so a 50 MB log
    is not copied to learn that it is not empty. A BOM alone is blank too.
    """
    for bom, _ in _BOMS:
        if data.startswith(bom):
            data = data[len(bom) :]
            break
    return _VISIBLE_BYTE.search(data) is None


def _encoding_of(data: bytes) -> tuple[str, bytes]:
    """The encoding a BOM names and the bytes after it; UTF-8 and all of it without one.

    ``ff fe`` also starts binary junk, and junk read as UTF-16 turns into CJK
    soup on one line. Text in UTF-16 or UTF-32 has NULs where its ASCII
    (newlines, spaces, digits) sits, so a BOM counts only when they are there.
    """
    for bom, name in _BOMS:
        if data.startswith(bom):
            body = data[len(bom) :]
            return (name, body) if _fits(body, name) else ("utf-8", data)
    return "utf-8", data


def _fits(body: bytes, encoding: str) -> bool:
    sample = body[:_BOM_SAMPLE_BYTES]
    if not sample or encoding == "utf-8":
        return True
    if encoding.startswith("utf-32"):
        high = sample[3::4] if encoding.endswith("le") else sample[0::4]
        return not high.strip(b"\x00")  # no code point is above U+10FFFF
    high = sample[1::2] if encoding.endswith("le") else sample[0::2]
    return b"\x00" in high


def _to_str(data: bytes) -> tuple[str, str, int]:
    """Bytes to str by BOM (UTF-8 without one); counts the sequences replaced."""
    encoding, body = _encoding_of(data)
    text = body.decode(encoding, errors="replace")
    if text.isascii() or "\ufffd" not in text:
        return text, encoding, 0
    if encoding == "utf-8":
        genuine = body.count("\ufffd".encode())
    else:
        genuine = body.decode(encoding, errors="ignore").count("\ufffd")
    return text, encoding, text.count("\ufffd") - genuine


def _clean(
    text: str, encoding: str, invalid: int, max_line_chars: int, first_line: int
) -> DecodedText:
    if max_line_chars < MIN_LINE_CHARS:
        raise ValueError(f"max_line_chars must be at least {MIN_LINE_CHARS}")
    text, escapes, controls = _strip_controls(text)
    text, line_count, folded, cut, chars_cut = _fix_lines(text, max_line_chars)
    counts = DecodeCounts(invalid, escapes, controls, folded, cut, chars_cut)
    return DecodedText(text, line_count, encoding, first_line, counts)


def _strip_controls(text: str) -> tuple[str, int, int]:
    """Drop escape sequences, then every other control character but \t \n \r.

    ASCII text takes ``str.translate``'s fast path; other text is searched
    once and rewritten only when something is there to remove.
    """
    escapes = 0
    if "\x1b" in text:
        text, escapes = _ESCAPES.subn("", text)
    if text.isascii():
        cleaned = text.translate(_ASCII_CONTROLS)
        return cleaned, escapes, len(text) - len(cleaned)
    if _CONTROLS.search(text) is None:
        return text, escapes, 0
    if any(c in text for c in _C1_INTRODUCERS):
        text, more = _C1_ESCAPES.subn("", text)
        escapes += more
    cleaned = _CONTROLS.sub("", text)
    return cleaned, escapes, len(text) - len(cleaned)


def _fix_lines(text: str, max_line_chars: int) -> tuple[str, int, int, int, int]:
    """Fold ``\r`` rewrites and cut long lines; splits into lines only when it must."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    has_cr = "\r" in text
    if not has_cr and not _has_long_line(text, max_line_chars):
        return text, text.count("\n") + 1, 0, 0, 0
    lines = text.split("\n")
    folded = _fold_carriage_returns(lines) if has_cr else 0
    cut = chars_cut = 0
    if max(map(len, lines)) > max_line_chars:
        cut, chars_cut = _cut_long_lines(lines, max_line_chars)
    return "\n".join(lines), len(lines), folded, cut, chars_cut


def _has_long_line(text: str, limit: int) -> bool:
    """Whether a line is longer than ``limit``, without splitting the text.

    A line longer than ``limit`` covers a position that is a multiple of
    ``limit``; each such probe looks at most ``limit`` characters each way,
    so the whole check is linear and usually touches a tiny part of the text.
    """
    size = len(text)
    for probe in range(0, size, limit):
        if text[probe] == "\n":
            continue
        low = max(0, probe - limit)
        before = text.rfind("\n", low, probe)
        if before < 0 and low > 0:
            return True  # text[probe - limit : probe + 1] has no newline
        after = text.find("\n", probe, probe + limit + 1)
        if after < 0 and probe + limit < size:
            return True  # text[probe : probe + limit + 1] has no newline
        end = size if after < 0 else after
        if end - (before + 1) > limit:
            return True
    return False


def _fold_carriage_returns(lines: list[str]) -> int:
    """Keep what a terminal shows last: the text after the last bare ``\\r``.

    A trailing ``\\r`` (``\\r\\r\\n``, a bar that ends with ``\\r``) moves the
    cursor without writing anything, so it is dropped, not folded on.
    """
    folded = 0
    for index, line in enumerate(lines):
        if "\r" not in line:
            continue
        line = line.rstrip("\r")
        last = line.rfind("\r")
        if last >= 0:
            line = line[last + 1 :]
            folded += 1
        lines[index] = line
    return folded


def _cut_long_lines(lines: list[str], max_line_chars: int) -> tuple[int, int]:
    """Cut lines over the limit so the result, marker included, fits in it."""
    cut = chars_cut = 0
    for index, line in enumerate(lines):
        if len(line) > max_line_chars:
            lines[index], dropped = _cut(line, max_line_chars)
            cut += 1
            chars_cut += dropped
    return cut, chars_cut


def _cut(line: str, max_line_chars: int) -> tuple[str, int]:
    keep = max_line_chars - len(_marker(len(line)))
    head = line[:keep]
    backed_off = head.rstrip(_CUT_BACKOFF_ALPHABET).rstrip()
    if len(head) - len(backed_off) <= min(CUT_BACKOFF_CHARS, keep // 2):
        head = backed_off
    dropped = len(line) - len(head)
    return head + _marker(dropped), dropped


def _marker(dropped: int) -> str:
    return f" …[cut {dropped} chars]"
