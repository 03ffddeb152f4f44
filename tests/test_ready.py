"""``errkb serve`` ready means ready: what ``/readyz`` promises, what the warm-up adds (issue 23).

When ``/readyz`` first answers 200 a match is served without an import or a
KB load on its path; the redaction prefilter saved in ``index_dir`` is in use
from then on (loaded before ready, built by the warm-up thread when missing
or damaged, never trusted when damaged).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.matching import redact
from app.matching.scanners import hyperscan_available
from app.service.redact_prefilter import prefilter_path
from tests.api.conftest import TRACEBACK, app_client
from tests.kbfactory import write_kb

READY_THEN_MATCH = """
import json, sys
kb, index, db, report = sys.argv[1:5]
from fastapi.testclient import TestClient
import app.main
from app.settings import Settings
from app.store import migrate
from tests.api.conftest import TRACEBACK
app.main.warm_in_background = lambda *args, **kwargs: None  # nothing imported beside the requests
url = f"sqlite:///{db}"
migrate.upgrade(url)
settings = Settings(database_url=url, kb_path=kb, index_dir=index, rate_limit_per_minute=0)
with TestClient(app.main.create_app(settings)) as client:
    ready = client.get("/readyz").status_code
    client.post("/healthz", json={"text": "x"})  # the test client's own first POST
    before = set(sys.modules)
    answer = client.post("/api/v1/match", json={"text": TRACEBACK})
    new = sorted(set(sys.modules) - before)
    top = (answer.json().get("matches") or [{}])[0].get("article_id")
with open(report, "w") as out:
    json.dump({"ready": ready, "status": answer.status_code, "top": top, "new": new}, out)
"""


def _ready_then_match(tmp_path: Path) -> dict[str, object]:
    report = tmp_path / "report.json"
    arguments = [tmp_path / "kb", tmp_path / "index", tmp_path / "errkb.db", report]
    subprocess.run(
        [sys.executable, "-c", READY_THEN_MATCH, *map(str, arguments)],
        check=True,
        capture_output=True,
        timeout=180,
        cwd=Path(__file__).resolve().parents[1],
    )
    answer: dict[str, object] = json.loads(report.read_text())
    return answer


def test_a_ready_server_matches_without_importing_anything(tmp_path: Path) -> None:
    """After ``/readyz`` 200 (KB from its snapshot), the first match imports no module."""
    write_kb(tmp_path / "kb")
    _ready_then_match(tmp_path)  # the first start writes the snapshot
    assert list((tmp_path / "index").glob("*.kb"))
    answer = _ready_then_match(tmp_path)
    assert answer == {"ready": 200, "status": 200, "top": "sample-error", "new": []}


needs_hyperscan = pytest.mark.skipif(not hyperscan_available(), reason="Hyperscan not installed")


@pytest.fixture
def without_prefilter() -> Iterator[None]:
    redact.use_prefilter(None)
    yield
    redact.use_prefilter(None)


def _warm_up_done() -> None:
    for thread in threading.enumerate():
        if thread.name == "errkb-warm-up":
            thread.join(timeout=120)


@needs_hyperscan
@pytest.mark.usefixtures("without_prefilter")
def test_the_server_builds_the_prefilter_in_the_warm_up_then_loads_it_before_ready(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'errkb.db'}"
    with app_client(url, tmp_path) as client:  # none saved: the warm-up thread builds it
        _warm_up_done()
        assert redact.prefilter_in_use()
        assert client.post("/api/v1/match", json={"text": TRACEBACK}).status_code == 200
    saved = prefilter_path(tmp_path / "index")
    assert saved.is_file()
    redact.use_prefilter(None)
    with app_client(url, tmp_path) as client:  # saved: in use as soon as the app is started
        assert redact.prefilter_in_use()
        assert client.get("/readyz").status_code == 200


@needs_hyperscan
@pytest.mark.usefixtures("without_prefilter")
def test_a_damaged_prefilter_is_not_loaded_but_rebuilt(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'errkb.db'}"
    with app_client(url, tmp_path):
        _warm_up_done()
    saved = prefilter_path(tmp_path / "index")
    intact = saved.read_bytes()
    damaged = bytearray(intact)
    damaged[-100] ^= 0xFF
    saved.write_bytes(bytes(damaged))
    redact.use_prefilter(None)
    with app_client(url, tmp_path):
        _warm_up_done()
        assert redact.prefilter_in_use()
    assert saved.read_bytes() == intact
