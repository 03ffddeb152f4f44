"""Start-up without the cyclic garbage collector, resumed where the long-lived state is built.

Issue 23: ``errkb match`` and ``errkb serve`` pause Python's collector for
their imports and the KB's load; a match, a full load of the KB and a
ready server run with it on again.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.cli import main as cli_main
from app.main import create_app
from app.matching import pipeline
from app.service import collector
from app.service import kb as kb_module
from app.settings import Settings
from app.store import migrate
from tests.kbfactory import write_kb


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    """Every test leaves the collector as it found it: on."""
    yield
    collector.resume()
    gc.enable()


def test_a_pause_is_resumed_and_only_its_own() -> None:
    collector.pause()
    assert not gc.isenabled()
    collector.resume()
    assert gc.isenabled()
    collector.resume()  # nothing paused: nothing to do
    assert gc.isenabled()
    gc.disable()  # the caller's own choice outlives a pause and a resume
    collector.pause()
    collector.resume()
    assert not gc.isenabled()


def test_a_full_load_runs_with_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    real = kb_module.load_kb

    def load(root: Path):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(root)

    monkeypatch.setattr(kb_module, "load_kb", load)
    collector.pause()
    kb_module.prepare_valid_kb(write_kb(tmp_path / "kb"), index_dir=tmp_path / "index")
    assert seen == [True]


def test_the_quick_match_runs_with_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    kb_module.prepare_valid_kb(root, index_dir=index_dir, self_tests=False)  # the snapshot
    log = tmp_path / "job.log"
    log.write_text("SampleError: widget 3 exploded\n")
    seen: list[bool] = []
    real = pipeline.match_text

    def match(*args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "match_text", match)
    monkeypatch.setenv("ERRKB_INDEX_DIR", str(index_dir))
    monkeypatch.setattr(sys, "argv", ["errkb", "match", str(log), "--kb", str(root), "--json"])
    with pytest.raises(SystemExit) as exited:
        cli_main()
    assert exited.value.code == 0
    assert '"sample-error"' in capsys.readouterr().out
    assert seen == [True]
    assert gc.isenabled()


def test_a_ready_server_runs_with_the_collector(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'errkb.db'}"
    migrate.upgrade(url)
    kb_root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    kb_module.prepare_valid_kb(kb_root, index_dir=index_dir)  # the snapshot start-up reads
    loads: list[Path] = []
    monkeypatch.setattr(kb_module, "load_kb", loads.append)  # a full load would fail here
    settings = Settings(database_url=url, kb_path=kb_root, index_dir=index_dir)
    collector.pause()  # as ``errkb serve`` does before its imports
    with TestClient(create_app(settings)) as client:
        assert client.get("/readyz").status_code == 200
        assert gc.isenabled()
    assert loads == []
