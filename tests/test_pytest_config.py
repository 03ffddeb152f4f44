"""The suite's own hygiene (target G8): strict, warnings as errors, every test timed out.

FastAPI runs its tests with ``--strict-config --strict-markers``, warnings as
errors and ``pytest-timeout``; so does errkb. The fault drills, which start
servers and databases, carry a tighter bound of their own.
"""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAULT_DRILL_LIMIT_S = 60


def test_g8_pytest_is_strict_with_warnings_as_errors_and_a_timeout() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert {"--strict-markers", "--strict-config"} <= set(config["addopts"].split())
    assert config["filterwarnings"][0] == "error"
    assert 0 < int(config["timeout"]) <= 300


def test_g8_every_fault_drill_is_slow_and_bounded() -> None:
    drills = sorted((ROOT / "tests" / "faults").glob("test_*.py"))
    assert len(drills) >= 4
    for path in drills:
        module = importlib.import_module(f"tests.faults.{path.stem}")
        marks = {mark.name: mark for mark in getattr(module, "pytestmark", [])}
        if path.stem == "test_clock_jump":  # no server, no database of its own: fast
            continue
        assert "slow" in marks, path.name
        assert marks["timeout"].args[0] <= FAULT_DRILL_LIMIT_S, path.name
