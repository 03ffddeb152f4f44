"""The KB in use and its reload: readers take the current revision, reload swaps it whole.

A new revision is built beside the one serving, linted, self-tested and
(optionally) reviewed against stored events before it is swapped in.
Nothing here is built at import time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.articles.problems import Problem
from app.authoring.dryrun import DryRun
from app.service.kb import LiveKb, prepare_kb


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
    """What a reload did: the revision now served, and why a new one was refused.

    ``dryrun`` is the replay of stored events against the new KB (None when no
    review ran or the database could not answer); ``proposed`` the new
    revision when it was built but not swapped in (a preview, or flagged).
    """

    swapped: bool
    revision: str
    problems: tuple[Problem, ...]
    dryrun: DryRun | None = None
    proposed: str | None = None

    @property
    def flagged(self) -> bool:
        return self.dryrun is not None and bool(self.dryrun.flagged)


Review = Callable[[LiveKb, LiveKb], DryRun | None]
"""Replays stored events against (current, proposed); None when it cannot tell."""


def reload_kb(
    holder: KbHolder,
    root: Path,
    *,
    index_dir: Path | None,
    review: Review | None = None,
    apply: bool = True,
    force: bool = False,
) -> ReloadOutcome:
    """Build the KB at ``root`` beside the one in use and swap only if it is clean.

    Lint errors or failing self-tests keep the old KB serving (target B6). With
    a ``review``, a change that takes too much of an article's past matches
    away is not swapped in unless ``force`` (issue 9); ``apply=False`` only
    previews.
    """
    prepared = prepare_kb(root, index_dir=index_dir)
    if prepared.live is None:
        return ReloadOutcome(False, holder.current.revision, prepared.errors)
    new = prepared.live
    dry = review(holder.current, new) if review is not None else None
    held = dry is not None and bool(dry.flagged) and not force
    if not apply or held:
        return ReloadOutcome(False, holder.current.revision, prepared.problems, dry, new.revision)
    holder.swap(new)
    return ReloadOutcome(True, new.revision, prepared.problems, dry)


class ReloadBusy(Exception):
    """Another reload is running; this one was not started."""


@dataclass
class Reloader:
    """Runs one reload at a time for a holder; the caller runs it off the event loop."""

    holder: KbHolder
    root: Path
    index_dir: Path | None
    review: Review | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __call__(self, *, apply: bool = True, force: bool = False) -> ReloadOutcome:
        if not self._lock.acquire(blocking=False):
            raise ReloadBusy
        try:
            return reload_kb(
                self.holder,
                self.root,
                index_dir=self.index_dir,
                review=self.review,
                apply=apply,
                force=force,
            )
        finally:
            self._lock.release()
