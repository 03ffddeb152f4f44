"""The first step of an article's fix, whole: its words and its code.

Answers that fit in a job log or a chat message carry one step of the fix,
not the whole article, and that step is useless without its command: "Fix:
Change the DeepSpeed version (the real fix):" with the ``pip install`` line
cut off (issue 20, item 1). A fix is Markdown written in one of three shapes:

1. numbered steps (``1. **Do this**`` or ``**1. Do this**``), maybe after a
   lead-in paragraph: the step runs to the next number at its level, or to a
   paragraph that is not part of the item (``**If this does not help**``);
2. no numbers: the lead-in paragraphs up to and including the first code
   block (and the blocks that follow it while they are code or end in ":");
3. no code at all: the first paragraph.

:class:`FixStep` keeps the step as Markdown (for chat and summaries) and
offers :meth:`FixStep.terminal_lines` for plain text: words without Markdown
marks, code indented four spaces, so the block survives a job log and is
copied as it is.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

_ITEM = re.compile(r"^(?P<indent>\s*)(?:\d+[.)]\s|\*\*\d+[.)]\s?)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_BULLET = re.compile(r"^\s*[-*+]\s")
_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
_NUMBER = re.compile(r"^(\*\*)?\d+[.)]\s*")
_CJK = re.compile("[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


@dataclass(frozen=True)
class Block:
    """A paragraph (its lines) or a fenced code block (fences included)."""

    lines: tuple[str, ...]
    code: bool

    @property
    def indent(self) -> int:
        first = self.lines[0]
        return len(first) - len(first.lstrip())


@dataclass(frozen=True)
class FixStep:
    """One step of a fix as Markdown, dedented, its number taken off."""

    markdown: str

    def code_blocks(self) -> list[str]:
        """The code of each fenced block, without its fences."""
        return ["\n".join(b.lines[1:-1]) for b in blocks(self.markdown) if b.code]

    def terminal_lines(self) -> list[str]:
        """Plain lines for a terminal: prose joined and unmarked, code indented by four."""
        lines: list[str] = []
        for block in blocks(self.markdown):
            if block.code:
                body = textwrap.dedent("\n".join(block.lines[1:-1])).splitlines()
                lines.extend(f"    {line}".rstrip() for line in body)
            else:
                lines.append(plain(joined(block.lines)))
        return lines


def blocks(markdown: str) -> list[Block]:
    """Paragraphs and fenced code blocks in order; a list item starts a new paragraph."""
    found: list[Block] = []
    current: list[str] = []
    fence: list[str] | None = None
    for line in markdown.splitlines():
        if fence is not None:
            fence.append(line)
            if _FENCE.match(line):
                found.append(Block(tuple(fence), code=True))
                fence = None
            continue
        starts_item = bool(_ITEM.match(line) or _BULLET.match(line))
        if _FENCE.match(line) or not line.strip() or (starts_item and current):
            if current:
                found.append(Block(tuple(current), code=False))
            current = []
        if _FENCE.match(line):
            fence = [line]
        elif line.strip():
            current.append(line)
    if fence is not None:  # an unclosed fence: keep what there is, closed
        found.append(Block((*fence, fence[0].strip()[:3]), code=True))
    if current:
        found.append(Block(tuple(current), code=False))
    return found


def first_step(markdown: str) -> FixStep:
    """Step 1 of the fix, whole (see the module docstring for the three shapes)."""
    parts = blocks(markdown)
    start = next((i for i, b in enumerate(parts) if not b.code and _ITEM.match(b.lines[0])), None)
    chosen = _numbered(parts, start) if start is not None else _leading(parts)
    return FixStep(_render(chosen))


def _numbered(parts: list[Block], start: int) -> list[Block]:
    """The item at ``start`` and what belongs to it: up to the next item or an outdented block."""
    item = parts[start]
    content_indent = item.indent + 1
    chosen = [item]
    for block in parts[start + 1 :]:
        if not block.code and _ITEM.match(block.lines[0]) and block.indent <= item.indent:
            break
        if block.indent < content_indent and not _belongs_to_bold_item(item, block, chosen):
            break
        chosen.append(block)
    return chosen


def _belongs_to_bold_item(item: Block, block: Block, chosen: list[Block]) -> bool:
    """``**1. Title**`` items are not indented: their paragraphs and code follow flush."""
    if not item.lines[0].lstrip().startswith("**"):
        return False
    if block.code:
        return True
    return not block.lines[0].lstrip().startswith("**") and len(chosen) < 6


def _leading(parts: list[Block]) -> list[Block]:
    """Lead-in paragraphs through the first code block and what continues it."""
    chosen: list[Block] = []
    seen_code = False
    for block in parts:
        if seen_code and not block.code and not _leads_in(chosen[-1]):
            break
        chosen.append(block)
        seen_code = seen_code or block.code
    if not seen_code:
        return parts[:1]
    return chosen


def _leads_in(block: Block) -> bool:
    return block.code is False and block.lines[-1].rstrip().endswith((":", "："))


def _render(chosen: list[Block]) -> str:
    if not chosen:
        return ""
    base = (
        min(block.indent for block in chosen if not block.code)
        if any(not b.code for b in chosen)
        else chosen[0].indent
    )
    out: list[str] = []
    for number, block in enumerate(chosen):
        lines = [line[base:] if line[:base].isspace() or not line[:base] else line.lstrip()
                 for line in block.lines]  # fmt: skip
        if number == 0 and not block.code:
            lines[0] = _NUMBER.sub(lambda m: m.group(1) or "", lines[0].lstrip(), count=1)
        out.append("\n".join(lines))
    return "\n\n".join(out).strip("\n")


def joined(lines: tuple[str, ...] | list[str]) -> str:
    """Wrapped lines as one: a space between words, none where Chinese text wraps."""
    text = ""
    for raw in lines:
        line = raw.strip()
        if text and line and not (_CJK.match(text[-1]) or _CJK.match(line[0])):
            text += " "
        text += line
    return text


def plain(markdown: str) -> str:
    """Markdown prose as a terminal shows it: no emphasis marks, no code ticks, no number."""
    return _NUMBER.sub("", _EMPHASIS.sub("", markdown).replace("`", "")).strip()
