"""create_app: probes on a real database, and a bad KB refused at start-up."""

from __future__ import annotations

import time
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
        "migrations": "at-head",
        "kb_revision": kb_revision(kb_root),
        "articles": 1,
    }


def test_h4_readyz_checks_the_database_its_migrations_and_the_kb(
    db_url: str, tmp_path: Path
) -> None:
    """Target H4: a database behind the migrations is not ready; ``?verbose`` says why."""
    migrate.upgrade(db_url)
    kb_root = write_kb(tmp_path / "kb")
    with TestClient(create_app(settings_for(db_url, kb_root))) as client:
        ready = client.get("/readyz", params={"verbose": "true"})
        assert ready.status_code == 200
        assert [(c["name"], c["ok"]) for c in ready.json()["checks"]] == [
            ("database", True),
            ("migrations", True),
            ("kb", True),
        ]
        migrate.downgrade(db_url, "-1")
        behind = client.get("/readyz", params={"verbose": "true"})
        assert behind.status_code == 503
        assert behind.json()["migrations"] == "behind"
        failed = [c for c in behind.json()["checks"] if not c["ok"]]
        assert [c["name"] for c in failed] == ["migrations"]
        assert migrate.head() in failed[0]["detail"]
        assert "checks" not in client.get("/readyz").json()
        migrate.upgrade(db_url)
        assert client.get("/readyz").status_code == 200


def test_h4_healthz_touches_nothing_outside_the_process(tmp_path: Path) -> None:
    """Target H4: with the database unreachable, /healthz still answers, and fast."""
    kb_root = write_kb(tmp_path / "kb")
    unreachable = "postgresql+psycopg://nobody@127.0.0.1:9/none"
    with TestClient(create_app(settings_for(unreachable, kb_root))) as client:
        timings = []
        for _ in range(20):
            started = time.perf_counter()
            assert client.get("/healthz").json() == {"status": "ok"}
            timings.append(time.perf_counter() - started)
        assert client.get("/readyz").json()["migrations"] == "unknown"
        for_curl = client.get("/readyz", headers={"User-Agent": "curl/8.5.0"})
        assert for_curl.status_code == 503
        assert for_curl.json()["database"] == "unreachable"  # a report, not an error line
    assert max(timings) < 0.05


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


def test_ready_and_answering_before_the_warm_up_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: the warm-up runs beside the service; /readyz and matches do not wait for it."""
    import threading

    from app import main as main_module
    from tests.api.conftest import TRACEBACK
    from tests.api.conftest import settings_for as api_settings

    release, started = threading.Event(), threading.Event()
    warmed: list[object] = []
    sqlite_url = f"sqlite:///{tmp_path / 'errkb.db'}"

    # A warm-up thread of an earlier test's app may still be running on a loaded machine
    # and look up ``warm_up`` after the patch below: only this app's thread counts.
    earlier = set(threading.enumerate())

    def held(index: object, samples: object = ()) -> None:
        if threading.current_thread() in earlier:
            return
        started.set()
        assert release.wait(timeout=60)
        warmed.append(samples)

    monkeypatch.setattr(main_module, "warm_up", held)
    migrate.upgrade(sqlite_url)
    kb_root = write_kb(tmp_path / "kb")
    with TestClient(create_app(api_settings(sqlite_url, kb_root))) as client:
        assert started.wait(timeout=60)
        assert client.get("/readyz").status_code == 200
        answer = client.post("/api/v1/match", json={"text": TRACEBACK}).json()
        assert answer["matches"][0]["article_id"] == "sample-error"
        assert warmed == []
        release.set()
    deadline = time.monotonic() + 60
    while not warmed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(warmed) == 1
    assert warmed[0] == [(kb_root / "examples" / "sample-error" / "sample.log").read_bytes()]


def test_a_failed_warm_up_is_logged_not_fatal(caplog: pytest.LogCaptureFixture) -> None:
    from app.main import warm_in_background

    thread = warm_in_background(None)  # type: ignore[arg-type]  # warm_up(None) raises
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert "warm-up match failed" in caplog.text
