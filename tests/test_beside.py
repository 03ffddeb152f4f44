"""``make test`` runs the real-repro module beside the suite and fails when either half fails."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests import beside


def test_the_parts_split_the_suite_without_overlap() -> None:
    repros, rest, alone = beside.commands(["-x"])
    assert beside.REPROS in repros
    assert f"--ignore={beside.REPROS}" in rest
    assert rest[-1] == "-x"
    for path in beside.ALONE:
        assert Path(beside.REPO, path).is_file()
        assert f"--ignore={path}" in rest
        assert path in alone
        assert path not in repros


@pytest.mark.parametrize(
    ("repros_code", "rest_code", "alone_code", "expected"),
    [(0, 0, 0, 0), (3, 0, 0, 3), (0, 2, 0, 2), (0, 0, 4, 4)],
)
def test_any_part_failing_fails_the_run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    repros_code: int,
    rest_code: int,
    alone_code: int,
    expected: int,
) -> None:
    marker = tmp_path / "repros-done"

    def commands(extra: list[str]) -> tuple[list[str], list[str], list[str]]:
        repros = [
            sys.executable,
            "-c",
            f"import pathlib; pathlib.Path({str(marker)!r}).touch(); print('repro half');"
            f" raise SystemExit({repros_code})",
        ]
        rest = [sys.executable, "-c", f"raise SystemExit({rest_code})"]
        # the alone part runs only once the repro half has finished
        alone = [
            sys.executable,
            "-c",
            f"import pathlib; assert pathlib.Path({str(marker)!r}).exists();"
            f" raise SystemExit({alone_code})",
        ]
        return repros, rest, alone

    monkeypatch.setattr(beside, "commands", commands)
    assert beside.main([], log_path=tmp_path / "repros.log") == expected
    out = capsys.readouterr().out
    assert "repro half" in out  # the repro module's output is shown after the suite's
    assert f"exited {rest_code}" in out
    assert f"{' '.join(beside.ALONE)} exited {alone_code}" in out
