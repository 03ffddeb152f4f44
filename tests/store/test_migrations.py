"""Migrations run both ways on both engines and build exactly the SQLModel metadata (F6)."""

from __future__ import annotations

import ast
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

from app.errors import StoreError
from app.store import migrate
from app.store.engine import make_engine
from app.store.environments import environment_key
from app.store.tables import StoreModel

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _diffs(engine: Engine) -> list[object]:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, StoreModel.metadata))


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_f6_upgrade_downgrade_upgrade(db_url: str) -> None:
    assert migrate.current(db_url) is None
    migrate.upgrade(db_url)
    assert migrate.current(db_url) == migrate.head()
    assert set(StoreModel.metadata.tables) <= _tables(db_url)

    migrate.downgrade(db_url, "base")
    assert migrate.current(db_url) is None
    assert _tables(db_url) <= {"alembic_version"}

    migrate.upgrade(db_url)
    assert migrate.current(db_url) == migrate.head()


def test_f6_schema_after_upgrade_equals_the_metadata(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        assert _diffs(engine), "the comparison must see an empty database as different"
        migrate.upgrade(db_url)
        assert _diffs(engine) == []
    finally:
        engine.dispose()


def test_check_constraints_are_migrated(engine: Engine) -> None:
    """compare_metadata ignores CHECK constraints; compare their names here."""
    inspector = sa.inspect(engine)
    for table in StoreModel.metadata.sorted_tables:
        expected = {c.name for c in table.constraints if isinstance(c, sa.CheckConstraint)}
        found = {c["name"] for c in inspector.get_check_constraints(table.name)}
        assert found == expected, table.name


def test_revisions_are_one_line_named_rev_slug() -> None:
    scripts = ScriptDirectory(str(migrate.MIGRATIONS_DIR))
    assert scripts.get_heads() == [migrate.head()]
    for path in sorted((migrate.MIGRATIONS_DIR / "versions").glob("*.py")):
        revision = _assigned(path, "revision")
        assert path.stem.startswith(f"{revision}_"), path.name


def _assigned(path: Path, name: str) -> object:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                assert node.value is not None
                return ast.literal_eval(node.value)
    raise AssertionError(f"{path.name} assigns no {name}")


def test_failures_are_store_errors(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    with pytest.raises(StoreError):
        migrate.upgrade(url, "no-such-revision")
    with pytest.raises(StoreError):
        migrate.current("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1")


def test_0005_keys_the_runs_stored_before_it(db_url: str) -> None:
    """Runs stored at 0004 get the environment key a new run in that environment would get."""
    migrate.upgrade(db_url, "0004")
    environments = [{"python": "3.11.7", "torch": "2.13.0", "gpu_count": 1}, {}]
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            for number, environment in enumerate(environments):
                conn.execute(
                    sa.text(
                        "INSERT INTO verification_run (run_id, article_id, content_hash, outcome,"
                        " environment, started_at, duration_s, created_at) VALUES (:run_id,"
                        " 'cuda-oom', 'h', 'verified', :environment, :at, 1.0, :at)"
                    ),
                    {"run_id": f"r{number}", "environment": json.dumps(environment), "at": T0},
                )
        migrate.upgrade(db_url)
        with engine.connect() as conn:
            keys = conn.execute(
                sa.text("SELECT environment_key FROM verification_run ORDER BY run_id")
            ).scalars()
            assert list(keys) == [environment_key(e) for e in environments]
        assert _diffs(engine) == []
        migrate.downgrade(db_url, "0004")
        columns = {c["name"] for c in sa.inspect(engine).get_columns("verification_run")}
        assert "environment_key" not in columns
    finally:
        engine.dispose()


def test_i7_0008_moves_stored_texts_over_merging_duplicates(db_url: str) -> None:
    """Events stored at 0007 keep their excerpt and view through 0008 and back; identical
    texts become one ``stored_text`` row counted once per event (issue 24, item 6)."""
    migrate.upgrade(db_url, "0007")
    views = [{"windows": {"0": [[3, "SampleError: boom"]]}, "lang": "en"}, None, {"n": 2}]
    excerpts = ["SampleError: boom", "SampleError: boom", ""]
    engine = make_engine(db_url)
    try:
        with engine.begin() as conn:
            for number, (excerpt, view) in enumerate(zip(excerpts, views, strict=True)):
                conn.execute(
                    sa.text(
                        "INSERT INTO match_event (created_at, fingerprint, excerpt, client_kind,"
                        " lang, input_bytes, event_count, duration_ms, kb_revision, view)"
                        " VALUES (:at, :fp, :excerpt, 'curl', 'en', 1, 1, 1.0, 'r', :view)"
                    ),
                    {
                        "at": T0,
                        "fp": f"{number:064d}",
                        "excerpt": excerpt,
                        "view": None if view is None else json.dumps(view),
                    },
                )
        migrate.upgrade(db_url)
        assert _diffs(engine) == []
        with engine.connect() as conn:
            texts = dict(conn.execute(sa.text("SELECT body, uses FROM stored_text")).all())
            rows = conn.execute(
                sa.text(
                    "SELECT x.body, v.body FROM match_event e"
                    " LEFT JOIN stored_text x ON x.id = e.excerpt_id"
                    " LEFT JOIN stored_text v ON v.id = e.view_id ORDER BY e.id"
                )
            ).all()
        assert texts["SampleError: boom"] == 2
        assert len(texts) == 3  # one excerpt, two views; the empty excerpt is no text
        assert [x for x, _ in rows] == ["SampleError: boom", "SampleError: boom", None]
        assert [None if v is None else json.loads(v) for _, v in rows] == views
        migrate.downgrade(db_url, "0007")
        with engine.connect() as conn:
            back = conn.execute(sa.text("SELECT excerpt, view FROM match_event ORDER BY id")).all()
        assert [x for x, _ in back] == excerpts
        parsed = [v if v is None or isinstance(v, dict) else json.loads(v) for _, v in back]
        assert parsed == views
    finally:
        engine.dispose()
