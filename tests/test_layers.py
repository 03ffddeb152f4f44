"""The matching core reads no clock, environment or files (STYLE.md dependency rule).

import-linter (``make check``) keeps web, DB and process modules out of
``app.articles`` and ``app.matching``; this test covers what it cannot see:
calls that reach the outside world through the standard library.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

MATCHING = Path(__file__).resolve().parents[1] / "app" / "matching"
FORBIDDEN_CALLS = {
    "open",
    "time.time",
    "time.monotonic",
    "time.perf_counter",
    "datetime.now",
    "datetime.utcnow",
    "date.today",
    "os.getenv",
    "os.environ.get",
    "Path.read_text",
    "Path.read_bytes",
    "Path.open",
}
FORBIDDEN_NAMES = {"os.environ"}


def dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def outside_world_uses(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and dotted(node.func) in FORBIDDEN_CALLS:
            found.append(dotted(node.func))
        if isinstance(node, ast.Attribute) and dotted(node) in FORBIDDEN_NAMES:
            found.append(dotted(node))
        if isinstance(node, ast.Attribute) and node.attr in {"read_text", "read_bytes"}:
            found.append(dotted(node))
    return found


@pytest.mark.parametrize("path", sorted(MATCHING.rglob("*.py")), ids=lambda p: p.name)
def test_matching_module_is_pure(path: Path) -> None:
    assert outside_world_uses(path.read_text(encoding="utf-8")) == []


def test_the_checker_itself_finds_outside_world_calls() -> None:
    source = "import os, time\nx = os.environ['A']\nt = time.time()\nopen('f')\n"
    assert sorted(outside_world_uses(source)) == ["open", "os.environ", "time.time"]
