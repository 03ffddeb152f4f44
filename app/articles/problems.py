"""A problem found in the knowledge base, pinned to a file and a line.

Load, lint and reload all speak in these, so an author sees the same
``kb/articles/<id>.yaml:<line>: <what is wrong>`` everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Problem:
    """One finding; ``line`` is 1-based, or None when no line applies."""

    path: str
    line: int | None
    message: str
    severity: Severity = "error"

    def format(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{where}: {prefix}{self.message}"


def errors_in(problems: tuple[Problem, ...]) -> tuple[Problem, ...]:
    return tuple(p for p in problems if p.severity == "error")
