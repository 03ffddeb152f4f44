"""What a running service holds: the settings it was built with, the database
engine and the current KB revision, swapped whole on reload.

``create_app`` builds one ``Services`` per app; routes reach it through
``api.deps`` / the web layer. Nothing here is built at import time.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from sqlalchemy.engine import Engine

from app.kb import LiveKb


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
class Services:
    """Everything the HTTP layers need, wired by ``create_app``."""

    engine: Engine
    kb: KbHolder
    default_lang: str
