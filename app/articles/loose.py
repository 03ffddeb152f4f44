"""Bounded repeats opened: a cheaper superset of a regex for engines that only pre-select.

``x{m,n}`` unrolls into ``n`` states in RE2 and into bounded-repeat machinery
in Hyperscan; ``x{m,}`` is ``m`` states and a loop. Wherever the exact regex
matches, the loose one matches too, so a loose form may pick candidates (the
redaction rules' RE2 set, the index's Hyperscan databases) as long as the
exact regex decides (issue 23: the index at 10,000 articles compiles about
three times faster loosened). ``prefilter_form`` goes further for the index:
a pattern with a long top-level literal is compiled as that literal alone,
about twenty times faster again.
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


# A top-level literal of at least this many characters stands in for its
# whole pattern in the index's Hyperscan databases (``prefilter_form``).
PREFILTER_LITERAL_CHARS = 16
_QUANTIFIER = re.compile(r"(?:[*+?]|\{\d+(?:,\d*)?\})[?+]?")
_ESCAPED_TEXT = frozenset("\\.()[]{}|*+?^$-/'\"#:=<>!@%&_~`,; ")


def prefilter_form(pattern: str) -> str:
    """What the index's Hyperscan database holds for ``pattern``: a superset of it.

    A pattern whose top level is a sequence (no ``|`` outside groups, no
    inline flags) and holds a run of at least ``PREFILTER_LITERAL_CHARS``
    plain characters is represented by that run alone: every match of the
    pattern contains it, and Hyperscan compiles a literal about twenty times
    faster than a regex (issue 23: most of a cold compile at 10,000 articles).
    Any other pattern is ``loosened``. The index confirms every hit of a form
    that differs from its pattern with the exact regex, so the form only
    decides which patterns RE2 looks at; a long literal keeps those few.
    """
    found = _top_level_literal_runs(pattern)
    if found is None:
        return loosened(pattern)
    runs, plain_only = found
    text = max(runs, key=len, default="")
    if plain_only or len(text) < PREFILTER_LITERAL_CHARS:  # plain only: the pattern as it is
        return loosened(pattern)
    return _escaped(text)


def _escaped(text: str) -> str:
    """``text`` as a regex of its own characters: ASCII punctuation as ``\\xHH``."""
    return "".join(
        char if char.isalnum() or not char.isascii() else f"\\x{ord(char):02x}" for char in text
    )


def _top_level_literal_runs(pattern: str) -> tuple[list[str], bool] | None:
    """The runs of plain characters at the top level, and whether nothing else is there.

    Plain: a character outside classes and groups that no quantifier follows,
    or an escaped punctuation character (``\\.``). ``|`` at the top level,
    inline flags (``(?i)``, ``(?s:...)``) and ``\\Q...\\E`` give None: their
    literals are not (or not plainly) in every match. So do numbered
    escapes (``\\1``, ``\\012``), which this reader does not take apart.
    """
    runs: list[str] = []
    run: list[str] = []
    plain_only = True
    position, size = 0, len(pattern)
    while position < size:
        char, plain, literal = pattern[position], False, ""
        if char == "\\":
            if pattern.startswith("\\Q", position):
                return None
            end = position + 2
            escaped = pattern[position + 1 : end]
            if escaped.isdigit():
                return None
            if escaped in ("x", "p", "P") and pattern.startswith("{", end):
                end = pattern.find("}", end) + 1 or size  # \x{41}, \p{Greek}
            elif escaped in ("x", "p", "P"):
                end += 2 if escaped == "x" else 1  # \x41, \pL
            plain = escaped in _ESCAPED_TEXT
            literal = escaped
        elif char == "[":
            end = _class_end(pattern, position)
        elif char == "(":
            if pattern.startswith("(?", position) and not pattern.startswith(
                ("(?:", "(?P<", "(?<"), position
            ):
                return None
            end = _group_end(pattern, position)
        elif char == "|":
            return None
        else:
            end, plain, literal = position + 1, char not in "^$.{}", char
        quantifier = _QUANTIFIER.match(pattern, end)
        if quantifier:
            end, plain = quantifier.end(), False
        if plain:
            run.append(literal)
        else:
            plain_only = False
            if run:
                runs.append("".join(run))
                run = []
        position = end
    if run:
        runs.append("".join(run))
    return runs, plain_only


def _class_end(pattern: str, start: int) -> int:
    """Just past the ``]`` that closes the class opened at ``start``."""
    position = start + 1
    position += pattern.startswith("^", position)
    position += pattern.startswith("]", position)  # a leading ] is a literal
    while position < len(pattern) and pattern[position] != "]":
        posix = _POSIX_CLASS.match(pattern, position)
        if posix:
            position = posix.end()
        else:
            position += 2 if pattern[position] == "\\" else 1
    return position + 1


def _group_end(pattern: str, start: int) -> int:
    """Just past the ``)`` that closes the group opened at ``start``."""
    depth, position = 0, start
    while position < len(pattern):
        char = pattern[position]
        if char == "\\":
            position += 2
            continue
        if char == "[":
            position = _class_end(pattern, position)
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        position += 1
        if depth == 0:
            return position
    return position
