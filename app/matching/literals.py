"""The plain words inside signature patterns: what a retyped message is spelt against.

A pattern such as ``Expected all tensors to be on the same (?:common )?device``
holds runs of literal text between its operators. Their words are the KB's
vocabulary of error messages; ``fragments.py`` corrects a misspelt word of a
pasted message to its nearest vocabulary word before matching precisely again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

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
