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
from app.articles.problems import Problem
from app.authoring.dryrun import render as render_dryrun
from app.authoring.scaffold import Seed
from app.errors import ConfigError, ErrkbError, InputError
from app.matching.pipeline import MatchOptions, match_text
from app.matching.render import render_text
from app.service.kb import LiveKb, prepare_kb, prepare_valid_kb
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
        raise ConfigError(f"invalid settings: {_invalid_fields(exc)}") from exc


def _invalid_fields(exc: ValidationError) -> str:
    """``ERRKB_PORT: Input should be ...`` per error: the names, never the values (D7)."""
    problems = []
    for error in exc.errors():
        name = "_".join(str(part) for part in error["loc"]).upper()
        problems.append(f"ERRKB_{name}: {error['msg']}" if name else error["msg"])
    return "; ".join(problems)


def _shown(value: object) -> str:
    """One setting as an environment variable would give it; SecretStr stays masked."""
    if isinstance(value, list):
        return ",".join(map(str, value))
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


@cli.command()
def config(
    show: Annotated[bool, typer.Option("--show", help="Print every setting.")] = False,
) -> None:
    """Check the ERRKB_* settings: exit 2 naming each invalid one; --show prints them all.

    Secrets (the database URL) print as ********** (target H6).
    """
    settings = _settings()
    if not show:
        typer.echo("settings ok")
        return
    for name in type(settings).model_fields:
        typer.echo(f"ERRKB_{name.upper()}={_shown(getattr(settings, name))}")


def _database_url(override: str | None) -> str:
    """The database URL (a secret: it may hold a password, target D7)."""
    return _settings(database_url=override).database_url.get_secret_value()


@cli.command()
def lint(kb: KbOption = None, database_url: UrlOption = None) -> None:
    """Check every article: YAML, schema, both languages, regexes, examples, repros.

    Then build the index and run every article's examples through the matcher:
    a must-match example must rank its article first, a must-not-match example
    must not match it. Where the database exists, warn about articles stale
    for longer than ERRKB_STALE_WARN_DAYS.
    """
    settings = _settings(kb_path=kb, database_url=database_url)
    result = prepare_kb(settings.kb_path, index_dir=settings.index_dir)
    problems = list(result.problems)
    if result.live is not None and _database_present(settings):
        problems += _stale_articles(settings, result.live)
    for problem in problems:
        typer.echo(problem.format(), err=problem.severity == "error")
    errors, warnings = len(result.errors), len(problems) - len(result.errors)
    articles = len(result.live.kb) if result.live else len(load_kb(settings.kb_path).kb)
    summary = f"{articles} article(s), {errors} error(s), {warnings} warning(s)"
    typer.echo(summary, err=bool(errors))
    raise typer.Exit(EXIT_NEGATIVE if errors else EXIT_OK)


def _database_present(settings: Settings) -> bool:
    """Whether the lint may read lifecycle evidence: never create a SQLite file to do so."""
    from sqlalchemy.engine import make_url

    url = make_url(settings.database_url.get_secret_value())
    if url.get_backend_name() != "sqlite":
        return True
    return bool(url.database) and Path(str(url.database)).is_file()


def _stale_articles(settings: Settings, live: LiveKb) -> list[Problem]:
    """Warnings for articles stale longer than ERRKB_STALE_WARN_DAYS (issue 9)."""
    from app.service.article_states import article_lifecycles, stale_warnings
    from app.store.engine import make_engine

    engine = make_engine(settings.database_url.get_secret_value())
    try:
        states = article_lifecycles(engine, live, stale_after_days=settings.stale_after_days)
    finally:
        engine.dispose()
    return stale_warnings(states, live, warn_days=settings.stale_warn_days)


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


@db_cli.command("backup")
def db_backup(
    target: Annotated[Path, typer.Argument(help="The backup file to write (never overwritten).")],
    database_url: UrlOption = None,
) -> None:
    """A consistent copy while errkb runs: VACUUM INTO for SQLite, pg_dump for PostgreSQL."""
    from app.store.backup import backup

    size = backup(_database_url(database_url), target)
    typer.echo(f"backup written: {target} ({size} bytes)")


