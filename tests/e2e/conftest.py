"""A real server for the end-to-end tests: ``errkb serve`` in its own process group.

The command is ``SERVE`` (exactly what the Docker image and docker-compose.yml
run; tests/test_deploy.py checks that they agree), configured through
``ERRKB_*`` variables: loopback only, a free port, the test's own database
(migrated by ``serve`` itself) and the one-article test KB. The server is
stopped by its process group id at the end, never by name.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.kbfactory import write_kb

SERVE = ["errkb", "serve"]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


def start(db_url: str, tmp_path: Path, serve_args: tuple[str, ...] = (), **env: str) -> Server:
    port = free_port()
    kb_root = write_kb(tmp_path / "kb")
    variables = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "ERRKB_HOST": "127.0.0.1",
        "ERRKB_PORT": str(port),
        "ERRKB_DATABASE_URL": db_url,
        "ERRKB_KB_PATH": str(kb_root),
        "ERRKB_INDEX_DIR": str(tmp_path / "index"),
        "ERRKB_PUBLIC_URL": f"http://127.0.0.1:{port}",  # as deployed; links are relative without
        **env,
    }
    log = tmp_path / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*SERVE, *serve_args],
            env=variables,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Server(f"http://127.0.0.1:{port}", process, log)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"errkb serve exited {process.returncode}:\n{server.output()}")
        try:
            if httpx.get(server.url + "/readyz", timeout=1).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    stop(server)
    raise RuntimeError(f"errkb serve did not become ready:\n{server.output()}")


def stop(server: Server) -> None:
    if server.process.poll() is None:
        os.killpg(server.process.pid, signal.SIGTERM)
        try:
            server.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.process.pid, signal.SIGKILL)
            server.process.wait(timeout=5)


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[Server]:
    """``errkb serve`` on SQLite and on PostgreSQL; rate limit off, cache on (as shipped)."""
    running = start(db_url, tmp_path, ERRKB_RATE_LIMIT_PER_MINUTE="0")
    try:
        yield running
    finally:
        stop(running)
