"""The plain words inside signature patterns: what a retyped message is spelt against.

A pattern such as ``Expected all tensors to be on the same (?:common )?device``
holds runs of literal text between its operators. Their words are the KB's
vocabulary of error messages; ``fragments.py`` corrects a misspelt word of a
pasted message to its nearest vocabulary word before matching precisely again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_META = "^$.*+?()[]{}|"
_PUNCT = "()[]{}.*+?|^$,:;'\"-/ #=<>!@%&_~`"
WORD = re.compile(r"[A-Za-z]{4,40}")  # bounded: linear in Python's re


def literal_runs(pattern: str) -> list[str]:
    """Runs of plain text in ``pattern``: escaped punctuation is text, operators end a run."""
    runs: list[str] = []
    run: list[str] = []
    chars = iter(pattern)
    for char in chars:
        if char == "\\":
            escaped = next(chars, "")
            if escaped in _PUNCT:
                run.append(escaped)
                continue
        elif char not in _META:
            run.append(char)
            continue
        runs.append("".join(run))
        run = []
    runs.append("".join(run))
    return [r for r in runs if r.strip()]


def vocabulary(patterns: Iterable[str]) -> frozenset[str]:
    """Every word of four letters or more in the literal runs of ``patterns``."""
    return frozenset(
        word for pattern in patterns for run in literal_runs(pattern) for word in WORD.findall(run)
    )


def within_reach(sorted_words: Sequence[str], similarity: float) -> dict[int, tuple[str, ...]]:
    """For each word length, the words that can reach ``similarity`` with a word that long.

    Normalised Levenshtein similarity is ``1 - distance / max(len)``, and two
    words of lengths L and M are at least ``|L - M|`` apart, so only words
    with ``|L - M| <= (1 - similarity) * max(L, M)`` can reach the cut-off.
    The nearest-word search (``fragments.py``) scores those alone, a few
    lengths of the KB's vocabulary instead of all of it (issue 19: the
    vocabulary grew fourfold with the KB, and so did every search). Each
    tuple keeps the words' order, so the first best word is the same one.
    """
    lengths = sorted({len(word) for word in sorted_words})
    slack = 1.0 - similarity + 1e-9  # never drop a word on a rounding error
    reach: dict[int, tuple[str, ...]] = {}
    for length in range(1, max(lengths, default=0) + 2):
        near = {m for m in lengths if abs(length - m) <= slack * max(length, m)}
        reach[length] = tuple(word for word in sorted_words if len(word) in near)
    return reach
