"""create_app: probes on a real database, and a bad KB refused at start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.articles.load import kb_revision
from app.errors import KbInvalid
from app.main import create_app
from app.settings import Settings
from app.store import migrate
from tests.kbfactory import variant, write_kb


def settings_for(db_url: str, kb_root: Path) -> Settings:
    return Settings(database_url=db_url, kb_path=kb_root)


def test_healthz_and_readyz_report_the_kb_revision(db_url: str, tmp_path: Path) -> None:
    migrate.upgrade(db_url)
    kb_root = write_kb(tmp_path / "kb")
    with TestClient(create_app(settings_for(db_url, kb_root))) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "database": "ok",
        "kb_revision": kb_revision(kb_root),
        "articles": 1,
    }


def test_readyz_is_503_when_the_database_is_unreachable(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    unreachable = "postgresql+psycopg://nobody@127.0.0.1:9/none"
    with TestClient(create_app(settings_for(unreachable, kb_root))) as client:
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["database"] == "unreachable"


def test_a_kb_with_errors_refuses_to_start_with_every_message(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb", variant(libraries=[]))
    app = create_app(settings_for(f"sqlite:///{tmp_path / 'db.sqlite'}", kb_root))
    with pytest.raises(KbInvalid) as caught, TestClient(app):
        pass
    assert "kb/articles/sample-error.yaml:" in str(caught.value)


def test_nothing_is_built_before_start_up(tmp_path: Path) -> None:
    """create_app touches neither the KB nor the database until the app starts."""
    app = create_app(settings_for(f"sqlite:///{tmp_path / 'sub' / 'db.sqlite'}", tmp_path / "nokb"))
    assert app.title == "errkb"
    assert not (tmp_path / "sub").exists()
