"""Chat formatting undone line by line, before any parser reads a line (issue 18, shape 2).

Text that went through a chat client or a Markdown editor is not what the
program printed: an input method turns ``,`` and ``:`` into full-width ``，``
and ``：``; an editor links a library name inside a path
(``/usr/lib/[libcudart.so](http://libcudart.so).12``). ``CHAT_RULES`` puts
back what the program printed, each row only on lines holding its literal, so
ASCII log lines cost one ``isascii`` and one ``in`` test. The line count never
changes, so evidence still points at the pasted lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_WIDE = {"，": ", ", "：": ": ", "；": "; ", "（": "(", "）": ")", "\u3000": " "}


@dataclass(frozen=True)
class ChatRule:
    """One kind of chat formatting: a literal that must occur, then the rewrite."""

    name: str
    literal: str
    ascii_lines: bool  # whether the literal can occur in an ASCII line
    rewrite: Callable[[str], str]


# A Markdown link whose text is a file or library name: keep the text. Bounded classes,
# each stopping at its own closer: linear in Python's re.
_LINK = re.compile(r"\[([^\[\]\n]{1,200})\]\((?:https?://|mailto:)[^()\s]{0,500}\)")
# Full-width punctuation, with the blank an input method may leave after it.
_FULL_WIDTH = re.compile("([，：；（）\u3000])[ \u3000]?")


def _unlink(line: str) -> str:
    return _LINK.sub(r"\1", line)


def _narrow(line: str) -> str:
    return _FULL_WIDTH.sub(lambda m: _WIDE[m.group(1)], line)


CHAT_RULES: tuple[ChatRule, ...] = (
    # "/usr/lib/[libcudart.so](http://libcudart.so).12": an editor's auto-link in a path
    ChatRule("markdown-link", "](", True, _unlink),
    # "Expected all tensors to be on the same device，but found": an input method's comma
    ChatRule("full-width", "", False, _narrow),
)


def as_printed(line: str) -> str:
    """``line`` with every chat rule applied; ASCII lines without ``](`` come back as they are."""
    wide = not line.isascii()
    for rule in CHAT_RULES:
        if (wide or rule.ascii_lines) and rule.literal in line:
            line = rule.rewrite(line)
    return line
