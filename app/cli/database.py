"""``errkb db``: migrations (Alembic), backups and the retention purge."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.common import UrlOption, database_url_from, settings_from
from app.errors import InputError

db_cli = typer.Typer(help="Database migrations (Alembic).", no_args_is_help=True)


@db_cli.command("backup")
def db_backup(
    target: Annotated[Path, typer.Argument(help="The backup file to write (never overwritten).")],
    database_url: UrlOption = None,
) -> None:
    """A consistent copy while errkb runs: VACUUM INTO for SQLite, pg_dump for PostgreSQL."""
    from app.store.backup import backup

    size = backup(database_url_from(database_url), target)
    typer.echo(f"backup written: {target} ({size} bytes)")


@db_cli.command("purge")
def db_purge(
    days: Annotated[int | None, typer.Option(min=1, help="Default: ERRKB_RETENTION_DAYS.")] = None,
    database_url: UrlOption = None,
) -> None:
    """Delete match events, their feedback and unmatched clusters older than N days (F11)."""
    from datetime import timedelta

    from app.service.recorder import purge_stored
    from app.store.engine import make_engine
    from app.store.tables import utcnow

    settings = settings_from(database_url=database_url)
    keep = days or settings.retention_days
    if keep <= 0:
        raise InputError("retention is off (ERRKB_RETENTION_DAYS=0): pass --days N")
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        purged = purge_stored(engine, before=utcnow() - timedelta(days=keep))
    finally:
        engine.dispose()
    typer.echo(
        f"purged {purged.events} match event(s), {purged.clusters} cluster(s) "
        f"and {purged.texts} stored text(s)"
    )


@db_cli.command("upgrade")
def db_upgrade(
    revision: Annotated[str, typer.Argument(help="Target revision.")] = "head",
    database_url: UrlOption = None,
) -> None:
    """Migrate the database up to REVISION (creates a SQLite file if needed)."""
    from app.store import migrate

    url = database_url_from(database_url)
    migrate.upgrade(url, revision)
    typer.echo(f"database at {migrate.current(url)}")


@db_cli.command("downgrade")
def db_downgrade(
    revision: Annotated[str, typer.Argument(help="Target revision, e.g. base or -1.")],
    database_url: UrlOption = None,
) -> None:
    """Migrate the database down to REVISION."""
    from app.store import migrate

    url = database_url_from(database_url)
    migrate.downgrade(url, revision)
    typer.echo(f"database at {migrate.current(url) or 'base'}")


@db_cli.command("current")
def db_current(database_url: UrlOption = None) -> None:
    """Print the database's revision and the code's head revision."""
    from app.store import migrate

    url = database_url_from(database_url)
    typer.echo(f"current: {migrate.current(url) or 'base'}\nhead: {migrate.head()}")
