"""The KB's revision: a content hash of every file that defines its behaviour.

Its own module, with nothing but the standard library, because every
``errkb match`` computes it to find its snapshot before anything else is
imported (issue 23): over thousands of files at 1,000 articles.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

REVISION_FOLDERS = ("articles", "examples", "repros")
Found = tuple[tuple[str, ...], os.DirEntry[str]]  # a file's path parts and its directory entry


def kb_revision(root: Path) -> str:
    """Content hash of everything under the revision folders, ``__pycache__`` aside.

    Files are hashed in the order of their path parts (what ``sorted(rglob)``
    gave), each as its relative path, a NUL, its bytes and a NUL.
    """
    digest = hashlib.sha256()
    base = os.fspath(root)
    for folder in REVISION_FOLDERS:
        for parts in file_parts(base, (folder,)):
            relative = "/".join(parts)
            with open(os.path.join(base, relative), "rb") as handle:
                body = handle.read()
            digest.update(relative.encode() + b"\0")
            digest.update(body + b"\0")
    return digest.hexdigest()


def file_parts(base: str, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Path parts of every file under ``base/prefix``, sorted; as ``os.walk`` finds them."""
    return [parts for parts, _ in file_entries(base, prefix)]


def file_entries(base: str, prefix: tuple[str, ...]) -> list[Found]:
    """(path parts, directory entry) of every file under ``base/prefix``, sorted by the parts.

    Folders that are symbolic links are not entered (``os.walk``'s default);
    a link to a file counts as that file, a dangling one does not.
    """
    found: list[Found] = []
    try:
        entries = list(os.scandir(os.path.join(base, *prefix)))
    except OSError:
        return found
    for entry in entries:
        if entry.is_dir():
            if entry.name != "__pycache__" and not entry.is_symlink():
                found.extend(file_entries(base, (*prefix, entry.name)))
        elif entry.is_file():
            found.append(((*prefix, entry.name), entry))
    found.sort(key=lambda item: item[0])
    return found
