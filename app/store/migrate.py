"""Run Alembic from code, so neither the service nor its tests need alembic.ini.

``errkb`` migrates its embedded SQLite file at start-up and ``/readyz`` checks
that the database is at :func:`head`; both call these functions with a URL the
caller read from its settings. The scripts live in the repository's top-level
``migrations/`` folder, found relative to this package: errkb runs from a
source checkout (or an image that copies one).

Alembic (with Mako and Pygments) is imported only to migrate: a server whose
database is already at head finds that out by reading ``alembic_version``
and the scripts' ``revision`` lines itself (``upgrade_if_behind``,
``probe``, ``cached_head``), which took a third of ``errkb serve``'s start
(issue 23). Any doubt (branches, a script it cannot read) asks Alembic.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from app.errors import StoreError
from app.store.engine import make_engine, reader

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
VERSION_TABLE = "alembic_version"  # Alembic's default; migrations/env.py keeps it


def _config(url: str | None = None) -> Config:
    from alembic.config import Config

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
    from alembic import command
    from alembic.util import CommandError

    try:
        command.upgrade(_config(url), revision)
    except (CommandError, SQLAlchemyError) as exc:
        raise StoreError(f"cannot upgrade the database to {revision}: {exc}") from exc


def downgrade(url: str, revision: str) -> None:
    """Take the database at ``url`` back to ``revision`` ('base' empties it)."""
    from alembic import command
    from alembic.util import CommandError

    try:
        command.downgrade(_config(url), revision)
    except (CommandError, SQLAlchemyError) as exc:
        raise StoreError(f"cannot downgrade the database to {revision}: {exc}") from exc


def upgrade_if_behind(url: str) -> bool:
    """``upgrade(url, "head")`` unless the database already is at head; True when it ran.

    Reading the revision costs a query; Alembic's import and its no-op upgrade
    cost a third of a second and more. Whatever the read cannot tell (no
    table, several rows, an error) leaves the decision to ``upgrade``.
    """
    try:
        at = current(url)
    except StoreError:
        at = None
    if at is not None and at == cached_head():
        return False
    upgrade(url, "head")
    return True


def current(url: str) -> str | None:
    """The revision the database at ``url`` is at; None when it was never migrated."""
    engine = make_engine(url)
    try:
        with reader(engine).connect() as conn:
            return read_revision(conn)
    except SQLAlchemyError as exc:
        raise StoreError(f"cannot read the database's revision: {exc}") from exc
    finally:
        engine.dispose()


def read_revision(conn: Connection) -> str | None:
    """What Alembic's ``get_current_revision`` says, without importing Alembic.

    None when the version table is missing or empty; several rows (branches,
    which errkb's scripts never make) raise, as Alembic does.
    """
    if not sa.inspect(conn).has_table(VERSION_TABLE):
        return None
    rows = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalars().all()
    if len(rows) > 1:
        raise StoreError(f"{VERSION_TABLE} holds several revisions: {sorted(rows)}")
    return str(rows[0]) if rows else None


def script_head(folder: Path | None = None) -> str | None:
    """The one head of the scripts in ``folder`` from their ``revision`` lines; None if unsure.

    A script's ``revision`` and ``down_revision`` are plain literals (Alembic's
    template writes them so); the head is the one revision no script revises.
    Branches, merges, ``depends_on`` or a script that does not parse give
    None, and ``head`` asks Alembic.
    """
    versions = (folder or MIGRATIONS_DIR) / "versions"
    revised: dict[str, object] = {}
    try:
        for path in sorted(versions.glob("*.py")):
            values = _literals(path, ("revision", "down_revision", "branch_labels", "depends_on"))
            revision, down = values.get("revision"), values.get("down_revision")
            if not isinstance(revision, str) or revision in revised:
                return None
            if values.get("branch_labels") or values.get("depends_on"):
                return None
            if down is not None and not isinstance(down, str):
                return None  # a merge point: let Alembic decide
            revised[revision] = down
    except (OSError, SyntaxError, ValueError):
        return None
    heads = set(revised) - {down for down in revised.values() if down is not None}
    return heads.pop() if len(heads) == 1 else None


def _literals(path: Path, names: tuple[str, ...]) -> dict[str, object]:
    """Module-level ``NAME = literal`` (or ``NAME: type = literal``) values of a script."""
    found: dict[str, object] = {}
    for node in ast.parse(path.read_bytes(), filename=str(path)).body:
        target = value = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and target.id in names and value is not None:
            found[target.id] = ast.literal_eval(value)
    return found


def head() -> str:
    """The newest revision in ``migrations/``: what a ready database must be at."""
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    try:
        revision = ScriptDirectory.from_config(_config()).get_current_head()
    except CommandError as exc:
        raise StoreError(f"migrations are inconsistent: {exc}") from exc
    if revision is None:
        raise StoreError(f"no revisions in {MIGRATIONS_DIR / 'versions'}")
    return revision


@cache
def cached_head() -> str:
    """The head read once per process (the scripts do not change under a running service).

    From the scripts' ``revision`` lines when they form one line, as errkb's
    do (``tests/store/test_migrations.py`` compares it with Alembic's); else
    Alembic's ``head()``.
    """
    return script_head() or head()


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
            revision = read_revision(conn)
    except Exception:
        return DatabaseState(reachable=False)
    return DatabaseState(reachable=True, revision=revision)
