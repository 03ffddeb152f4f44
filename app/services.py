"""What a running service holds: the settings it was built with, the database
engine and the current KB revision, swapped whole on reload.

``create_app`` builds one ``Services`` per app; routes reach it through
``api.deps`` / the web layer. Nothing here is built at import time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import Engine

from app.articles.problems import Problem
from app.kb import LiveKb, prepare_kb


@dataclass
class KbHolder:
    """The KB in use; readers take ``current`` once per request, reload swaps it whole."""

    _current: LiveKb
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def current(self) -> LiveKb:
        return self._current

    def swap(self, new: LiveKb) -> LiveKb:
        """Install ``new`` and return the revision it replaced."""
        with self._lock:
            old, self._current = self._current, new
        return old


@dataclass(frozen=True)
class ReloadOutcome:
    """What a reload did: the revision now served, and why a new one was refused."""

    swapped: bool
    revision: str
    problems: tuple[Problem, ...]


def reload_kb(holder: KbHolder, root: Path, *, index_dir: Path | None) -> ReloadOutcome:
    """Build the KB at ``root`` beside the one in use and swap only if it is clean.

    Lint errors or failing self-tests keep the old KB serving (target B6).
    """
    prepared = prepare_kb(root, index_dir=index_dir)
    if prepared.live is None:
        return ReloadOutcome(False, holder.current.revision, prepared.errors)
    holder.swap(prepared.live)
    return ReloadOutcome(True, prepared.live.revision, prepared.problems)


@dataclass(frozen=True)
class Services:
    """Everything the HTTP layers need, wired by ``create_app``."""

    engine: Engine
    kb: KbHolder
    default_lang: str
