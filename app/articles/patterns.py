"""Rules every signature regex must obey, checked at load and by ``errkb lint``.

Signatures run against attacker-controlled text, so they must compile in the
two linear-time engines the matcher uses (Hyperscan for the one-pass index,
RE2 for spans and as the fallback) and nowhere else: no look-around, no
back-references, no possessive or atomic groups (research note, targets B2,
B3). A literal of at least four characters keeps the index's prefilter
selective (performance note, section 8); bounded counted repetition keeps the
compiled automata small.
"""

from __future__ import annotations

import re
from functools import cache
from re import _parser as sre  # type: ignore[attr-defined]
from typing import Any

import hyperscan
import re2

from app.articles.loose import loosened

MAX_PATTERN_CHARS = 512
MAX_PATTERNS_PER_ARTICLE = 20
MAX_REPEAT_BOUND = 1000
MAX_NESTED_REPEAT = MAX_REPEAT_BOUND
MIN_LITERAL_CHARS = 4

# The flags the matcher's Hyperscan index compiles every signature with.
HYPERSCAN_FLAGS = hyperscan.HS_FLAG_SINGLEMATCH
HYPERSCAN_UTF8_FLAGS = hyperscan.HS_FLAG_SINGLEMATCH | hyperscan.HS_FLAG_UTF8


@cache
def re2_options() -> Any:
    """RE2 options shared by lint and the matcher: quiet, with room for big KBs."""
    options = re2.Options()
    options.log_errors = False
    options.max_mem = 64 << 20
    return options


def hyperscan_flags(pattern: str) -> int:
    return HYPERSCAN_FLAGS if pattern.isascii() else HYPERSCAN_UTF8_FLAGS


def check_pattern(pattern: str) -> list[str]:
    """Everything wrong with one signature regex; an empty list when it is fine."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return [f"regex is {len(pattern)} characters long (at most {MAX_PATTERN_CHARS})"]
    problems = _re2_problems(pattern)
    if problems:
        return problems
    problems += _hyperscan_problems(pattern)
    problems += _shape_problems(pattern)
    return problems


def _re2_problems(pattern: str) -> list[str]:
    try:
        compiled = re2.compile(pattern, re2_options())
    except re2.error as exc:
        detail = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        return [f"unsupported regex construct (RE2): {detail}"]
    if compiled.search("") is not None:
        return ["regex matches the empty string"]
    return []


def _hyperscan_problems(pattern: str) -> list[str]:
    """Whether Hyperscan takes the form the index compiles: ``loosened`` (issue 23)."""
    database = hyperscan.Database()
    try:
        compiled = loosened(pattern).encode()
        database.compile(expressions=[compiled], ids=[0], flags=[hyperscan_flags(pattern)])
    except hyperscan.error as exc:
        return [f"regex rejected by Hyperscan: {exc}"]
    return []


def _shape_problems(pattern: str) -> list[str]:
    try:
        tree = sre.parse(pattern)
    except re.error as exc:  # RE2 accepted it; Python's parser is only our ruler
        return [f"regex cannot be analysed: {exc}"]
    problems = []
    if longest_literal(tree) < MIN_LITERAL_CHARS:
        problems.append(
            f"regex needs a literal of at least {MIN_LITERAL_CHARS} characters "
            "(it keeps the index selective)"
        )
    bound = _largest_repeat(tree, 1)
    if bound > MAX_NESTED_REPEAT:
        problems.append(
            f"counted repetition too large ({bound}; at most {MAX_REPEAT_BOUND}, "
            "nested repeats multiplied)"
        )
    if pattern.startswith((".*", ".+")):
        problems.append("regex starts with .* or .+ (drop it: signatures match anywhere)")
    return problems


def longest_literal(tree: Any) -> int:
    """Length of the longest run of literal characters every match must contain."""
    best = run = 0
    for op, arg in tree:
        if op is sre.LITERAL:
            run += 1
            best = max(best, run)
            continue
        if op is sre.SUBPATTERN:
            best = max(best, longest_literal(arg[-1]))
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and arg[0] >= 1:
            best = max(best, longest_literal(arg[2]))
        run = 0
    return best


def _largest_repeat(tree: Any, outer: int) -> int:
    largest = outer
    for op, arg in tree:
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            high = arg[1]
            factor = 1 if high == sre.MAXREPEAT else high
            largest = max(largest, _largest_repeat(arg[2], outer * factor))
        elif op is sre.SUBPATTERN:
            largest = max(largest, _largest_repeat(arg[-1], outer))
        elif op is sre.BRANCH:
            for branch in arg[1]:
                largest = max(largest, _largest_repeat(branch, outer))
    return largest
