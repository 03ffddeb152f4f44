"""SQLite connections carry errkb's PRAGMAs and begin IMMEDIATE (targets F1, F3)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.errors import ConfigError
from app.store import migrate
from app.store.engine import check_sqlite_placement, make_engine, reader
from app.store.migrate import probe


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    url = f"sqlite:///{tmp_path / 'deep' / 'er' / 'errkb.db'}"
    migrate.upgrade(url)
    engine = make_engine(url)
    yield engine
    engine.dispose()


def test_the_parent_folder_is_created(tmp_path: Path, sqlite_engine: Engine) -> None:
    assert (tmp_path / "deep" / "er" / "errkb.db").is_file()


def test_f1_pragmas_are_set_on_every_connection(sqlite_engine: Engine) -> None:
    readers = reader(sqlite_engine)  # two deferred transactions may be open at once
    for _ in range(2):  # and connections coming back from the pool keep the PRAGMAs
        with readers.connect() as a, readers.connect() as b:
            for conn in (a, b):

                def pragma(name: str, conn: sa.Connection = conn) -> Any:
                    return conn.exec_driver_sql(f"PRAGMA {name}").scalar()

                assert pragma("journal_mode") == "wal"
                assert pragma("busy_timeout") >= 5000
                assert pragma("foreign_keys") == 1
                assert pragma("synchronous") == 1  # NORMAL


def _begins(engine: Engine) -> list[str]:
    seen: list[str] = []

    @event.listens_for(engine, "before_cursor_execute")
    def record(_c: Any, _cur: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("BEGIN"):
            seen.append(statement)

    return seen


def test_transactions_begin_immediate_and_readers_deferred(sqlite_engine: Engine) -> None:
    seen = _begins(sqlite_engine)
    with sqlite_engine.begin() as conn:
        conn.exec_driver_sql("SELECT 1")
    with reader(sqlite_engine).connect() as conn:
        conn.exec_driver_sql("SELECT 1")
    assert seen == ["BEGIN IMMEDIATE", "BEGIN DEFERRED"]


def test_a_reader_does_not_block_a_writer(sqlite_engine: Engine) -> None:
    with reader(sqlite_engine).connect() as read:
        read.exec_driver_sql("SELECT count(*) FROM match_event").scalar()
        started = time.monotonic()
        with sqlite_engine.begin() as write:
            write.exec_driver_sql("DELETE FROM match_event")
        assert time.monotonic() - started < 1


def test_f3_read_then_write_transactions_never_see_busy(sqlite_engine: Engine) -> None:
    """Deferred read-then-write transactions fail at once with SQLITE_BUSY; these must not."""
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for i in range(25):
                with sqlite_engine.begin() as conn:
                    n = conn.exec_driver_sql("SELECT count(*) FROM unmatched_cluster").scalar()
                    time.sleep(0.001)
                    conn.execute(
                        sa.text(
                            "INSERT INTO unmatched_cluster"
                            " (fingerprint, exception, sample, count, first_seen, last_seen)"
                            " VALUES (:f, 'E', 's', :n, '2026-01-01', '2026-01-01')"
                        ),
                        {"f": f"{worker}-{i}", "n": n},
                    )
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with sqlite_engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT count(*) FROM unmatched_cluster").scalar() == 100


def test_probe_reaches_the_database(engine: Engine) -> None:
    assert probe(engine).reachable is True
    down = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1")
    try:
        assert probe(down).reachable is False
    finally:
        down.dispose()


MOUNTS = (
    "/dev/vda / ext4 rw 0 0\n"
    "server:/export /srv/shared nfs4 rw 0 0\n"
    "//nas/errkb /mnt/nas cifs rw 0 0\n"
    "tmpfs /srv/shared/local tmpfs rw 0 0\n"
)


@pytest.mark.parametrize(
    ("path", "refused"),
    [
        ("/var/errkb/errkb.db", None),
        ("/srv/shared/errkb.db", "nfs4 filesystem"),
        ("/mnt/nas/db/errkb.db", "cifs filesystem"),
        ("/srv/shared/local/errkb.db", None),  # the longest mount point wins
    ],
)
def test_f7_sqlite_on_a_network_filesystem_is_refused(path: str, refused: str | None) -> None:
    url = f"sqlite:///{path}"
    if refused is None:
        check_sqlite_placement(url, replicas=1, mounts=MOUNTS)
        return
    with pytest.raises(ConfigError, match=refused):
        check_sqlite_placement(url, replicas=1, mounts=MOUNTS)


def test_f7_sqlite_for_several_replicas_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ERRKB_REPLICAS=2 needs PostgreSQL"):
        check_sqlite_placement(f"sqlite:///{tmp_path / 'x.db'}", replicas=2)
    check_sqlite_placement("postgresql+psycopg://u@h/db", replicas=8)
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "serve"],
        env={**os.environ, "ERRKB_REPLICAS": "2", "ERRKB_DATABASE_URL": f"sqlite:///{tmp_path}/e.db"},
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "needs PostgreSQL" in done.stderr
    assert not (tmp_path / "e.db").exists()  # refused before migrating
