"""``errkb db backup`` while writers run (target F8), on SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.errors import InputError
from app.store import migrate
from app.store.backup import backup
from app.store.engine import make_engine
from app.store.match_events import record_match_event

WRITERS = 4


def _write(engine: Engine, stop_at: float, done: list[int]) -> None:
    count = 0
    while time.monotonic() < stop_at and count < 500:
        with Session(engine) as session:
            record_match_event(
                session, fingerprint="a" * 64, excerpt="RuntimeError: x", client_kind="curl",
                top_article_id=None, score=None,
                lang="en", input_bytes=1, event_count=1, duration_ms=1.0, kb_revision="r",
            )  # fmt: skip
        count += 1
    done.append(count)


def _events(engine: Engine) -> int:
    with engine.connect() as db:
        return int(db.execute(sa.text("SELECT count(*) FROM match_event")).scalar_one())


def test_f8_backup_while_four_writers_run(engine: Engine, db_url: str, tmp_path: Path) -> None:
    if engine.dialect.name != "sqlite" and shutil.which("pg_restore") is None:
        pytest.skip("PostgreSQL backup check: pg_restore is not installed")
    done: list[int] = []
    stop_at = time.monotonic() + 3
    writers = [
        threading.Thread(target=_write, args=(engine, stop_at, done)) for _ in range(WRITERS)
    ]
    for writer in writers:
        writer.start()
    time.sleep(0.5)
    target = tmp_path / "backup.db"
    size = backup(db_url, target)
    for writer in writers:
        writer.join(timeout=30)
    assert size > 0
    assert len(done) == WRITERS
    total = _events(engine)
    assert total == sum(done)
    if engine.dialect.name == "sqlite":
        restored = make_engine(f"sqlite:///{target}")
        try:
            with restored.connect() as db:
                assert db.execute(sa.text("PRAGMA integrity_check")).scalar() == "ok"
            assert 0 < _events(restored) <= total
            migrate.upgrade(f"sqlite:///{target}")  # a restored copy is a working database
        finally:
            restored.dispose()
    else:
        listing = subprocess.run(
            ["pg_restore", "--list", str(target)], capture_output=True, text=True, timeout=60,
            check=True,
        ).stdout  # fmt: skip
        assert "TABLE DATA public match_event" in listing
    with pytest.raises(InputError, match="never overwrites"):
        backup(db_url, target)
