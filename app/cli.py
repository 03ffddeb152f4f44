"""The ``errkb`` command: lint and export the KB, migrate the database, serve.

Exit codes, the same for every command: 0 success; 1 a negative answer (lint
found errors, no article matched); 2 an error (bad usage, unreadable input,
database down). ``main`` maps the error tree of ``app.errors`` to them in one
place.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError

from app.articles.load import load_kb
from app.articles.model import article_json_schema
from app.errors import ConfigError, ErrkbError, InputError
from app.kb import prepare_kb, prepare_valid_kb
from app.matching.pipeline import MatchOptions, match_text
from app.matching.render import render_text
from app.settings import Settings

EXIT_OK, EXIT_NEGATIVE, EXIT_ERROR = 0, 1, 2

cli = typer.Typer(
    name="errkb",
    help="errkb: an error-signature knowledge base for training failures.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
db_cli = typer.Typer(help="Database migrations (Alembic).", no_args_is_help=True)
cli.add_typer(db_cli, name="db")

KbOption = Annotated[
    Path | None, typer.Option("--kb", help="KB folder (default: ERRKB_KB_PATH or ./kb).")
]
UrlOption = Annotated[
    str | None, typer.Option("--database-url", help="Default: ERRKB_DATABASE_URL.")
]


def _settings(**overrides: object) -> Settings:
    """Settings from the environment, with the command line's options on top."""
    values = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**values)  # type: ignore[arg-type]
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {exc}") from exc


@cli.command()
def lint(kb: KbOption = None) -> None:
    """Check every article: YAML, schema, both languages, regexes, examples, repros.

    Then build the index and run every article's examples through the matcher:
    a must-match example must rank its article first, a must-not-match example
    must not match it.
    """
    settings = _settings(kb_path=kb)
    result = prepare_kb(settings.kb_path, index_dir=settings.index_dir)
    for problem in result.problems:
        typer.echo(problem.format(), err=problem.severity == "error")
    errors, warnings = len(result.errors), len(result.problems) - len(result.errors)
    articles = len(result.live.kb) if result.live else len(load_kb(settings.kb_path).kb)
    summary = f"{articles} article(s), {errors} error(s), {warnings} warning(s)"
    typer.echo(summary, err=bool(errors))
    raise typer.Exit(EXIT_NEGATIVE if errors else EXIT_OK)


@cli.command()
def match(
    file: Annotated[str, typer.Argument(help="Log or traceback file; - reads stdin.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON result.")] = False,
    lang: Annotated[str, typer.Option(help="en or zh.")] = "",
    top: Annotated[int, typer.Option(min=1, max=50, help="Matches to show.")] = 3,
    kb: KbOption = None,
) -> None:
    """Match a traceback or a job log; exit 0 when a known article matched, 1 when none did."""
    settings = _settings(kb_path=kb)
    data = _read_input(file)
    live = prepare_valid_kb(settings.kb_path, index_dir=settings.index_dir, self_tests=False)
    chosen = lang or settings.default_lang
    result = match_text(data, live.index, MatchOptions(lang=chosen, top_k=top))
    if as_json:
        typer.echo(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_text(result))
    raise typer.Exit(EXIT_NEGATIVE if result.unknown else EXIT_OK)


def _read_input(file: str) -> bytes:
    try:
        return sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {file}: {exc.strerror}") from exc


@cli.command()
def schema() -> None:
    """Print the JSON Schema of an article file (kb/schema.json is generated from it)."""
    typer.echo(json.dumps(article_json_schema(), indent=2, ensure_ascii=False))


@db_cli.command("upgrade")
def db_upgrade(
    revision: Annotated[str, typer.Argument(help="Target revision.")] = "head",
    database_url: UrlOption = None,
) -> None:
    """Migrate the database up to REVISION (creates a SQLite file if needed)."""
    from app.store import migrate

    url = _settings(database_url=database_url).database_url
    migrate.upgrade(url, revision)
    typer.echo(f"database at {migrate.current(url)}")


@db_cli.command("downgrade")
def db_downgrade(
    revision: Annotated[str, typer.Argument(help="Target revision, e.g. base or -1.")],
    database_url: UrlOption = None,
) -> None:
    """Migrate the database down to REVISION."""
    from app.store import migrate

    url = _settings(database_url=database_url).database_url
    migrate.downgrade(url, revision)
    typer.echo(f"database at {migrate.current(url) or 'base'}")


@db_cli.command("current")
def db_current(database_url: UrlOption = None) -> None:
    """Print the database's revision and the code's head revision."""
    from app.store import migrate

    url = _settings(database_url=database_url).database_url
    typer.echo(f"current: {migrate.current(url) or 'base'}\nhead: {migrate.head()}")


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Default: ERRKB_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: ERRKB_PORT.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="uvicorn worker processes.")] = 1,
) -> None:
    """Migrate the database, load the KB and serve HTTP (what `make run` and the image run)."""
    import uvicorn

    from app.store import migrate

    settings = _settings(host=host, port=port)
    migrate.upgrade(settings.database_url, "head")
    uvicorn.run(
        "app.main:create_app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_level=settings.log_level,
        env_file=None,
    )


@cli.command()
def version() -> None:
    """Print errkb's version."""
    from importlib.metadata import version as package_version

    typer.echo(package_version("errkb"))


def main() -> None:
    """Entry point of the console script; maps errkb's errors to exit codes."""
    try:
        code = cli(standalone_mode=False)
    except ErrkbError as exc:
        typer.echo(f"errkb: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except typer.TyperException as exc:  # usage errors: unknown command, bad option
        show = getattr(exc, "show", None)
        if callable(show):
            show()
        sys.exit(EXIT_ERROR)
    except (typer.Abort, KeyboardInterrupt):
        sys.exit(EXIT_ERROR)
    sys.exit(code if isinstance(code, int) else EXIT_OK)


if __name__ == "__main__":
    main()
