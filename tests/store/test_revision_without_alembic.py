"""The ready path reads the database's revision and the scripts' head without Alembic (issue 23).

``errkb serve`` and ``/readyz`` compare ``alembic_version`` with the scripts'
head; these tests hold that reading to what Alembic itself answers, and make
sure a database behind head is still migrated.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from app.errors import StoreError
from app.store import migrate
from app.store.engine import make_engine


def _alembic_current(url: str) -> str | None:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def _read(url: str) -> str | None:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return migrate.read_revision(conn)
    finally:
        engine.dispose()


def test_the_scripts_head_is_alembics() -> None:
    config = Config()
    config.set_main_option("script_location", str(migrate.MIGRATIONS_DIR))
    assert migrate.script_head() == ScriptDirectory.from_config(config).get_current_head()
    assert migrate.cached_head() == migrate.head()


def test_the_revision_read_is_alembics_at_every_step(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert _read(url) is None  # no table yet
    assert migrate.current(url) is None
    migrate.upgrade(url, "0005")
    assert _read(url) == _alembic_current(url) == "0005"
    migrate.upgrade(url, "head")
    assert _read(url) == _alembic_current(url) == migrate.head()
    migrate.downgrade(url, "base")
    assert _read(url) is None
    assert _alembic_current(url) is None


def test_several_rows_are_refused_as_alembic_refuses_them(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    migrate.upgrade(url, "head")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("INSERT INTO alembic_version (version_num) VALUES ('0001')"))
        with engine.connect() as conn, pytest.raises(StoreError):
            migrate.read_revision(conn)
        assert not migrate.probe(engine).reachable  # /readyz: not ready
    finally:
        engine.dispose()


def test_upgrade_if_behind_migrates_only_a_database_behind_head(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert migrate.upgrade_if_behind(url) is True  # a new file
    assert migrate.current(url) == migrate.head()
    assert migrate.upgrade_if_behind(url) is False
    migrate.downgrade(url, "0005")
    assert migrate.upgrade_if_behind(url) is True
    assert migrate.current(url) == migrate.head()


def test_a_branch_or_an_odd_script_leaves_the_head_to_alembic(tmp_path: Path) -> None:
    versions = tmp_path / "versions"
    versions.mkdir()
    line = 'revision: str = "{}"\ndown_revision: str | None = {}\n'
    (versions / "a.py").write_text(line.format("a", None))
    (versions / "b.py").write_text(line.format("b", '"a"'))
    assert migrate.script_head(tmp_path) == "b"
    (versions / "c.py").write_text(line.format("c", '"a"'))  # a second head
    assert migrate.script_head(tmp_path) is None
    (versions / "c.py").write_text(line.format("c", '("a", "b")'))  # a merge
    assert migrate.script_head(tmp_path) is None
    (versions / "c.py").write_text("revision = compute()\n")
    assert migrate.script_head(tmp_path) is None


def test_a_server_at_head_never_imports_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    migrate.upgrade(url, "head")
    probe = (
        "import sys\nfrom app.store import migrate\nfrom app.store.engine import make_engine\n"
        f"assert migrate.upgrade_if_behind({url!r}) is False\n"
        f"state = migrate.probe(make_engine({url!r}))\n"
        "assert state.reachable and state.revision == migrate.cached_head()\n"
        "import app.main\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('alembic', 'mako')))\n"
    )
    command = [sys.executable, "-c", probe]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
