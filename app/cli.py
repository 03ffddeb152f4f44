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
from app.verify.cli import verify_cli

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
token_cli = typer.Typer(help="Bearer tokens for workers and admins.", no_args_is_help=True)
cli.add_typer(token_cli, name="token")

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


def _database_url(override: str | None) -> str:
    """The database URL (a secret: it may hold a password, target D7)."""
    return _settings(database_url=override).database_url.get_secret_value()


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

    url = _database_url(database_url)
    migrate.upgrade(url, revision)
    typer.echo(f"database at {migrate.current(url)}")


@db_cli.command("downgrade")
def db_downgrade(
    revision: Annotated[str, typer.Argument(help="Target revision, e.g. base or -1.")],
    database_url: UrlOption = None,
) -> None:
    """Migrate the database down to REVISION."""
    from app.store import migrate

    url = _database_url(database_url)
    migrate.downgrade(url, revision)
    typer.echo(f"database at {migrate.current(url) or 'base'}")


@db_cli.command("current")
def db_current(database_url: UrlOption = None) -> None:
    """Print the database's revision and the code's head revision."""
    from app.store import migrate

    url = _database_url(database_url)
    typer.echo(f"current: {migrate.current(url) or 'base'}\nhead: {migrate.head()}")


@cli.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Default: ERRKB_HOST.")] = None,
    port: Annotated[int | None, typer.Option(help="Default: ERRKB_PORT.")] = None,
    workers: Annotated[int, typer.Option(min=1, help="uvicorn worker processes.")] = 1,
) -> None:
    """Migrate the database, load the KB and serve HTTP (what `make run` and the image run)."""
    import uvicorn

    from app.http.logs import log_config
    from app.store import migrate

    settings = _settings(host=host, port=port)
    migrate.upgrade(settings.database_url.get_secret_value(), "head")
    uvicorn.run(
        "app.main:create_app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_level=settings.log_level,
        log_config=log_config(settings.log_level),
        access_log=False,  # errkb logs one JSON line per request, without the query string
        proxy_headers=False,  # the app decides which proxies to trust (ERRKB_TRUSTED_PROXIES)
        server_header=False,
        env_file=None,
    )


ScopeOption = Annotated[str, typer.Option("--scope", help="verify or admin.")]


@token_cli.command("create")
def token_create(
    name: Annotated[str, typer.Argument(help="Who holds it, e.g. gpu-worker-1.")],
    scope: ScopeOption = "verify",
    database_url: UrlOption = None,
) -> None:
    """Mint a token and print it once; only its SHA-256 is stored."""
    from sqlmodel import Session

    from app.store.engine import make_engine
    from app.store.queries import create_token

    if scope not in ("verify", "admin"):
        raise InputError("--scope must be verify or admin")
    engine = make_engine(_database_url(database_url))
    try:
        with Session(engine) as session:
            plaintext, _row = create_token(session, name=name, scopes=scope)
    finally:
        engine.dispose()
    typer.echo(plaintext)
    typer.echo(f"token {name!r} ({scope}) created; it is shown only now", err=True)


@token_cli.command("list")
def token_list(database_url: UrlOption = None) -> None:
    """Every token: name, scopes, created, last used, revoked (never the token)."""
    from sqlmodel import Session

    from app.store.engine import make_engine, reader
    from app.store.queries import list_tokens

    engine = make_engine(_database_url(database_url))
    try:
        with Session(reader(engine)) as session:
            rows = list_tokens(session)
    finally:
        engine.dispose()
    for row in rows:
        used = row.last_used_at.isoformat(timespec="seconds") if row.last_used_at else "never"
        state = f"revoked {row.revoked_at:%Y-%m-%d}" if row.revoked_at else "live"
        created = row.created_at.isoformat(timespec="seconds")
        typer.echo(f"{row.name}\t{row.scopes}\tcreated {created}\tused {used}\t{state}")


@token_cli.command("revoke")
def token_revoke(name: str, database_url: UrlOption = None) -> None:
    """Revoke the token called NAME; exit 1 when there is no live one."""
    from sqlmodel import Session

    from app.store.engine import make_engine
    from app.store.queries import revoke_token

    engine = make_engine(_database_url(database_url))
    try:
        with Session(engine) as session:
            revoked = revoke_token(session, name=name)
    finally:
        engine.dispose()
    typer.echo(f"token {name!r} {'revoked' if revoked else 'not found or already revoked'}")
    raise typer.Exit(EXIT_OK if revoked else EXIT_NEGATIVE)


@cli.command()
def report(
    file: Annotated[Path, typer.Argument(help="The job's log file.")],
    url: Annotated[str, typer.Option(envvar="ERRKB_URL", help="errkb's base URL.")] = (
        "http://127.0.0.1:8000"
    ),
    tail_bytes: Annotated[int, typer.Option(min=1024, help="Bytes from the end to send.")] = (
        2 << 20
    ),
    lang: Annotated[str | None, typer.Option(help="en or zh.")] = None,
    timeout: Annotated[float, typer.Option(min=0.1, help="Seconds in all.")] = 20.0,
) -> None:
    """For a job's on-failure hook: send the log's tail, print the answer; always exit 0."""
    from app.report import report as send_report

    try:
        outcome = send_report(file, url=url, tail_bytes=tail_bytes, lang=lang, timeout_s=timeout)
    except Exception as exc:  # a hook must never fail the job it reports on
        typer.echo(f"errkb: report failed ({type(exc).__name__}); job unaffected", err=True)
        raise typer.Exit(EXIT_OK) from None
    if outcome.answer is not None:
        typer.echo(outcome.answer)
    if outcome.note is not None:
        typer.echo(outcome.note, err=True)
    raise typer.Exit(EXIT_OK)


@cli.command()
def version() -> None:
    """Print errkb's version."""
    from importlib.metadata import version as package_version

    typer.echo(package_version("errkb"))


cli.add_typer(verify_cli, name="verify")


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
