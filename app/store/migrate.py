"""Run Alembic from code, so neither the service nor its tests need alembic.ini.

``errkb`` migrates its embedded SQLite file at start-up and ``/readyz`` checks
that the database is at :func:`head`; both call these functions with a URL the
caller read from its settings. The scripts live in the repository's top-level
``migrations/`` folder, found relative to this package: errkb runs from a
source checkout (or an image that copies one).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from app.errors import StoreError
from app.store.engine import make_engine, reader

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"


def _config(url: str | None = None) -> Config:
    if not (MIGRATIONS_DIR / "env.py").is_file():
        raise StoreError(f"no Alembic migrations at {MIGRATIONS_DIR}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        # The value goes through configparser interpolation: '%' in a password must be doubled.
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` up to ``revision`` (all pending migrations by default)."""
    try:
        command.upgrade(_config(url), revision)
    except (CommandError, SQLAlchemyError) as exc:
        raise StoreError(f"cannot upgrade the database to {revision}: {exc}") from exc


def downgrade(url: str, revision: str) -> None:
    """Take the database at ``url`` back to ``revision`` ('base' empties it)."""
    try:
        command.downgrade(_config(url), revision)
    except (CommandError, SQLAlchemyError) as exc:
        raise StoreError(f"cannot downgrade the database to {revision}: {exc}") from exc


def current(url: str) -> str | None:
    """The revision the database at ``url`` is at; None when it was never migrated."""
    engine = make_engine(url)
    try:
        with reader(engine).connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the database's revision: {exc}") from exc
    finally:
        engine.dispose()


def head() -> str:
    """The newest revision in ``migrations/``: what a ready database must be at."""
    try:
        revision = ScriptDirectory.from_config(_config()).get_current_head()
    except CommandError as exc:
        raise StoreError(f"migrations are inconsistent: {exc}") from exc
    if revision is None:
        raise StoreError(f"no revisions in {MIGRATIONS_DIR / 'versions'}")
    return revision


@cache
def cached_head() -> str:
    """``head()`` read once per process: the scripts do not change under a running service."""
    return head()


@dataclass(frozen=True)
class DatabaseState:
    """What ``/readyz`` needs to know of the database: does it answer, at which revision."""

    reachable: bool
    revision: str | None = None


def probe(engine: Engine) -> DatabaseState:
    """``SELECT 1`` and the Alembic revision, on one connection; never raises (for /readyz)."""
    try:
        with reader(engine).connect() as conn:
            conn.execute(sa.text("SELECT 1"))
            revision = MigrationContext.configure(conn).get_current_revision()
    except Exception:
        return DatabaseState(reachable=False)
    return DatabaseState(reachable=True, revision=revision)
