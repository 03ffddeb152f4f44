"""Old KB revisions' files leave ``index_dir`` when a new one is saved; two revisions stay.

Each KB revision leaves a serialised index (``<revision>-hs<engine>.idx``) and
a snapshot (``<revision>-<errkb>.kb``), several megabytes at today's KB and
tens at 1,000 articles; nothing removed them, so a KB edited daily filled
the disk (issue 23). After a clean revision is saved, files of revisions
other than it and the one saved just before it (the newest of the others by
modification time: the revision a rollback or a reload's refusal goes back
to) are removed, with temporary files that a crashed write left over an hour
ago. A file another process still reads stays readable until it closes it;
one that goes missing between a check and a read is rebuilt, never trusted
half-read. The revision memo and compiled shards (named by their patterns,
shared across revisions) are left alone.
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path

log = logging.getLogger(__name__)

REVISION_FILE = re.compile(r"([0-9a-f]{32})-[^/]+\.(?:idx|kb)")  # index_key / snapshot_path
STALE_TEMPORARY_S = 3600.0  # an atomic write's temporary file older than this is a leftover


def prune_revisions(index_dir: Path, revision: str, *, now: float | None = None) -> list[Path]:
    """Remove the files of revisions other than ``revision`` and the previous one; the removed."""
    current = revision[:32]
    groups: dict[str, list[tuple[Path, float]]] = {}
    leftovers: list[Path] = []
    now = time.time() if now is None else now
    try:
        entries = list(os.scandir(index_dir))
    except OSError:
        return []
    for entry in entries:
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            modified = entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        found = REVISION_FILE.fullmatch(entry.name)
        if found:
            groups.setdefault(found.group(1), []).append((Path(entry.path), modified))
        elif entry.name.endswith(".tmp") and now - modified > STALE_TEMPORARY_S:
            leftovers.append(Path(entry.path))
    newest = {key: max(when for _, when in files) for key, files in groups.items()}
    others = [key for key in newest if key != current]
    previous = max(others, key=lambda key: (newest[key], key)) if others else None
    kept = (current, previous)
    doomed = [path for key, files in groups.items() if key not in kept for path, _ in files]
    removed = []
    for path in sorted(doomed + leftovers):
        try:
            path.unlink()
            removed.append(path)
        except FileNotFoundError:
            continue  # another process pruned it first
        except OSError as exc:
            log.warning("cannot remove the stale %s: %s", path.name, exc.strerror)
    if removed:
        log.info("removed %d file(s) of old KB revisions from %s", len(removed), index_dir)
    return removed
