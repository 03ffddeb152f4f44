"""Bounded repeats opened: a cheaper superset of a regex for engines that only pre-select.

``x{m,n}`` unrolls into ``n`` states in RE2 and into bounded-repeat machinery
in Hyperscan; ``x{m,}`` is ``m`` states and a loop. Wherever the exact regex
matches, the loose one matches too, so a loose form may pick candidates (the
redaction rules' RE2 set, the index's Hyperscan databases) as long as the
exact regex decides (issue 23: the index at 10,000 articles compiles about
three times faster loosened).
"""

from __future__ import annotations

import re

_BOUNDED_REPEAT = re.compile(r"\{(\d+),\d+\}")
_POSIX_CLASS = re.compile(r"\[:\^?[a-z]+:\]")


def loosened(pattern: str) -> str:
    """``pattern`` with every bounded repeat ``{m,n}`` opened to ``{m,}``: a superset.

    ``x{m,n}`` matches a subset of what ``x{m,}`` matches, and every regex
    operator keeps that order, so wherever ``pattern`` matches, the loose
    form matches too. RE2 unrolls ``{8,1000}`` into a thousand states; the
    open form is ``m`` states and a loop. Escapes (``\\{``, ``\\x{41}``,
    ``\\Q...\\E``) and character classes are copied as they are.
    """
    if _BOUNDED_REPEAT.search(pattern) is None:  # most patterns: nothing to open
        return pattern
    out: list[str] = []
    position, size, in_class = 0, len(pattern), False
    while position < size:
        char = pattern[position]
        if pattern.startswith("\\Q", position):
            end = pattern.find("\\E", position + 2)
            end = size if end < 0 else end + 2
        elif char == "\\":
            end = position + 2
        elif in_class:
            posix = _POSIX_CLASS.match(pattern, position)  # [:alpha:] inside a class
            end = posix.end() if posix else position + 1
            in_class = posix is not None or char != "]"
        elif char == "[":
            in_class = True
            end = position + 1
            end += pattern.startswith("^", end)
            end += pattern.startswith("]", end)  # a leading ] is a literal
        else:
            repeat = _BOUNDED_REPEAT.match(pattern, position) if char == "{" else None
            if repeat:
                out.append(f"{{{repeat.group(1)},}}")
                position = repeat.end()
                continue
            end = position + 1
        out.append(pattern[position:end])
        position = end
    return "".join(out)
