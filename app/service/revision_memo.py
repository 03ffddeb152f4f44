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
the list was over a megabyte of JSON to parse on every call, where hashing the
stamps just taken costs a few milliseconds (``memo/2``).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from app.articles.revision import REVISION_FOLDERS, kb_revision

RACY_NS = 3_000_000_000  # coarser file-system clocks (FAT: 2 s) than any memo can tell apart
FORMAT = "errkb-revision-memo/2"

Stamps = tuple[str, int]  # SHA-256 of every file's stamp, the newest mtime or ctime (ns)


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
        memo = {"format": FORMAT, "begun_ns": begun, "stamps_sha256": stamps[0]}
        _write(path, memo | {"revision": revision})
    return revision


def _stamps(root: Path) -> Stamps | None:
    """The stamps of every file ``kb_revision`` reads, hashed; None if one cannot be stat'ed.

    Each file's stamp is its relative path, inode, size, mtime and ctime, one
    line each, in a fixed order (names sorted within each folder). It walks
    the folders as ``kb_revision`` does (``__pycache__`` and links to folders
    skipped, a link to a file followed, an unreadable folder passed over) but
    builds no path tuples: at 1,000 articles (9,494 files) this walk is most
    of a quick match's revision step.
    """
    lines: list[str] = []
    newest = [0]
    try:
        for folder in REVISION_FOLDERS:
            _walk(os.path.join(os.fspath(root), folder), f"{folder}/", lines, newest)
    except OSError:
        return None
    text = "".join(lines)  # a path holds no NUL: no two lists of stamps encode alike
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest(), newest[0]


def _walk(path: str, relative: str, lines: list[str], newest: list[int]) -> None:
    try:
        with os.scandir(path) as found:
            entries = sorted(found, key=_name)
    except OSError:
        return  # as ``file_entries``: a folder that cannot be listed adds no files
    for entry in entries:
        if entry.is_dir():
            if entry.name != "__pycache__" and not entry.is_symlink():
                _walk(entry.path, f"{relative}{entry.name}/", lines, newest)
        elif entry.is_file():
            stat = entry.stat()  # follows a link, as reading the file does
            mtime, ctime = stat.st_mtime_ns, stat.st_ctime_ns
            lines.append(
                f"{relative}{entry.name}\0{stat.st_ino}\0{stat.st_size}\0{mtime}\0{ctime}\n"
            )
            newest[0] = max(newest[0], mtime, ctime)


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _read(path: Path, stamps: Stamps | None) -> str | None:
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
    if kept != stamps[0]:
        return None
    if stamps[1] >= begun - RACY_NS:
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
