"""``errkb mcp`` end to end with the mcp package's own client: stdio and streamable HTTP.

The server runs as a real ``errkb mcp`` process over the one-article test KB
(its article matches ``tests.api.conftest.TRACEBACK``), started by the client
(stdio) or on a free loopback port (streamable HTTP), and is stopped by its
process group id.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.api.conftest import TRACEBACK
from tests.e2e.conftest import free_port
from tests.kbfactory import write_kb

ERRKB = Path(sys.executable).parent / "errkb"
pytestmark = pytest.mark.timeout(120)


def _env(tmp_path: Path) -> dict[str, str]:
    kb = write_kb(tmp_path / "kb")
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("ERRKB_")},
        "ERRKB_KB_PATH": str(kb),
        "ERRKB_INDEX_DIR": str(tmp_path / "index"),
        "ERRKB_PUBLIC_URL": "http://errkb.example",
    }


async def _exercise(client: Client) -> dict[str, Any]:
    tools = await client.list_tools()
    names = sorted(tool.name for tool in tools.tools)
    matched = await client.call_tool("match_log", {"log": TRACEBACK, "lang": "en"})
    article = await client.call_tool("get_article", {"article_id": "sample-error", "lang": "zh"})
    found = await client.call_tool("search_articles", {"query": "sample"})
    missing = await client.call_tool("get_article", {"article_id": "nope"})
    return {
        "names": names,
        "matched": _payload(matched),
        "article": _payload(article),
        "found": _payload(found),
        "missing_is_error": bool(missing.is_error),
    }


def _payload(result: Any) -> Any:
    if result.structured_content is not None:
        content = result.structured_content
        return content.get("result", content) if isinstance(content, dict) else content
    return json.loads(result.content[0].text)


def _check(seen: dict[str, Any]) -> None:
    assert seen["names"] == ["get_article", "match_log", "search_articles"]
    top = seen["matched"]["matches"][0]
    assert top["article_id"] == "sample-error"
    assert top["url"] == "http://errkb.example/articles/sample-error"
    assert "feed(1)" in top["summary_markdown"]  # the whole first fix step, code included
    assert seen["matched"]["answer_text"].startswith("errkb: Sample failure [sample-error]")
    assert seen["article"]["title"] == "示例错误"
    assert [a["id"] for a in seen["found"]] == ["sample-error"]
    assert seen["missing_is_error"]


def test_stdio(tmp_path: Path) -> None:
    params = StdioServerParameters(command=str(ERRKB), args=["mcp"], env=_env(tmp_path))

    async def main() -> dict[str, Any]:
        async with Client(params) as client:
            return await _exercise(client)

    _check(anyio.run(main))


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [str(ERRKB), "mcp", "--transport", "streamable-http", "--port", str(port)],
        env=_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)
        if process.stderr:
            process.stderr.close()


def test_streamable_http(http_server: str) -> None:
    async def main() -> dict[str, Any]:
        async with Client(http_server) as client:
            return await _exercise(client)

    _check(anyio.run(main))
