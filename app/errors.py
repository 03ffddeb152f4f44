"""The errkb error tree: every error errkb raises on purpose is one of these.

    ErrkbError                      base; never raised itself
    ├── ConfigError                 a setting is missing or contradictory
    ├── KbError                     the knowledge base cannot be used
    │   └── KbInvalid               articles failed to load or lint; carries the problems
    ├── StoreError                  the database cannot be reached or migrated
    ├── InputError                  a caller sent input errkb refuses (too big, undecodable)
    └── Busy                        at capacity for now; carries when to retry

Third-party errors are wrapped at the boundary with ``raise ... from exc``.
``cli.py`` maps this tree to exit codes and the HTTP layer maps it to status
codes, each in one place. This module imports nothing from ``app``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class _Problem(Protocol):
    def format(self) -> str: ...


class ErrkbError(Exception):
    """Base of every error errkb raises on purpose."""


class ConfigError(ErrkbError):
    """A setting is missing, malformed or contradicts another one."""


class KbError(ErrkbError):
    """The knowledge base cannot be used."""


class KbInvalid(KbError):
    """A knowledge base failed to load or lint; ``problems`` says where and why."""

    def __init__(self, problems: Sequence[_Problem]) -> None:
        self.problems = tuple(problems)
        lines = [p.format() for p in self.problems]
        super().__init__(f"{len(lines)} problem(s) in the knowledge base:\n" + "\n".join(lines))


class StoreError(ErrkbError):
    """The database cannot be reached, written or migrated."""


class InputError(ErrkbError):
    """A caller sent input errkb refuses; the message is safe to show to that caller."""


class Busy(ErrkbError):
    """errkb is at capacity for this kind of work; ``retry_after`` says when to try again.

    Raised instead of queueing without bound (target D6): the HTTP layer answers
    503 with ``Retry-After``.
    """

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after
