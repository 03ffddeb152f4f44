"""The redaction rules' Hyperscan prefilter, compiled once and kept in ``index_dir`` (issue 23).

Which redaction rules to run on a block is decided by a set of ~120
patterns; as an RE2 set every ``errkb match`` process compiled it and built
its automaton's first states again, about a third of a one-shot match's
CPU. ``app.matching.redact`` can take the same patterns as one serialised
Hyperscan database instead (a superset that loads in a millisecond; the
exact RE2 regexes still decide). It is built on the first call that finds
none and kept next to the index, keyed by errkb's code (``code_key``, which
covers the rule table and the loose forms), the Hyperscan version and the
form, so a database of other rules or another engine is never loaded. The
file carries the SHA-256 of its body: one cut short or edited is rebuilt, not
trusted. Anything that goes wrong leaves redaction with RE2, never without it.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from app.matching.redact import compile_prefilter, use_prefilter
from app.matching.scanners import hyperscan_available, hyperscan_version
from app.service.snapshot import code_key

if TYPE_CHECKING:
    import logging

FORM = "redact-loose-prefilter-1"
MAGIC = b"errkb-redact-prefilter/1\n"
PREFIX, SUFFIX = "redact-", ".hs"


def prefilter_path(index_dir: Path) -> Path:
    key = hashlib.sha256(f"{code_key()}\0{hyperscan_version()}\0{FORM}".encode()).hexdigest()
    return index_dir / f"{PREFIX}{key[:32]}{SUFFIX}"


def install_prefilter(index_dir: Path, *, build: bool = True) -> bool:
    """Load (or build and save) the prefilter for this errkb; False: redaction stays with RE2.

    ``build=False`` only loads a saved one (a millisecond): the server does
    that before it is ready and leaves a build (0.5-1 s) to its warm-up thread.
    """
    if not hyperscan_available():
        return False
    path = prefilter_path(index_dir)
    try:
        body = _checked(path.read_bytes())
    except FileNotFoundError:
        body = None
    except (OSError, ValueError) as exc:
        _log().warning("ignoring the redaction prefilter %s (%s); rebuilding it", path.name, exc)
        body = None
    if body is not None and use_prefilter(body):
        return True
    if not build:
        return False
    reserved = _reserve(path)
    if reserved is None:  # a folder it cannot write: compiling every call would cost more
        return False
    handle, temporary = reserved
    try:
        body = compile_prefilter()
    except ValueError as exc:
        _log().info("redaction without a prefilter: %s", exc)
        body = None
    if body is None or not use_prefilter(body):
        os.close(handle)
        _discard(temporary)
        return False
    _save(handle, temporary, path, MAGIC + hashlib.sha256(body).digest() + body)
    return True


def _checked(blob: bytes) -> bytes:
    """The body of a saved prefilter; ``ValueError`` unless it is whole and unchanged."""
    head = len(MAGIC) + 32
    if not blob.startswith(MAGIC) or len(blob) <= head:
        raise ValueError("not a redaction prefilter")
    body = memoryview(blob)[head:]
    if hashlib.sha256(body).digest() != blob[len(MAGIC) : head]:
        raise ValueError("checksum mismatch")
    return bytes(body)


def _reserve(path: Path) -> tuple[int, str] | None:
    """A temporary file beside ``path`` to write the prefilter into; None when none can be made.

    Made before the compile, so a read-only ``index_dir`` costs a failed
    ``mkstemp``, not a compile per call whose result could never be kept.
    """
    import tempfile  # only to write: a call that loads the prefilter never needs it

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    except OSError as exc:
        _log().info("no redaction prefilter: cannot write %s (%s)", path.parent, exc.strerror)
        return None


def _save(handle: int, temporary: str, path: Path, blob: bytes) -> None:
    """Atomically; drops the other errkb builds' prefilters. A failed write costs a rebuild."""
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(blob)
        os.replace(temporary, path)
        for other in path.parent.glob(f"{PREFIX}*{SUFFIX}"):
            if other != path:
                other.unlink(missing_ok=True)
    except OSError as exc:
        _discard(temporary)
        _log().warning("cannot save %s: %s", path, exc.strerror)


def _discard(temporary: str) -> None:
    try:
        os.unlink(temporary)
    except OSError:
        return


def _log() -> logging.Logger:
    """This module's logger; ``logging`` is imported only when there is something to say."""
    import logging

    return logging.getLogger(__name__)
