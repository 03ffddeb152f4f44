"""The KB's content hash without reading the KB, when no file changed since it was computed.

``errkb match`` finds its snapshot by the KB's content hash, and at 1,000
articles hashing 9,000 files (54 MB of example logs) was a third of the call
(issue 23). As git's index does, a memo beside the index keeps the hash with
each file's identity and times (inode, size, mtime, ctime); a call whose walk
finds the same files with the same stamps reuses the hash. Writing a file or
setting its times changes its ctime, which only the kernel sets. A file whose
mtime or ctime is not clearly older than the moment the hash was begun could
have changed in the same clock tick without showing it: such a memo is not
trusted ("racy", in git's word) and the hash is computed again. Any doubt
(no memo, unreadable, another root) means computing it; never a stale hash.

The memo keeps the SHA-256 of the stamps, not the stamps: at 1,000 articles
the list was 1.5 MB of JSON to parse on every call, where hashing the
stamps just taken costs a few milliseconds (``memo/2``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from app.articles.revision import REVISION_FOLDERS, file_entries, kb_revision

RACY_NS = 3_000_000_000  # coarser file-system clocks (FAT: 2 s) than any memo can tell apart
FORMAT = "errkb-revision-memo/2"

Stamp = tuple[str, int, int, int, int]  # relative path, inode, size, mtime_ns, ctime_ns


def memo_revision(root: Path, memo_dir: Path) -> str:
    """``kb_revision(root)``, from the memo in ``memo_dir`` when every file is as it was."""
    stamps = _stamps(root)
    path = memo_dir / f"revision-{_root_key(root)}.json"
    cached = _read(path, stamps)
    if cached is not None:
        return cached
    begun = time.time_ns()
    revision = kb_revision(root)
    if stamps is not None and _stamps(root) == stamps:  # nothing moved while it was hashed
        memo = {"format": FORMAT, "begun_ns": begun, "stamps_sha256": _digest(stamps)}
        _write(path, memo | {"revision": revision})
    return revision


def _stamps(root: Path) -> list[Stamp] | None:
    """Every revision file's stamp, in ``kb_revision``'s order; None if one cannot be read."""
    base = os.fspath(root)
    found: list[Stamp] = []
    try:
        for folder in REVISION_FOLDERS:
            for parts, entry in file_entries(base, (folder,)):
                stat = entry.stat()  # follows a link, as reading the file does
                stamp = (stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
                found.append(("/".join(parts), *stamp))
    except OSError:
        return None
    return found


def _digest(stamps: list[Stamp]) -> str:
    """SHA-256 of the stamps in order; a path holds no NUL, so no two lists encode alike."""
    lines = "".join(
        f"{name}\0{ino}\0{size}\0{mtime}\0{ctime}\n" for name, ino, size, mtime, ctime in stamps
    )
    return hashlib.sha256(lines.encode("utf-8", "surrogateescape")).hexdigest()


def _read(path: Path, stamps: list[Stamp] | None) -> str | None:
    if stamps is None:
        return None
    try:
        memo = json.loads(path.read_bytes())
        if memo["format"] != FORMAT:
            return None
        begun, revision = int(memo["begun_ns"]), str(memo["revision"])
        kept = str(memo["stamps_sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if kept != _digest(stamps):
        return None
    newest = max((max(stamp[3], stamp[4]) for stamp in stamps), default=0)
    if newest >= begun - RACY_NS:
        return None  # a file changed too close to the hash to tell: compute it again
    return revision


def _write(path: Path, memo: dict[str, object]) -> None:
    """Atomically; a memo that cannot be written costs the next call a hash, nothing else."""
    import tempfile  # only to write: a call that reuses the memo never needs it

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            json.dump(memo, out)
        os.replace(temporary, path)
    except OSError:
        return


def _root_key(root: Path) -> str:
    return hashlib.sha256(os.fsencode(os.path.abspath(root))).hexdigest()[:16]
