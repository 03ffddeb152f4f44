"""docs/reliability.md names every target A1-I8 and only tests that exist (issue 8)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reliability.md"
TARGETS = {
    "A": 12, "B": 10, "C": 19, "D": 8, "E": 14, "F": 11, "G": 8, "H": 11, "I": 8,
}  # fmt: skip
REFERENCE = re.compile(r"(tests/[\w/]+\.py)::(test_\w+)")


def _rows() -> dict[str, str]:
    rows = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| ([A-I]\d+) \| (.*)", line)
        if found:
            rows[found.group(1)] = found.group(2)
    return rows


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_target_has_a_row() -> None:
    expected = {f"{letter}{n}" for letter, count in TARGETS.items() for n in range(1, count + 1)}
    assert set(_rows()) == expected


def test_every_row_names_a_test_or_a_reason() -> None:
    for target, row in _rows().items():
        cell = row.split(" | ", 1)[0]
        assert REFERENCE.search(cell) or cell.startswith(("not a test", "not done")), target


def test_named_tests_exist_and_carry_their_target_id() -> None:
    for target, row in _rows().items():
        cell = row.split(" | ", 1)[0]
        for path, name in REFERENCE.findall(cell):
            assert name in _functions(ROOT / path), f"{target}: {path}::{name} does not exist"
        if cell.startswith("tests/"):
            names = [name for _, name in REFERENCE.findall(cell)]
            assert any(n.startswith(f"test_{target.lower()}_") or f"_{target.lower()}_" in n
                       for n in names), f"{target}: no test is named after it"  # fmt: skip