@db_cli.command("purge")
def db_purge(
    days: Annotated[int | None, typer.Option(min=1, help="Default: ERRKB_RETENTION_DAYS.")] = None,
    database_url: UrlOption = None,
) -> None:
    """Delete match events, their feedback and unmatched clusters older than N days (F11)."""
    from datetime import timedelta

    from app.service.recorder import purge_stored
    from app.store.engine import make_engine
    from app.store.tables import utcnow

    settings = _settings(database_url=database_url)
    keep = days or settings.retention_days
    if keep <= 0:
        raise InputError("retention is off (ERRKB_RETENTION_DAYS=0): pass --days N")
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        purged = purge_stored(engine, before=utcnow() - timedelta(days=keep))
    finally:
        engine.dispose()
    typer.echo(f"purged {purged.events} match event(s) and {purged.clusters} cluster(s)")


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
    from app.store.engine import check_sqlite_placement

    settings = _settings(host=host, port=port)
    url = settings.database_url.get_secret_value()
    check_sqlite_placement(url, replicas=settings.replicas)  # before migrating it (F7)
    migrate.upgrade(url, "head")
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
    timeout: Annotated[
        float, typer.Option(min=0.1, help="Seconds in all, retries of a busy errkb included.")
    ] = 20.0,
) -> None:
    """For a job's on-failure hook: send the log's tail, print the answer; always exit 0."""
    from app.hook import report as send_report

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
feedback_cli = typer.Typer(help="What users said about answers.", no_args_is_help=True)
cli.add_typer(feedback_cli, name="feedback")


