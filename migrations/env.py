"""Alembic environment for errkb: SQLite (batch mode) and PostgreSQL.

``app.store.migrate`` builds the Config in code and sets ``sqlalchemy.url``;
a developer running ``alembic`` by hand from the repository root gets the URL
from ``ERRKB_DATABASE_URL`` instead. The engine comes from
``app.store.engine.make_engine`` with foreign keys off: SQLite batch mode
recreates tables, and a DROP TABLE with foreign keys on would cascade.
"""

from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context

from app.store.engine import make_engine
from app.store.tables import StoreModel

target_metadata = StoreModel.metadata

if context.config.config_file_name:  # only when run by hand with alembic.ini
    fileConfig(context.config.config_file_name, disable_existing_loggers=False)


def _url() -> str:
    url = context.config.get_main_option("sqlalchemy.url") or os.environ.get("ERRKB_DATABASE_URL")
    if not url:
        raise RuntimeError("no database URL: set ERRKB_DATABASE_URL or use app.store.migrate")
    return url


def run_offline() -> None:
    """Emit SQL for ``alembic upgrade --sql`` without a database."""
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    """Migrate a live database in one transaction (SQLite DDL is transactional here)."""
    engine = make_engine(_url(), foreign_keys=False)
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=connection.dialect.name == "sqlite",
                # make_engine emits BEGIN itself, so SQLite DDL is transactional too.
                transactional_ddl=True,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
