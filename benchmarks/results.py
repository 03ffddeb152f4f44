"""The throughput run's results: what was measured, kept as plain data and saved as JSON.

Kept apart from the measuring code so that the report (``throughput_report``)
can be regenerated from a saved run without measuring again
(``python -m benchmarks.throughput --report-only FILE``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import Timing


@dataclass
class Cell:
    """One (KB size, log size) cell of the grid."""

    n: int
    size: int
    scan: Timing | None = None  # the regex stage: index.scan(bytes)
    whole: Timing | None = None  # match_text(bytes, index)
    naive: Timing | None = None  # compiled ``re`` patterns searched over the decoded log
    top: str | None = None  # the whole match's first article
    naive_agrees: bool | None = None  # the naive loop found the same error articles as the scan


@dataclass
class Results:
    """Everything one run measured; ``mode`` is quick, full or custom."""

    mode: str
    command: str
    date: str
    machine: str
    ns: list[int]
    sizes: list[int]
    kb: dict[int, dict[str, Any]] = field(default_factory=dict)
    logs: dict[int, dict[str, Any]] = field(default_factory=dict)
    cells: list[Cell] = field(default_factory=list)
    builds: dict[int, dict[str, Any]] = field(default_factory=dict)
    loads: dict[int, dict[str, Any]] = field(default_factory=dict)
    naive_compile_s: dict[int, float] = field(default_factory=dict)
    first: list[dict[str, Any]] = field(default_factory=list)
    peaks: list[dict[str, Any]] = field(default_factory=list)
    fuzzy: list[dict[str, Any]] = field(default_factory=list)
    profile: str = ""
    wall_s: float = 0.0

    def cell(self, n: int, size: int) -> Cell | None:
        for cell in self.cells:
            if cell.n == n and cell.size == size:
                return cell
        return None


def _timing_json(timing: Timing | None) -> Any:
    if timing is None:
        return None
    return {"samples": list(timing.samples), "extrapolated": timing.extrapolated}


def _timing_from(data: Any) -> Timing | None:
    if data is None:
        return None
    return Timing(tuple(data["samples"]), data["extrapolated"])


def save(results: Results, path: Path) -> None:
    """Write the run as JSON (int keys become strings; ``load`` turns them back)."""
    data = dict(vars(results))
    data["cells"] = [
        {
            **vars(c),
            "scan": _timing_json(c.scan),
            "whole": _timing_json(c.whole),
            "naive": _timing_json(c.naive),
        }
        for c in results.cells
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False))


def load(path: Path) -> Results:
    data = json.loads(path.read_text())
    cells = [
        Cell(
            **{
                **c,
                "scan": _timing_from(c["scan"]),
                "whole": _timing_from(c["whole"]),
                "naive": _timing_from(c["naive"]),
            }
        )
        for c in data.pop("cells")
    ]
    for key in ("kb", "logs", "builds", "loads", "naive_compile_s"):
        data[key] = {int(k): v for k, v in data[key].items()}
    return Results(**data, cells=cells)
