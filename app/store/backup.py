"""``errkb db backup``: a consistent copy of the database while the service writes (F8).

SQLite: ``VACUUM INTO`` writes a compacted snapshot of one read transaction,
so concurrent writers (WAL mode) neither block it nor tear it; the copy is
checked with ``PRAGMA integrity_check`` before it is reported. Restore: stop
errkb and put the file in place. PostgreSQL: ``pg_dump --format=custom``
(restore with ``pg_restore``), the tool of the server's own project.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from app.errors import InputError, StoreError

PG_DUMP_TIMEOUT_S = 3600


def backup(url: str, target: Path) -> int:
    """Write the backup of the database at ``url`` to ``target``; returns its size in bytes."""
    if target.exists():
        raise InputError(f"{target} exists: a backup never overwrites a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        _sqlite(url, target)
    else:
        _pg_dump(parsed, target)
    return target.stat().st_size


def _sqlite(url: str, target: Path) -> None:
    """VACUUM INTO outside any transaction (errkb's engine begins IMMEDIATE: not here)."""
    database = make_url(url).database
    if not database or database == ":memory:":
        raise InputError("only a SQLite database file can be backed up")
    try:
        with closing(sqlite3.connect(database, isolation_level=None, timeout=30)) as db:
            db.execute("VACUUM INTO ?", (str(target),))
        with closing(sqlite3.connect(target, isolation_level=None)) as copy:
            verdict = copy.execute("PRAGMA integrity_check").fetchone()[0]
    except sqlite3.Error as exc:
        target.unlink(missing_ok=True)
        raise StoreError(f"backup failed: {exc}") from exc
    if verdict != "ok":
        target.unlink(missing_ok=True)
        raise StoreError(f"the backup failed its integrity check: {verdict}")


def _pg_dump(parsed: sa.engine.URL, target: Path) -> None:
    tool = shutil.which("pg_dump")
    if tool is None:
        raise StoreError("pg_dump is not installed (PostgreSQL client tools)")
    env = {**os.environ}
    if parsed.password:
        env["PGPASSWORD"] = str(parsed.password)  # never on the command line (D7)
    command = [
        tool, "--format=custom", "--no-owner", f"--file={target}",
        f"--host={parsed.host or '127.0.0.1'}", f"--port={parsed.port or 5432}",
        f"--username={parsed.username or 'postgres'}", parsed.database or "postgres",
    ]  # fmt: skip
    done = subprocess.run(  # noqa: S603
        command, env=env, capture_output=True, text=True, timeout=PG_DUMP_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        raise StoreError(f"pg_dump failed: {done.stderr.strip()[-300:]}")
