"""Engines for SQLite (one file, WAL) and PostgreSQL (several replicas).

SQLite is the default and must survive several writer processes on one file
(reliability targets F1-F3): every connection sets WAL, a busy
timeout, ``synchronous=NORMAL`` and foreign keys, and every transaction starts
with ``BEGIN IMMEDIATE``. A deferred transaction that reads and then writes
gets SQLITE_BUSY at once, whatever the busy timeout (the write lock cannot be
waited for without risking a deadlock); an immediate one waits its turn.
Read-only callers may ask for a plain deferred ``BEGIN`` with :func:`reader`,
so readers never queue behind writers.

Pysqlite's own transaction handling is switched off and SQLAlchemy emits BEGIN
itself: the recipe documented in SQLAlchemy 2.x, "Using SQLAlchemy to emit
BEGIN in lieu of SQLite's transaction control" (Python 3.11 has no
``sqlite3.Connection.autocommit``). It also makes SQLite DDL transactional, so
a failed migration rolls back whole.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine, make_url

from app.errors import ConfigError

BUSY_TIMEOUT_MS = 5000
PG_CONNECT_TIMEOUT_S = 5
BEGIN_OPTION = "errkb_sqlite_begin"
"""Execution option naming how a SQLite transaction begins: IMMEDIATE (default) or DEFERRED."""
_BEGIN_MODES = frozenset({"IMMEDIATE", "DEFERRED"})


NETWORK_FILESYSTEMS = frozenset(
    {"nfs", "nfs4", "cifs", "smb3", "smbfs", "fuse.sshfs", "9p", "ceph", "glusterfs", "afs"}
)
"""Where SQLite's locks do not hold: WAL needs shared memory on one host (target F7)."""


def check_sqlite_placement(url: str, *, replicas: int, mounts: str | None = None) -> None:
    """Refuse SQLite for several replicas or on a network filesystem, with the reason."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database:
        return
    if replicas > 1:
        raise ConfigError(
            f"SQLite serves one replica; ERRKB_REPLICAS={replicas} needs PostgreSQL "
            "(ERRKB_DATABASE_URL=postgresql+psycopg://...)"
        )
    if parsed.database == ":memory:" or parsed.database.startswith("file:"):
        return
    folder = Path(parsed.database).resolve().parent
    kind = _filesystem_of(folder, mounts)
    if kind in NETWORK_FILESYSTEMS:
        raise ConfigError(
            f"the SQLite database is on a {kind} filesystem ({folder}): its locks do not "
            "hold there; put it on a local disk or use PostgreSQL"
        )


def _filesystem_of(folder: Path, mounts: str | None) -> str | None:
    """The filesystem type of the longest mount point above ``folder`` (Linux /proc)."""
    if mounts is None:
        try:
            mounts = Path("/proc/self/mounts").read_text()
        except OSError:
            return None
    best, kind = -1, None
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) < 3:
            continue
        point = fields[1].replace("\\040", " ")
        inside = folder == Path(point) or Path(point) in folder.parents
        if inside and len(point) > best:
            best, kind = len(point), fields[2]
    return kind


def make_engine(url: str, *, foreign_keys: bool = True) -> Engine:
    """Build the engine for ``url``; SQLite gets its folder, PRAGMAs and BEGIN IMMEDIATE.

    ``foreign_keys=False`` is for migrations only: batch mode recreates a table
    with DROP TABLE, which would cascade to child rows with foreign keys on.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        # A stopped or unreachable server must fail fast (probes, fault targets F10).
        connect_args = {"connect_timeout": PG_CONNECT_TIMEOUT_S}
        return sa.create_engine(parsed, pool_pre_ping=True, connect_args=connect_args)
    if (
        parsed.database
        and parsed.database != ":memory:"
        and not parsed.database.startswith("file:")
    ):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = sa.create_engine(parsed)
    _install_sqlite_hooks(engine, foreign_keys=foreign_keys)
    return engine


def _install_sqlite_hooks(engine: Engine, *, foreign_keys: bool) -> None:
    pragmas = (
        "PRAGMA journal_mode=WAL",
        f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}",
        "PRAGMA synchronous=NORMAL",
        f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}",
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Stop pysqlite from emitting BEGIN (and COMMIT before DDL) on its own.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            for pragma in pragmas:
                cursor.execute(pragma)
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = conn.get_execution_options().get(BEGIN_OPTION, "IMMEDIATE")
        if mode not in _BEGIN_MODES:
            raise ValueError(f"{BEGIN_OPTION} must be one of {sorted(_BEGIN_MODES)}, not {mode!r}")
        conn.exec_driver_sql(f"BEGIN {mode}")


def reader(engine: Engine) -> Engine:
    """The same engine (same pool) for read-only sessions: SQLite begins DEFERRED.

    A reader that took the write lock would make writers wait for it; WAL lets
    deferred readers run beside one writer. Writing through it risks the
    SQLITE_BUSY that BEGIN IMMEDIATE avoids, so use it only for reads.
    """
    return engine.execution_options(**{BEGIN_OPTION: "DEFERRED"})
