"""The reference bot (examples/slack_bot.py) answers a pasted traceback in its thread.

A real ``errkb serve`` (the one-article test KB), the bot as a process, and a
loopback stand-in for Slack's chat.postMessage that records what it was sent.
Events are signed with Slack's v0 scheme; an unsigned one is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.api.conftest import TRACEBACK
from tests.e2e.conftest import Server, free_port, start, stop

BOT = Path(__file__).resolve().parents[2] / "examples" / "slack_bot.py"
SECRET = "s3cr3t-signing"
pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("bot")
    running = start(f"sqlite:///{root / 'bot.db'}", root, ERRKB_RATE_LIMIT_PER_MINUTE="0")
    yield running
    stop(running)


@pytest.fixture
def slack() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    posted: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            posted.append({"auth": self.headers["Authorization"], **json.loads(body)})
            self.send_response(200)
            self.send_header("Content-Length", "11")
            self.end_headers()
            self.wfile.write(b'{"ok":true}')

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/api/chat.postMessage", posted
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture
def bot(server: Server, slack: tuple[str, list[dict[str, Any]]]) -> Iterator[str]:
    port = free_port()
    argv = [sys.executable, str(BOT), "--errkb", server.url, "--token", "xoxb-test",
            "--signing-secret", SECRET, "--reply-url", slack[0], "--port", str(port)]  # fmt: skip
    process = subprocess.Popen(argv, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/slack/events"
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=10)


def _signed(payload: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(payload).encode()
    stamp = str(int(time.time()))
    mac = hmac.new(SECRET.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256)
    headers = {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": "v0=" + mac.hexdigest()}
    return body, {**headers, "Content-Type": "application/json"}


def test_a_pasted_traceback_is_answered_in_its_thread(
    bot: str, slack: tuple[str, list[dict[str, Any]]]
) -> None:
    event = {"type": "message", "channel": "C1", "ts": "1700000000.0001",
             "text": f"training died:\n```{TRACEBACK}```"}  # fmt: skip
    body, headers = _signed({"type": "event_callback", "event": event})
    assert httpx.post(bot, content=body, headers=headers).status_code == 200
    deadline = time.monotonic() + 30
    while not slack[1] and time.monotonic() < deadline:
        time.sleep(0.1)
    (reply,) = slack[1]
    assert reply["auth"] == "Bearer xoxb-test"
    assert (reply["channel"], reply["thread_ts"]) == ("C1", "1700000000.0001")
    assert reply["blocks"][0]["text"]["text"] == "errkb: Sample failure"
    assert any("feed(1)" in json.dumps(block) for block in reply["blocks"])


def test_unsigned_events_and_bot_messages_are_not_answered(
    bot: str, slack: tuple[str, list[dict[str, Any]]]
) -> None:
    unsigned = httpx.post(bot, json={"type": "event_callback", "event": {}})
    assert unsigned.status_code == 403
    body, headers = _signed({"type": "url_verification", "challenge": "abc"})
    assert httpx.post(bot, content=body, headers=headers).json() == {"challenge": "abc"}
    own = {"type": "message", "bot_id": "B1", "channel": "C1", "ts": "1", "text": TRACEBACK}
    body, headers = _signed({"type": "event_callback", "event": own})
    assert httpx.post(bot, content=body, headers=headers).status_code == 200
    time.sleep(1)
    assert slack[1] == []
