"""The job hook: ``errkb report`` and ``scripts/errkb-hook.sh``, against a real server.

Both must print the plain-text answer when errkb answers, and exit 0 with
one note, quickly, when it is down, hangs or refuses: a hook never hurts the
job it reports on (issue 4, item 9).
"""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.report import read_tail, report
from tests.api.conftest import TRACEBACK
from tests.e2e.conftest import Server, free_port, start, stop

REPO = Path(__file__).resolve().parents[1]
HOOK = REPO / "scripts" / "errkb-hook.sh"
ERRKB = Path(sys.executable).parent / "errkb"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("hook")
    running = start(f"sqlite:///{root / 'hook.db'}", root)
    yield running
    stop(running)


@pytest.fixture
def train_log(tmp_path: Path) -> Path:
    log = tmp_path / "train.log"
    log.write_text("noise line\n" * 50_000 + TRACEBACK)
    return log


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A socket that accepts connections and never answers: a hung errkb."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stopping.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stopping.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


def run(*argv: str | Path, timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    result = subprocess.run(
        [str(a) for a in argv], capture_output=True, text=True, timeout=timeout, check=False,
        env={**os.environ, "PATH": f"{ERRKB.parent}{os.pathsep}{os.environ['PATH']}"},
    )  # fmt: skip
    return result, time.perf_counter() - started


@pytest.mark.parametrize("how", ["report", "script"])
def test_the_hook_prints_the_answer(server: Server, train_log: Path, how: str) -> None:
    if how == "report":
        result, _ = run(ERRKB, "report", train_log, "--url", server.url, "--tail-bytes", "4096")
    else:
        result, _ = run("sh", HOOK, train_log, server.url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("errkb: Sample failure [sample-error]"), result
    assert f"see: {server.url}/articles/sample-error" in result.stdout


@pytest.mark.parametrize("how", ["report", "script"])
def test_the_hook_never_fails_the_job_when_errkb_is_down(train_log: Path, how: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    argv = (
        (ERRKB, "report", train_log, "--url", url)
        if how == "report"
        else ("sh", HOOK, train_log, url)
    )
    result, elapsed = run(*argv)
    assert result.returncode == 0
    assert result.stdout == ""
    assert "job unaffected" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert elapsed < 10


def test_the_hook_gives_up_on_a_hung_server(train_log: Path, silent_port: int) -> None:
    url = f"http://127.0.0.1:{silent_port}"
    result, elapsed = run(ERRKB, "report", train_log, "--url", url, "--timeout", "1")
    assert result.returncode == 0
    assert "job unaffected" in result.stderr
    assert elapsed < 10


def test_the_hook_survives_a_missing_log(tmp_path: Path) -> None:
    for argv in ((ERRKB, "report", tmp_path / "none.log"), ("sh", HOOK, tmp_path / "none.log")):
        result, _ = run(*argv)
        assert result.returncode == 0
        assert result.stderr.startswith("errkb:")


def test_report_sends_the_gzipped_tail_from_a_line_start(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_bytes(b"".join(b"line %05d\n" % n for n in range(10_000)))
    seen: dict[str, object] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["encoding"] = request.headers["content-encoding"]
        seen["body"] = gzip.decompress(request.content)
        seen["format"] = request.url.params["format"]
        return httpx.Response(200, text="errkb: answer\n")

    outcome = report(log, tail_bytes=1000, transport=httpx.MockTransport(handler))
    assert outcome.answer == "errkb: answer"
    assert seen["encoding"] == "gzip"
    assert seen["format"] == "text"
    body = seen["body"]
    assert isinstance(body, bytes)
    assert body.startswith(b"line ")
    assert body.endswith(b"line 09999\n")
    assert len(body) <= 1000
    assert read_tail(log, 10**9) == log.read_bytes()


def test_report_notes_a_refusal(tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    log.write_text(TRACEBACK)
    busy = httpx.MockTransport(lambda _request: httpx.Response(503))
    outcome = report(log, transport=busy)
    assert outcome.answer is None
    assert outcome.note is not None
    assert "503" in outcome.note
