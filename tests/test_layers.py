"""The layers beyond import-linter: a pure core, no import cycles, a README map that is whole.

import-linter (``make check``) keeps every module on its floor and web, DB
and process modules out of ``app.articles`` and ``app.matching``; these tests
cover what it cannot see: calls that reach the outside world through the
standard library inside ``app/matching``, import cycles within a floor, and a
package the README's architecture map leaves out (issue 22).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import grimp
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


ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"


def architecture_map(readme: str) -> str:
    """The README's architecture section, from its heading to the next one."""
    section = readme.split("\n## Architecture\n", 1)[1]
    return section.split("\n## ", 1)[0]


def app_parts() -> list[str]:
    """Every package of ``app`` (``api/routes/``) and every module at its top (``main.py``)."""
    packages = [
        f"{init.parent.relative_to(APP).as_posix()}/"
        for init in APP.rglob("__init__.py")
        if init.parent != APP
    ]
    modules = [path.name for path in APP.glob("*.py") if path.name != "__init__.py"]
    return sorted(packages + modules)


def missing_from(section: str, parts: list[str]) -> list[str]:
    """The parts no line of the map names at its start (``  api/routes/   ...``)."""
    named = {line.split()[0] for line in section.splitlines() if line.startswith("  ")}
    return [part for part in parts if part not in named]


def test_the_readme_maps_every_package_and_top_level_module() -> None:
    section = architecture_map((ROOT / "README.md").read_text(encoding="utf-8"))
    assert missing_from(section, app_parts()) == []


def test_the_map_check_itself_finds_a_missing_package() -> None:
    section = "```\napp/\n  api/          JSON routes\n  main.py       the app\n```\n"
    assert missing_from(section, ["api/", "main.py", "service/"]) == ["service/"]


def test_the_readme_draws_the_floors_of_the_layers_contract() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(
        c for c in contracts["tool"]["importlinter"]["contracts"] if c["type"] == "layers"
    )
    section = architecture_map((ROOT / "README.md").read_text(encoding="utf-8"))
    assert layers["exhaustive"] is True
    for floor in layers["layers"]:
        assert f"\n{floor} " in section, floor


def import_cycles(graph: grimp.ImportGraph) -> list[tuple[str, str]]:
    """Every direct import ``a -> b`` that ``b`` leads back from: an edge of a cycle."""
    return sorted(
        (importer, imported)
        for importer in graph.modules
        for imported in graph.find_modules_directly_imported_by(importer)
        if graph.chain_exists(importer=imported, imported=importer)
    )


def test_app_has_no_import_cycles() -> None:
    """Issue 22: ``runner`` and ``services`` imported each other; no module may again."""
    assert import_cycles(grimp.build_graph("app", cache_dir=None)) == []


def test_the_cycle_finder_itself_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert import_cycles(graph) == [("pkg.a", "pkg.b"), ("pkg.b", "pkg.a")]
