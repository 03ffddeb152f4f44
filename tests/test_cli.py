"""The errkb command, run as a real process: output and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from app.cli import cli
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


def test_h6_config_show_prints_the_effective_settings_with_secrets_masked() -> None:
    password = "hunter2-" + "x" * 8
    env = {
        "ERRKB_DATABASE_URL": f"postgresql+psycopg://errkb:{password}@db:5432/errkb",
        "ERRKB_PORT": "8123",
        "ERRKB_ALLOWED_HOSTS": "a.example.org,b.example.org",
    }
    result = errkb("config", "--show", env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "ERRKB_DATABASE_URL=**********" in lines
    assert "ERRKB_PORT=8123" in lines
    assert "ERRKB_ALLOWED_HOSTS=a.example.org,b.example.org" in lines
    assert "ERRKB_ANSWER_SECONDS=25.0" in lines
    assert password not in result.stdout + result.stderr
    assert errkb("config", env=env).stdout == "settings ok\n"


def test_h6_an_invalid_setting_exits_2_naming_the_field_not_its_value() -> None:
    result = errkb("config", env={"ERRKB_PORT": "99999", "ERRKB_DEFAULT_LANG": "fr"})
    assert result.returncode == 2
    assert "ERRKB_PORT: Input should be less than or equal to 65535" in result.stderr
    assert "ERRKB_DEFAULT_LANG:" in result.stderr
    assert "99999" not in result.stderr


def _command_paths(command: object, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's name path, walking the groups typer builds (its own click)."""
    paths = [path]
    for name, sub in getattr(command, "commands", {}).items():
        paths += _command_paths(sub, (*path, name))
    return paths


def test_h9_errkb_and_every_subcommand_answer_help_with_exit_0() -> None:
    """Target H9 (lint's exit 1 with file:line and usage errors' exit 2: the tests above)."""
    paths = _command_paths(typer.main.get_command(cli))
    assert ("config",) in paths
    assert ("db", "upgrade") in paths
    assert len(paths) >= 20
    runner = CliRunner()
    for path in paths:
        result = runner.invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        assert "Usage:" in result.output, path
    assert errkb("match").returncode == 2  # a missing argument is a usage error


def test_schema_prints_json_schema() -> None:
    result = errkb("schema")
    assert result.returncode == 0
    assert json.loads(result.stdout)["title"] == "Article"


def test_repository_kb_lints_clean() -> None:
    result = errkb("lint")
    assert result.returncode == 0, result.stdout + result.stderr


def test_i8_a_garbage_trusted_proxy_exits_2_in_config_and_serve() -> None:
    """Issue 24 item 8: `config` passed it, `serve` crashed with a traceback (exit 3)."""
    env = {"ERRKB_TRUSTED_PROXIES": "10.0.0.1,garbage-proxy"}
    for command in (("config",), ("serve", "--port", "1")):
        result = errkb(*command, env=env)
        assert result.returncode == 2, (command, result.stderr)
        assert "ERRKB_TRUSTED_PROXIES: " in result.stderr
        assert "garbage-proxy" not in result.stderr
        assert "Traceback" not in result.stderr


WHOLE_TREE = "import sys\nfrom app.cli.commands import run\nsys.argv[0] = 'errkb'\nrun()\n"
SERVE_TREE = "import sys\nfrom app.cli import main\nsys.argv[0] = 'errkb'\nmain()\n"


def _in_tree(program: str, *args: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", program, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "COLUMNS": "100"},
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_serve_alone_answers_as_the_whole_tree() -> None:
    """Issue 23: ``errkb serve`` builds only its command; help and usage errors read the same."""
    for args in (
        ("serve", "--help"),
        ("serve", "--port", "not-a-port"),
        ("serve", "--workers", "0"),
        ("serve", "--bogus"),
        ("serve", "extra"),
    ):
        whole = _in_tree(WHOLE_TREE, *args)
        assert whole[0] == 2 or args[1] == "--help", whole
        assert _in_tree(SERVE_TREE, *args) == whole, args


def test_serve_alone_does_not_build_the_other_commands() -> None:
    probe = (
        "import sys\nfrom app.cli import main\nsys.argv = ['errkb', 'serve', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(n for n in ('app.cli.commands', 'app.verify.cli') if n in sys.modules))\n"
    )
    assert _in_tree(probe)[1].strip().endswith("[]")


PLAIN_SERVE = (
    (),
    ("--port", "8123"),
    ("--port=8123",),
    ("--host", "0.0.0.0", "--port", "9"),
    ("--workers", "3"),
    ("--workers=2", "--host=::1"),
    ("--port", "1", "--port", "2"),
    ("--host", "", "--workers", "01"),
)
LEFT_TO_TYPER = (
    ("--help",),
    ("--port", "not-a-port"),
    ("--port", "+5"),
    ("--port", "٣"),
    ("--workers", "0"),
    ("--bogus",),
    ("extra",),
    ("--port",),
    ("--host", "--port", "1"),
    ("--", "--port", "1"),
)


def test_a_plain_serve_line_reads_as_typer_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 23: ``errkb serve`` parses a plain command line itself, to typer's values."""
    from app.cli import serving, starting
    from app.cli.launch import serve_tree

    started: list[tuple[object, ...]] = []
    monkeypatch.setattr(serving, "start_server", lambda *values: started.append(values))
    for args in PLAIN_SERVE:
        serve_tree()(["serve", *args], standalone_mode=False)
        assert starting.parse_serve(list(args)) == started.pop(), args
    for args in LEFT_TO_TYPER:
        assert starting.parse_serve(list(args)) is None, args


def test_a_plain_serve_line_builds_no_typer_and_uvicorn_speaks_no_websocket() -> None:
    probe = (
        "import json, sys\nimport uvicorn\nfrom app.store import migrate\n"
        "seen = {}\nuvicorn.run = lambda app, **options: seen.update(options)\n"
        "migrate.upgrade_if_behind = lambda url: None\n"
        "from app.cli import main\nsys.argv = ['errkb', 'serve', '--port', '8123']\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    code = exc.code\n"
        "print(json.dumps([code, 'typer' in sys.modules, seen['port'], seen['ws']]))\n"
    )
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "ERRKB_DATABASE_URL": f"sqlite:///{scratch}/errkb.db"}
        done = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, env=env,
            timeout=60, check=True,
        )  # fmt: skip
    assert json.loads(done.stdout.splitlines()[-1]) == [0, False, 8123, "none"]
