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
half-read. The revision memo is left alone.

Compiled shards (``shards/<key>.hsdb``, named by their patterns and shared
across revisions) go when neither kept revision's index was built from them
(``prune_shards``): the keys come from the kept indexes' headers. A shard
file younger than ``STALE_TEMPORARY_S`` stays whatever the headers say (a
build under way in another process may have written it for an index it has
not saved yet), and nothing is removed when a kept index cannot be read
(its shards are not known). A loaded index holds its databases in memory and
its ``.idx`` file carries copies, so removing a shard file costs at most a
compile at a later edit, never a wrong answer. Without a saved index of the
current revision (a full disk) no shard is removed.
"""

from __future__ import annotations

import logging
import os
import re
import time
from pathlib import Path

from app.matching.index import stored_shard_keys

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
    indexes = {
        key: [p for p, _ in groups.get(key, ()) if p.suffix == ".idx"] for key in kept if key
    }
    if not indexes.get(current):  # the current index was not saved: its shards are not known
        return removed
    named = [path for paths in indexes.values() for path in paths]
    return removed + prune_shards(index_dir / "shards", named, now=now)


def prune_shards(folder: Path, indexes: list[Path], *, now: float) -> list[Path]:
    """Remove the shard files in ``folder`` that none of ``indexes`` was built from; the removed."""
    wanted: set[str] = set()
    for path in indexes:
        try:
            with path.open("rb") as head:
                keys = stored_shard_keys(head)
        except FileNotFoundError:
            continue  # removed by another process's pruning: it names nothing to keep
        except OSError:
            keys = None
        if keys is None:
            log.info("%s cannot be read: shards are not pruned", path.name)
            return []
        wanted |= keys
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    removed = []
    for entry in entries:
        name = entry.name
        stem = name.removesuffix(".hsdb")
        if stem == name and not name.endswith(".tmp"):
            continue  # not errkb's naming: not touched
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if now - entry.stat(follow_symlinks=False).st_mtime <= STALE_TEMPORARY_S:
                continue  # a build under way may be about to name it
        except OSError:
            continue
        if stem in wanted:
            continue
        try:
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("cannot remove the stale shard %s: %s", name, exc.strerror)
    if removed:
        log.info("removed %d shard file(s) no kept index uses from %s", len(removed), folder)
    return sorted(removed)
