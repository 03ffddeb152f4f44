"""Compiled index shards on disk, one checksummed file per shard key (issue 23).

A KB of more than ``SHARD_PATTERNS`` patterns compiles as shards; each is kept
in ``index_dir/shards/`` under the hash of its patterns (``shard_key``), so a
cold start or a reload after an edit loads the unchanged shards instead of
compiling them. Hyperscan checks a database's header when it loads one but
accepted a byte flipped elsewhere in a test, so each file carries the SHA-256
of its key and database: a damaged, truncated or renamed file reads as absent
and the shard is compiled again, never trusted.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

MAGIC = b"ERRKB-SHARD-1\n"
DIGEST = 32


def _digest(key: str, blob: bytes) -> bytes:
    return hashlib.sha256(key.encode() + b"\0" + blob).digest()


@dataclass(frozen=True)
class ShardFiles:
    """The ``CompiledStore`` of the service: ``folder/<key>.hsdb``."""

    folder: Path

    def get(self, key: str) -> bytes | None:
        try:
            data = (self.folder / f"{key}.hsdb").read_bytes()
        except OSError:
            return None
        head = len(MAGIC) + DIGEST
        if not data.startswith(MAGIC) or len(data) <= head:
            return None
        blob = data[head:]
        return blob if data[len(MAGIC) : head] == _digest(key, blob) else None

    def put(self, key: str, blob: bytes) -> None:
        """Write atomically; a read-only or full disk costs a compile at the next start."""
        path = self.folder / f"{key}.hsdb"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(MAGIC + _digest(key, blob) + blob)
            os.replace(temporary, path)
        except OSError as exc:
            log.warning("cannot save %s: %s", path, exc.strerror)
