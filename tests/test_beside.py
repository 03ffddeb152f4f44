"""``make test`` runs the real-repro module beside the suite and fails when either half fails."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests import beside


def test_the_halves_split_the_suite_without_overlap() -> None:
    repros, rest = beside.commands(["-x"])
    assert beside.REPROS in repros
    assert f"--ignore={beside.REPROS}" in rest
    assert rest[-1] == "-x"


@pytest.mark.parametrize(
    ("repros_code", "rest_code", "expected"), [(0, 0, 0), (3, 0, 3), (0, 2, 2)]
)
def test_either_half_failing_fails_the_run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    repros_code: int,
    rest_code: int,
    expected: int,
) -> None:
    def commands(extra: list[str]) -> tuple[list[str], list[str]]:
        repros = [sys.executable, "-c", f"print('repro half'); raise SystemExit({repros_code})"]
        rest = [sys.executable, "-c", f"raise SystemExit({rest_code})"]
        return repros, rest

    monkeypatch.setattr(beside, "commands", commands)
    assert beside.main([], log_path=tmp_path / "repros.log") == expected
    out = capsys.readouterr().out
    assert "repro half" in out  # the repro module's output is shown after the suite's
    assert f"exited {rest_code}" in out
