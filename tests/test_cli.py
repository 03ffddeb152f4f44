"""The errkb command, run as a real process: output and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.kbfactory import variant, write_kb

REPO = Path(__file__).resolve().parents[1]


def errkb(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **(env or {})},
        timeout=60,
        check=False,
    )


def test_lint_clean_kb_exits_0(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    result = errkb("lint", "--kb", str(kb_root))
    assert result.returncode == 0, result.stderr
    assert "1 article(s), 0 error(s), 0 warning(s)" in result.stdout


def test_lint_bad_kb_exits_1_with_file_and_line(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb", variant(signatures={"error": ["(?=x)SampleError"]}))
    result = errkb("lint", "--kb", str(kb_root))
    assert result.returncode == 1
    assert "kb/articles/sample-error.yaml:" in result.stderr
    assert "unsupported regex construct (RE2)" in result.stderr


def test_lint_reads_kb_path_from_the_environment(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    result = errkb("lint", env={"ERRKB_KB_PATH": str(kb_root)})
    assert result.returncode == 0, result.stderr


def test_bad_setting_exits_2_with_a_message() -> None:
    result = errkb("lint", env={"ERRKB_DEFAULT_LANG": "fr"})
    assert result.returncode == 2
    assert "invalid settings" in result.stderr


def test_unknown_command_exits_2() -> None:
    assert errkb("no-such-command").returncode == 2


def test_schema_prints_json_schema() -> None:
    result = errkb("schema")
    assert result.returncode == 0
    assert json.loads(result.stdout)["title"] == "Article"


def test_repository_kb_lints_clean() -> None:
    result = errkb("lint")
    assert result.returncode == 0, result.stdout + result.stderr