def _write_new(root: Path, files: dict[str, str], *, force: bool) -> list[Path]:
    targets = [root / relative for relative in files]
    taken = [path for path in targets if path.exists()]
    if taken and not force:
        raise InputError(f"{taken[0]} exists (use --force to overwrite the draft's files)")
    for path, text in zip(targets, files.values(), strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return targets


@cli.command("new")
def new_article(
    article_id: Annotated[str, typer.Argument(help="Lowercase, dash-separated id.")],
    from_cluster: Annotated[
        str | None,
        typer.Option(help="Fingerprint (8+ hex digits) of an unmatched cluster to start from."),
    ] = None,
    force: Annotated[bool, typer.Option(help="Overwrite an existing draft.")] = False,
    kb: KbOption = None,
    database_url: UrlOption = None,
) -> None:
    """Scaffold a draft article in both languages, with its example and repro folders.

    With --from-cluster, the exception, a masked signature regex and the
    cluster's redacted samples (as must-match examples) come from the store.
    """
    from app.articles.model import is_valid_article_id
    from app.authoring.scaffold import scaffold
    from app.store.tables import utcnow

    if not is_valid_article_id(article_id):
        raise InputError(f"{article_id!r} is not an article id (lowercase words joined by '-')")
    settings = _settings(kb_path=kb, database_url=database_url)
    seed = None
    if from_cluster is not None:
        seed = _cluster_seed(settings, from_cluster)
    files = scaffold(article_id, seed, today=utcnow().date().isoformat())
    for path in _write_new(settings.kb_path, files, force=force):
        typer.echo(f"wrote {path}")
    typer.echo("next: fill in every TODO(errkb), then `errkb lint` and `errkb dryrun --kb ...`")


def _cluster_seed(settings: Settings, fingerprint: str) -> Seed:
    from app.service.cluster_seeds import seed_for_cluster
    from app.store.engine import make_engine

    live = prepare_valid_kb(settings.kb_path, index_dir=settings.index_dir, self_tests=False)
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        seed = seed_for_cluster(engine, live, fingerprint)
    finally:
        engine.dispose()
    if seed is None:
        raise InputError(f"no unmatched cluster with fingerprint {fingerprint!r}")
    return seed


@cli.command()
def dryrun(
    proposed: Annotated[Path, typer.Option("--kb", help="The changed KB folder (a branch's kb/).")],
    current: Annotated[
        Path | None,
        typer.Option("--current-kb", help="The KB in use (default: ERRKB_KB_PATH or ./kb)."),
    ] = None,
    days: Annotated[int | None, typer.Option(min=1, help="Default: ERRKB_DRYRUN_DAYS.")] = None,
    max_loss: Annotated[
        float | None, typer.Option(min=0, max=1, help="Default: ERRKB_DRYRUN_MAX_LOSS.")
    ] = None,
    include_drafts: Annotated[
        bool, typer.Option(help="Preview the proposed KB's drafts as if they were active.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON diff.")] = False,
    base_url: Annotated[str, typer.Option(help="Base URL of sample links.")] = "",
    database_url: UrlOption = None,
) -> None:
    """Replay stored match events against the proposed KB and the current one; print the diff.

    Exit 1 when the change would take more than the allowed share of some
    article's past matches away (flagged), 0 otherwise.
    """
    from app.service.previews import index_with_drafts, preview
    from app.store.engine import make_engine

    settings = _settings(kb_path=current, database_url=database_url)
    live = prepare_valid_kb(settings.kb_path, index_dir=settings.index_dir, self_tests=False)
    new = prepare_valid_kb(proposed, index_dir=settings.index_dir)
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        result = preview(
            engine,
            live.index,
            index_with_drafts(new) if include_drafts else new.index,
            days=days or settings.dryrun_days,
            max_loss=settings.dryrun_max_loss if max_loss is None else max_loss,
        )
    finally:
        engine.dispose()
    if as_json:
        typer.echo(json.dumps(result.dry.to_json(), ensure_ascii=False, indent=2))
    else:
        typer.echo(render_dryrun(result.dry, result.describe(base_url or settings.public_url)))
    raise typer.Exit(EXIT_NEGATIVE if result.dry.flagged else EXIT_OK)


@feedback_cli.command("export")
def feedback_export(
    output: Annotated[Path, typer.Option(help="Folder for the candidate fixtures.")] = Path(
        "feedback-fixtures"
    ),
    days: Annotated[int, typer.Option(min=1, help="Feedback of the last N days.")] = 30,
    kb: KbOption = None,
    database_url: UrlOption = None,
) -> None:
    """Write each feedback verdict as a candidate fixture with its verdict marker inside.

    Review them into tests/data/logs/ or kb/examples/; index.jsonl says where
    each came from.
    """
    from datetime import timedelta

    from sqlmodel import Session

    from app.authoring.fixtures import candidate
    from app.store.authoring import feedback_verdicts
    from app.store.engine import make_engine, reader
    from app.store.tables import utcnow

    settings = _settings(kb_path=kb, database_url=database_url)
    live = prepare_valid_kb(settings.kb_path, index_dir=settings.index_dir, self_tests=False)
    engine = make_engine(settings.database_url.get_secret_value())
    try:
        with Session(reader(engine)) as session:
            verdicts = feedback_verdicts(session, since=utcnow() - timedelta(days=days))
    finally:
        engine.dispose()
    output.mkdir(parents=True, exist_ok=True)
    index_lines = []
    for verdict in verdicts:
        found = candidate(
            feedback_id=verdict.feedback_id,
            verdict=verdict.verdict,
            answered=verdict.answered_article_id,
            right=verdict.right_article_id,
            match_event_id=verdict.match_event_id,
            excerpt=verdict.excerpt,
            index=live.index,
        )
        (output / found.name).write_text(found.text, encoding="utf-8")
        index_lines.append(json.dumps(found.meta, ensure_ascii=False))
    (output / "index.jsonl").write_text("".join(line + "\n" for line in index_lines))
    typer.echo(f"{len(verdicts)} candidate fixture(s) in {output}")


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
