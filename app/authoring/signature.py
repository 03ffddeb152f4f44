"""A signature regex from one real error message: kept words literal, variable parts masked.

The masking rules are the fuzzy matcher's own (``normalize.MASK_RULES``), so
what the draft's regex leaves open is exactly what changes between ranks,
machines and runs: numbers, paths, shapes, sizes, addresses. Each masked kind
gets a pattern that RE2 and Hyperscan both accept and that matches every
value of that kind, so the draft matches the sample it came from and its
siblings with other numbers.
"""

from __future__ import annotations

import re

from app.matching.normalize import masked_pieces

MESSAGE_CHARS = 160
"""Enough of a first line to identify the failure; long messages end in details that vary."""

KIND_PATTERNS: dict[str, str] = {
    "url": r"\S+",
    "uuid": r"[0-9a-fA-F-]{36}",
    "datetime": r"[0-9][0-9:.,TZ_ +-]*[0-9Z]",
    "ip": r"\d{1,3}(?:\.\d{1,3}){3}",
    "path": r"\S+",
    "hex": r"0x[0-9a-fA-F]+",
    "longhex": r"[0-9a-fA-F]{16,}",
    "device": r"[a-z]+:\d+",
    "shape": r"(?:torch\.Size\()?[\[(][\d, ]*[\])]\)?",
    "dims": r"\d+(?:x\d+)+",
    "version": r"\d+(?:\.\d+)+",
    "size": r"\d+(?:\.\d+)? ?(?:[KMGTP]i?B|bytes)",
    "duration": r"\d+(?:\.\d+)? ?[a-z]+",
    "number": r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?",
}


def short_exception(name: str) -> str:
    """``torch.OutOfMemoryError`` -> ``OutOfMemoryError``: logs print either."""
    return name.rsplit(".", 1)[-1]


def first_line(message: str, limit: int = MESSAGE_CHARS) -> str:
    """The message's first non-blank line, at most ``limit`` characters."""
    line = next((part.strip() for part in message.splitlines() if part.strip()), "")
    return line[:limit]


def message_regex(exception: str | None, message: str) -> str:
    """An RE2 regex for ``<Exception>: <message>``'s first line with variable parts masked."""
    pieces = masked_pieces(first_line(message))
    if pieces and pieces[-1][0] not in (None, "quoted"):
        pieces = pieces[:-1] if len(pieces) > 1 else pieces  # a trailing number adds nothing
    body = "".join(
        re.escape(text) if kind in (None, "quoted") else KIND_PATTERNS.get(kind, r"\S+")
        for kind, text in pieces
    )
    body = re.sub(r"(?:\\ )+", " ", body).strip()
    head = re.escape(short_exception(exception)) + ": " if exception else ""
    return head + body
