"""Database fixtures: a fresh, empty database per test, on SQLite and on PostgreSQL.

``db_url`` runs a test twice: on a SQLite file in ``tmp_path`` and, when
``ERRKB_TEST_POSTGRES_URL`` names a server (e.g.
``postgresql+psycopg://postgres@127.0.0.1:5432/test``), on a database created
for that test alone and dropped after it. ``engine`` is the same database
migrated to head. No two tests share state.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from app.service.kb import LiveKb, prepare_valid_kb
from app.store import migrate
from app.store.engine import make_engine

POSTGRES_ENV = "ERRKB_TEST_POSTGRES_URL"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """URL of an empty database that belongs to this test alone."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'errkb.db'}"
        return
    server = os.environ.get(POSTGRES_ENV)
    if not server:
        pytest.skip(f"PostgreSQL: set {POSTGRES_ENV}=postgresql+psycopg://user@host:port/db")
    yield from _scratch_postgres(server)


def _scratch_postgres(server: str) -> Iterator[str]:
    name = f"errkb_t_{secrets.token_hex(6)}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """An engine on ``db_url`` migrated to head; disposed after the test."""
    migrate.upgrade(db_url)
    built = make_engine(db_url)
    yield built
    built.dispose()


@pytest.fixture(scope="session")
def repository_kb() -> LiveKb:
    """The repository's own kb/, loaded and indexed once for the session."""
    return prepare_valid_kb(Path(__file__).resolve().parents[1] / "kb", self_tests=False)
